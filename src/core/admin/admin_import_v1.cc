// Import of version 1 files (spec 10 CLI): one entry per line, no header,
// upserted by (owner, namespace, key) in one transaction. The reader has
// returned the file's first line already (admin_import.cc looked at it).

#include "core/access.h"
#include "core/admin/admin_import_checks.h"
#include "core/admin/admin_options.h"
#include "core/formats/entry_json.h"
#include "core/formats/record_json.h"
#include "core/validation.h"
#include "rules/tool_rule.h"

namespace mnemo {

Result<ImportReport> Admin::ImportV1(const Principal& who, internal::LineReader& lines,
                                     const ProgressFn& progress) {
  std::vector<storage::EntryWrite> writes;
  // Bring-your-own vectors on import lines: (index into writes, vector).
  std::vector<std::pair<size_t, std::vector<float>>> external;
  internal::LineErrors errors;
  const bool admin = IsAdmin(who, options_->acl_enabled);
  const TimeMs now = clock_->NowMs();
  std::string line = lines.pending;
  do {
    const int64_t line_no = lines.number();
    Result<nlohmann::json> parsed = internal::ParseImportLine(line, options_->max_body_bytes);
    if (!parsed.ok()) {
      errors.Add(line_no, parsed.status().message());
      continue;
    }
    const nlohmann::json j = std::move(parsed).value();
    Result<Entry> e = EntryFromImportJson(j, who.name);
    if (!e.ok()) {
      errors.Add(line_no, e.status().message());
      continue;
    }
    Status admitted = CheckSecret(options_->secrets, e->content, "content");
    if (admitted.ok()) admitted = internal::AdmitImportedEntry(who, admin, *e);
    if (!admitted.ok()) {
      errors.Add(line_no, admitted.message());
      continue;
    }
    // A user's import never names another principal's entry by id (an id
    // taken or not would tell): its entries keep or get their own.
    if (!admin) e->id.clear();
    if (auto emb = j.find("embedding"); emb != j.end() && !emb->is_null()) {
      Result<std::vector<float>> v = internal::FloatsFromJson(*emb, "embedding");
      Status ok = v.ok() ? ValidateEmbedding(*v) : v.status();
      if (!ok.ok()) {
        errors.Add(line_no, ok.message());
        continue;
      }
      external.emplace_back(writes.size(), std::move(v).value());
    }
    writes.push_back(WriteOfEntry(*e, now));
    if (progress && line_no % 4096 == 0) progress(line_no, 0);
  } while (lines.Next(line));
  if (lines.bad()) return Unavailable("cannot read the import input");
  MNEMO_RETURN_IF_ERROR(errors.ToStatus());
  ImportReport report;
  std::vector<storage::Label> labels;
  MNEMO_ASSIGN_OR_RETURN(report.created, stores_.entries->UpsertBatch(writes, &labels));
  report.imported = static_cast<int64_t>(writes.size());
  // Released, not cleared: the capacity of 1M writes would stay allocated
  // through the vector fill below, the import's peak.
  std::vector<storage::EntryWrite>().swap(writes);
  if (progress) progress(lines.number(), lines.number());
  MNEMO_RETURN_IF_ERROR(vectors_.StoreExternal(labels, external));
  // Vectors for what changed; an embedder failure leaves them pending.
  MNEMO_ASSIGN_OR_RETURN(ReindexReport filled, vectors_.FillMissing({}));
  (void)filled;
  return report;
}

// The write that restores `e` as exported (id, times, counters, flags).
storage::EntryWrite WriteOfEntry(const Entry& e, TimeMs now) {
  storage::EntryWrite w;
  w.owner = e.owner;
  w.ns = e.ns;
  w.key = e.key;
  w.content = e.content;
  w.category = e.category;
  w.tags = e.tags;
  w.visibility = e.visibility;
  w.now = e.updated_at != 0 ? e.updated_at : now;
  if (!e.id.empty()) w.id = e.id;
  if (e.created_at != 0) w.created_at = e.created_at;
  w.access_count = e.access_count;
  w.useful_count = e.useful_count;
  w.archived = e.archived;
  // A rule's no-duplicate check reads the rules of its fingerprint.
  if (rules::RuleFromEntry(e)) w.fingerprint = rules::BodyFingerprint(e.content);
  return w;
}

}  // namespace mnemo
