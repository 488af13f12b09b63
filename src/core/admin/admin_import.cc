// Import (spec 10 CLI): tells the version from the first line, then reads
// version 1 (admin_import_v1.cc) or version 2 here: every line parsed and checked
// first (bad lines reported by number), the header's counts compared with
// the lines, a non-empty workspace refused unless --merge, and everything
// written by one AdminStore::Restore. What is derived is derived again: the
// keyword texts of turns, documents and context events through the tool
// registry (with the file's registrations), embedder vectors after the
// write.

#include <functional>
#include <istream>
#include <map>
#include <set>

#include "archivist/turn_indexer.h"
#include "context/computation_text.h"
#include "context/context_window.h"
#include "core/access.h"
#include "core/admin/admin_import_checks.h"
#include "core/admin/admin_options.h"
#include "core/formats/context_event_json.h"
#include "core/formats/entry_json.h"
#include "core/formats/export_format.h"
#include "core/formats/record_json.h"
#include "core/services/tool_specs.h"
#include "core/validation.h"
#include "embed/embedder.h"
#include "rules/tool_rule.h"

namespace mnemo {
namespace {

using nlohmann::json;

// A vector line before its entry is known: resolved once every line is read.
struct PendingVector {
  int64_t line = 0;
  std::string entry_id;
  storage::RestoreVector vector;
};

// The counts of a header, or kInvalidArgument.
Result<std::map<std::string, int64_t>> HeaderCounts(const json& header) {
  const json& version = header[internal::kExportMarker];
  if (!version.is_number_integer() || version.get<int64_t>() != internal::kExportVersion) {
    return InvalidArgument("export format version " + version.dump() +
                           " is not supported: this mnemo reads versions 1 and 2");
  }
  auto counts = header.find("counts");
  if (counts == header.end() || !counts->is_object()) {
    return InvalidArgument("the header has no \"counts\" object");
  }
  std::map<std::string, int64_t> out;
  for (const auto& [name, value] : counts->items()) {
    const bool known = std::find(internal::kCountNames.begin(), internal::kCountNames.end(),
                                 name) != internal::kCountNames.end();
    if (!known) return InvalidArgument("the header counts an unknown kind \"" + name + "\"");
    if (!value.is_number_integer() || value.get<int64_t>() < 0) {
      return InvalidArgument("the header's count of " + name + " is not a count");
    }
    out[name] = value.get<int64_t>();
  }
  return out;
}

}  // namespace

Result<ImportReport> Admin::ImportJsonl(const Principal& who, std::istream& in,
                                        const ProgressFn& progress, const ImportOptions& options) {
  MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
  internal::LineReader lines(in);
  if (!lines.Next(lines.pending)) {
    if (lines.bad()) return Unavailable("cannot read the import input");
    return ImportReport{};
  }
  Result<json> first = internal::ParseImportLine(lines.pending, options_->max_body_bytes);
  if (first.ok() && first->is_object() && first->contains(internal::kExportMarker)) {
    MNEMO_ASSIGN_OR_RETURN(const auto declared, HeaderCounts(*first));
    return ImportV2(who, declared, lines, progress, options);
  }
  return ImportV1(who, lines, progress);
}

Result<std::string> Admin::NonEmptyParts(const Principal& who) {
  const storage::ReadScope scope = ReadScopeFor(who, options_->acl_enabled);
  const std::string& me = scope.principal;
  const std::optional<std::string> owner =
      scope.all ? std::nullopt : std::optional<std::string>(me);
  std::vector<std::pair<std::string, int64_t>> parts;
  MNEMO_ASSIGN_OR_RETURN(Stats stats, stores_.entries->GetStats(scope));
  parts.emplace_back("entries", stats.entries);
  int64_t system = 0;
  MNEMO_RETURN_IF_ERROR(stores_.entries->ForEach(scope, "", [&](const Entry& e) -> Status {
    if (storage::IsSystemNamespace(e.ns)) ++system;
    return Status::Ok();
  }));
  parts.emplace_back("tool entries (rules, statistics, registry)", system);
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::TurnHit> turns,
      stores_.episodic->SearchTurns({.all = scope.all, .owner = me, .limit = 1}));
  (void)turns;
  int64_t turn_rows = 0;
  for (int64_t after = 0;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> page,
                           stores_.episodic->TurnsAfter(after, 512));
    if (page.empty()) break;
    after = page.back().id;
    for (const storage::TurnRow& r : page) turn_rows += scope.all || r.owner == me ? 1 : 0;
  }
  parts.emplace_back("turns", turn_rows);
  MNEMO_ASSIGN_OR_RETURN(auto segments, stores_.episodic->Segments(scope.all, me, std::nullopt));
  parts.emplace_back("segments", static_cast<int64_t>(segments.size()));
  MNEMO_ASSIGN_OR_RETURN(
      auto events, stores_.episodic->SearchEvents({.all = scope.all, .owner = me, .limit = 1}));
  parts.emplace_back("events", static_cast<int64_t>(events.size()));
  MNEMO_ASSIGN_OR_RETURN(auto facets, stores_.episodic->Facets(scope.all, me));
  parts.emplace_back("profile facets", static_cast<int64_t>(facets.size()));
  MNEMO_ASSIGN_OR_RETURN(int64_t documents, stores_.documents->CountDocuments(owner));
  parts.emplace_back("documents", documents);
  MNEMO_ASSIGN_OR_RETURN(auto context, stores_.context_events->ContextEventsAfter(0, 1));
  int64_t context_rows = 0;
  for (const auto& r : context) context_rows += scope.all || r.owner == me ? 1 : 0;
  parts.emplace_back("context events", context_rows);
  MNEMO_ASSIGN_OR_RETURN(auto triples, stores_.graph->QueryTriples(
                                           {.owner = owner, .include_history = true, .limit = 1}));
  parts.emplace_back("graph triples", static_cast<int64_t>(triples.size()));
  std::string out;
  for (const auto& [name, n] : parts) {
    if (n == 0) continue;
    if (!out.empty()) out += ", ";
    out += (n == 1 && name != "entries" ? "some " : std::to_string(n) + " ") + name;
  }
  return out;
}

