// Import of version 1 files (spec 10 CLI): one entry per line, no header,
// upserted by (owner, namespace, key) in one transaction. The reader has
// returned the file's first line already (admin_import.cc looked at it).
// The lines are parsed and checked on two threads, in blocks, while the
// store is idle (issue 46: a third of a 100k import's time before its first
// statement); the writes and the bad lines come out in the file's order.

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/access.h"
#include "core/admin/admin_import_checks.h"
#include "core/admin/admin_options.h"
#include "core/formats/entry_json.h"
#include "core/formats/record_json.h"
#include "core/validation.h"
#include "rules/tool_rule.h"

namespace mnemo {

namespace {

// Lines parsed per block: small enough that two threads share the work
// evenly, large enough that claiming a block costs nothing.
constexpr size_t kBlockLines = 1024;

// One line of a version 1 file, as ParseV1Line left it: the write and its
// bring-your-own vector, or the line's error.
struct V1Line {
  int64_t number = 0;
  std::optional<std::string> error;  // none: the line is good
  storage::EntryWrite write;
  std::optional<std::vector<float>> embedding;
};

// What every line is checked against.
struct V1Checks {
  const Principal& who;
  bool admin = false;
  const internal::AdminOptions& options;
  TimeMs now = 0;
};

// Parses and checks one line (free of shared state: called on two threads).
void ParseV1Line(const V1Checks& c, const std::string& line, V1Line& out) {
  Result<nlohmann::json> parsed = internal::ParseImportLine(line, c.options.max_body_bytes);
  if (!parsed.ok()) {
    out.error = parsed.status().message();
    return;
  }
  const nlohmann::json j = std::move(parsed).value();
  Result<Entry> e = EntryFromImportJson(j, c.who.name);
  if (!e.ok()) {
    out.error = e.status().message();
    return;
  }
  Status admitted = CheckSecret(c.options.secrets, e->content, "content");
  if (admitted.ok()) admitted = internal::AdmitImportedEntry(c.who, c.admin, *e);
  if (!admitted.ok()) {
    out.error = admitted.message();
    return;
  }
  // A user's import never names another principal's entry by id (an id
  // taken or not would tell): its entries keep or get their own.
  if (!c.admin) e->id.clear();
  if (auto emb = j.find("embedding"); emb != j.end() && !emb->is_null()) {
    Result<std::vector<float>> v = internal::FloatsFromJson(*emb, "embedding");
    Status ok = v.ok() ? ValidateEmbedding(*v) : v.status();
    if (!ok.ok()) {
      out.error = ok.message();
      return;
    }
    out.embedding = std::move(v).value();
  }
  out.write = WriteOfEntry(*e, c.now);
}

// A block of lines: read, then parsed in place.
struct V1Block {
  std::vector<std::string> text;
  std::vector<V1Line> lines;
};

// Parses `blocks` on this thread and a second one, each claiming the next
// block not taken; `progress` (this thread only) hears of the lines done.
void ParseV1Blocks(const V1Checks& c, std::vector<V1Block>& blocks, const ProgressFn& progress) {
  std::atomic<size_t> claimed{0};
  auto work = [&](bool report) {
    for (size_t b; (b = claimed++) < blocks.size();) {
      V1Block& block = blocks[b];
      for (size_t i = 0; i < block.text.size(); ++i) ParseV1Line(c, block.text[i], block.lines[i]);
      std::vector<std::string>().swap(block.text);
      if (report && progress && !block.lines.empty()) progress(block.lines.back().number, 0);
    }
  };
  if (blocks.size() < 2) {
    work(true);
    return;
  }
  std::jthread second(work, false);
  work(true);
}

}  // namespace

Result<ImportReport> Admin::ImportV1(const Principal& who, internal::LineReader& lines,
                                     const ProgressFn& progress) {
  std::vector<V1Block> blocks;
  std::string line = lines.pending;
  do {
    if (blocks.empty() || blocks.back().text.size() == kBlockLines) blocks.emplace_back();
    V1Block& block = blocks.back();
    block.lines.push_back({.number = lines.number()});
    block.text.push_back(std::move(line));
  } while (lines.Next(line));
  if (lines.bad()) return Unavailable("cannot read the import input");
  const V1Checks checks{.who = who,
                        .admin = IsAdmin(who, options_->acl_enabled),
                        .options = *options_,
                        .now = clock_->NowMs()};
  ParseV1Blocks(checks, blocks, progress);
  std::vector<storage::EntryWrite> writes;
  // Bring-your-own vectors on import lines: (index into writes, vector).
  std::vector<std::pair<size_t, std::vector<float>>> external;
  internal::LineErrors errors;
  for (V1Block& block : blocks) {
    for (V1Line& l : block.lines) {
      if (l.error) {
        errors.Add(l.number, *l.error);
        continue;
      }
      if (l.embedding) external.emplace_back(writes.size(), std::move(*l.embedding));
      writes.push_back(std::move(l.write));
    }
    std::vector<V1Line>().swap(block.lines);
  }
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