Result<ImportReport> Admin::ImportV2(const Principal& who,
                                     const std::map<std::string, int64_t>& declared,
                                     internal::LineReader& lines, const ProgressFn& progress,
                                     const ImportOptions& options) {
  const bool admin = IsAdmin(who, options_->acl_enabled);
  // A parsed row of the file: made the importer's (under ACL a user imports
  // only into their own rows), checked as its own method checks it, added.
  auto admit = [&]<typename Row, typename To, typename Make = std::identity>(
                   Result<Row> row, Status(*check)(const Row&), std::vector<To> & to,
                   Make make = {})
                   ->Status {
    if (!row.ok()) return row.status();
    if (!admin) row->owner = who.name;
    MNEMO_RETURN_IF_ERROR(check(*row));
    to.push_back(make(std::move(*row)));
    return Status::Ok();
  };
  const TimeMs now = clock_->NowMs();
  storage::RestoreBatch batch;
  std::map<std::string, int64_t> seen;
  std::vector<PendingVector> pending_vectors;
  internal::LineErrors errors;
  std::string line;
  while (lines.Next(line)) {
    const int64_t line_no = lines.number();
    Result<json> parsed = internal::ParseImportLine(line, options_->max_body_bytes);
    if (!parsed.ok()) {
      errors.Add(line_no, parsed.status().message());
      continue;
    }
    json j = std::move(parsed).value();
    if (!j.is_object()) {
      errors.Add(line_no, "not a JSON object (truncated or malformed line)");
      continue;
    }
    auto type_it = j.find("type");
    const std::string type =
        type_it != j.end() && type_it->is_string() ? type_it->get<std::string>() : "";
    const std::string_view count_name = internal::CountName(type);
    if (count_name.empty()) {
      errors.Add(line_no,
                 "\"type\" must be one of entry, vector, turn, segment, event, facet, "
                 "document, context_event, triple");
      continue;
    }
    ++seen[std::string(count_name)];
    storage::RestoreBatch one;
    Status st = Status::Ok();
    if (type == "entry") {
      Result<Entry> e = EntryFromImportJson(j, who.name);
      st = e.ok() ? CheckSecret(options_->secrets, e->content, "content") : e.status();
      if (st.ok()) st = internal::AdmitImportedEntry(who, admin, *e);
      if (st.ok()) one.entries.push_back(WriteOfEntry(*e, now));
    } else if (type == "vector") {
      PendingVector v{.line = line_no};
      auto id = j.find("entry_id");
      auto sig = j.find("signature");
      auto vec = j.find("vector");
      if (id == j.end() || !id->is_string() || sig == j.end() || !sig->is_string() ||
          vec == j.end()) {
        st = InvalidArgument("a vector needs entry_id, signature and vector");
      } else {
        Result<std::vector<float>> f = internal::FloatsFromJson(*vec, "vector");
        st = f.ok() ? ValidateEmbedding(*f, "vector") : f.status();
        if (st.ok() &&
            sig->get<std::string>() != embed::ExternalSignature(static_cast<int>(f->size()))) {
          st = InvalidArgument("signature must be " +
                               embed::ExternalSignature(static_cast<int>(f->size())) +
                               " (bring-your-own vectors only)");
        }
        if (st.ok()) {
          v.entry_id = id->get<std::string>();
          v.vector = {.signature = sig->get<std::string>(), .vector = std::move(f).value()};
          pending_vectors.push_back(std::move(v));
        }
      }
    } else if (type == "turn") {
      st = admit(internal::TurnFromJson(j), internal::ValidateTurnRecord, one.turns,
                 [](storage::TurnRow r) { return storage::TurnWrite{.row = std::move(r)}; });
    } else if (type == "segment") {
      st = admit(internal::SegmentFromJson(j), internal::ValidateSegmentRecord, one.segments);
    } else if (type == "event") {
      st = admit(internal::EventFromJson(j), internal::ValidateEventRecord, one.events);
    } else if (type == "facet") {
      st = admit(internal::FacetFromJson(j), internal::ValidateFacetRecord, one.facets);
    } else if (type == "document") {
      st = admit(internal::DocumentFromJson(j), internal::ValidateDocumentRecord, one.documents);
    } else if (type == "context_event") {
      Result<storage::ContextEventRow> r = internal::ContextEventRowFromJson(j);
      if (r.ok()) {
        if (Status parsed = ParseContextEvent(r->event_json).status(); !parsed.ok()) r = parsed;
      }
      st = admit(std::move(r), internal::ValidateContextEventRecord, one.context_events);
    } else {
      st = admit(internal::TripleFromJson(j), internal::ValidateTripleRecord, one.triples);
    }
    if (st.ok()) st = storage::ValidateRestoreBatch(one);
    if (!st.ok()) {
      errors.Add(line_no, st.message());
      continue;
    }
    auto append = [](auto& to, auto& from) {
      for (auto& x : from) to.push_back(std::move(x));
    };
    append(batch.entries, one.entries);
    append(batch.turns, one.turns);
    append(batch.segments, one.segments);
    append(batch.events, one.events);
    append(batch.facets, one.facets);
    append(batch.documents, one.documents);
    append(batch.context_events, one.context_events);
    append(batch.triples, one.triples);
    if (progress && line_no % 4096 == 0) progress(line_no, 0);
  }
  if (lines.bad()) return Unavailable("cannot read the import input");
  // Vectors name their entry by id.
  std::map<std::string, size_t> entry_at;
  for (size_t i = 0; i < batch.entries.size(); ++i) {
    if (batch.entries[i].id) entry_at[*batch.entries[i].id] = i;
  }
  for (PendingVector& v : pending_vectors) {
    auto it = entry_at.find(v.entry_id);
    if (it == entry_at.end()) {
      errors.Add(v.line, "entry_id " + v.entry_id + " is no entry of this file");
      continue;
    }
    v.vector.entry = it->second;
    batch.vectors.push_back(std::move(v.vector));
  }
  MNEMO_RETURN_IF_ERROR(errors.ToStatus());
  for (const std::string_view name : internal::kCountNames) {
    auto d = declared.find(std::string(name));
    auto s = seen.find(std::string(name));
    const int64_t want = d == declared.end() ? 0 : d->second;
    const int64_t got = s == seen.end() ? 0 : s->second;
    if (want != got) {
      return InvalidArgument("import refused, nothing was imported: the header counts " +
                             std::to_string(want) + " " + std::string(name) +
                             " but the file holds " + std::to_string(got) +
                             " (a truncated or edited export)");
    }
  }
  if (!options.merge) {
    MNEMO_ASSIGN_OR_RETURN(const std::string parts, NonEmptyParts(who));
    if (!parts.empty()) {
      return Conflict(
          "import refused, nothing was imported: the workspace is not empty (it holds " + parts +
          "); import a backup into an empty workspace (mnemo --workspace NEW import "
          "FILE), or add --merge to add its records to what is there (records "
          "already stored are kept)");
    }
  }

  // Keyword texts, through the registry as it will be: this process's
  // declarations plus the file's registrations.
  context::ToolRegistry registry(
      [](std::string_view name) { return rules::NormalizeToolName(name); });
  MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* current, tools_.Current());
  for (const context::ToolRegistry::Listed& l : current->All()) registry.Put(l.source, *l.spec);
  for (const storage::EntryWrite& w : batch.entries) {
    if (w.ns != storage::kToolRegistryNamespace || w.owner != internal::kToolRegistryOwner) {
      continue;
    }
    Result<ToolSpec> decoded = internal::DecodeStoredTool(w.content);
    Result<context::ToolSpec> spec = decoded.ok() ? internal::CompileToolSpec(*decoded)
                                                  : Result<context::ToolSpec>(decoded.status());
    if (spec.ok()) registry.Put(context::ToolSource::kStored, std::move(spec).value());
  }
  for (storage::TurnWrite& w : batch.turns) {
    if (w.row.role != "assistant") {
      w.search_text.reset();  // its content
      continue;
    }
    Result<std::string> text = archivist::RecomputeAssistantSearchText(registry, w.row, nullptr);
    w.search_text = text.ok() ? *text : w.row.content + "\n" + w.row.lesson;
  }
  for (storage::DocumentRow& d : batch.documents) {
    d.search_text = context::DocumentComputationText(registry, d);
  }
  for (storage::ContextEventRow& c : batch.context_events) {
    Result<ContextEvent> event = ParseContextEvent(c.event_json);  // checked above
    c.search_text = event.ok() ? context::EventComputationText(registry, *event) : "";
  }

  if (!admin) MNEMO_RETURN_IF_ERROR(internal::OwnIds(stores_, who.name, batch));
  MNEMO_ASSIGN_OR_RETURN(storage::RestoreReport restored, stores_.admin->Restore(batch));
  ImportReport report{.imported = 0,
                      .created = restored.entries_created,
                      .version = 2,
                      .records = seen,
                      .skipped = restored.skipped};
  for (const auto& [name, n] : seen) report.imported += n;
  if (progress) progress(lines.number(), lines.number());
  // Derived state after the write: the registry, the spaces of the
  // bring-your-own vectors, embedder vectors of entries and recaps.
  MNEMO_RETURN_IF_ERROR(tools_.Current().status());
  std::set<std::pair<std::string, size_t>> spaces_written;
  for (const storage::RestoreVector& v : batch.vectors) {
    spaces_written.emplace(v.signature, v.vector.size());
  }
  for (const auto& [signature, dims] : spaces_written) {
    MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space, vectors_.Space(signature, dims));
    MNEMO_RETURN_IF_ERROR(space->Sync(VectorSpace::SyncMode::kBulk));
  }
  MNEMO_ASSIGN_OR_RETURN(ReindexReport vectors_filled, vectors_.FillMissing({}));
  (void)vectors_filled;
  MNEMO_ASSIGN_OR_RETURN(int64_t recaps, archivist_.FillMissingRecapVectors());
  (void)recaps;
  return report;
}

}  // namespace mnemo
