// Export, format version 2 (spec 10 CLI; docs/storage.md "Export format"):
// every kind of row the workspace holds, read through the stores in pages
// or per owner, one JSON line each (record_json.h), behind a header that
// counts them. The records are written to a temporary file first, so the
// header (the first line) can give the counts without holding the records
// in memory.

#include <array>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <ostream>

#include "base/time.h"
#include "core/access.h"
#include "core/admin/admin_options.h"
#include "core/formats/entry_json.h"
#include "core/formats/export_format.h"
#include "core/formats/record_json.h"
#include "core/validation.h"
#include "embed/embedder.h"

namespace mnemo {
namespace {

using nlohmann::json;

constexpr int kPage = 512;
constexpr int kAll = std::numeric_limits<int>::max();

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

class Sink {
 public:
  Sink() : file_(std::tmpfile()) {}
  bool ok() const { return file_ != nullptr && !failed_; }
  void Put(json j, std::string_view type) {
    j["type"] = type;
    const std::string line = j.dump(-1, ' ', false, json::error_handler_t::replace) + "\n";
    if (std::fwrite(line.data(), 1, line.size(), file_.get()) != line.size()) failed_ = true;
    ++counts_[std::string(internal::CountName(type))];
  }
  const std::map<std::string, int64_t>& counts() const { return counts_; }
  Status CopyTo(std::ostream& out) {
    std::rewind(file_.get());
    std::array<char, 1 << 16> buffer{};
    size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), file_.get())) > 0) {
      out.write(buffer.data(), static_cast<std::streamsize>(n));
      if (!out) return Unavailable("cannot write the export: the output stream failed");
    }
    if (std::ferror(file_.get()) != 0)
      return Unavailable("cannot read the export's temporary file");
    return Status::Ok();
  }

 private:
  std::unique_ptr<std::FILE, FileCloser> file_;
  bool failed_ = false;
  std::map<std::string, int64_t> counts_;
};

}  // namespace

Status Admin::ExportJsonl(const Principal& who, std::ostream& out, const ExportOptions& options) {
  MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
  const storage::ReadScope scope = ReadScopeFor(who, options_->acl_enabled);
  const bool all = scope.all;
  const std::string& me = scope.principal;
  auto mine = [&](const std::string& owner) { return all || owner == me; };
  Sink sink;
  if (!sink.ok()) return Unavailable("cannot create a temporary file for the export");

  MNEMO_RETURN_IF_ERROR(stores_.entries->ForEach(scope, "", [&](const Entry& e) -> Status {
    sink.Put(EntryToJson(e), "entry");
    return Status::Ok();
  }));
  if (options.with_vectors) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<std::string> signatures,
                           stores_.entries->VectorSignatures());
    storage::EntryFilter filter{.include_archived = true, .scope = scope};
    for (const std::string& signature : signatures) {
      if (!embed::IsExternalSignature(signature)) continue;
      std::vector<storage::LabeledVector> page;
      auto flush = [&]() -> Status {
        std::vector<storage::Label> labels;
        labels.reserve(page.size());
        for (const storage::LabeledVector& v : page) labels.push_back(v.label);
        MNEMO_ASSIGN_OR_RETURN(std::vector<storage::KeywordHit> hits,
                               stores_.entries->FetchByLabels(labels, filter, {}));
        std::map<storage::Label, const Entry*> by_label;
        for (const storage::KeywordHit& h : hits) by_label[h.label] = &h.entry;
        for (const storage::LabeledVector& v : page) {
          auto it = by_label.find(v.label);
          if (it == by_label.end()) continue;  // not readable by `who`
          sink.Put({{"entry_id", it->second->id}, {"signature", signature}, {"vector", v.vector}},
                   "vector");
        }
        page.clear();
        return Status::Ok();
      };
      MNEMO_RETURN_IF_ERROR(
          stores_.entries->ForEachVector(signature, [&](const storage::LabeledVector& v) -> Status {
            page.push_back(v);
            return page.size() >= static_cast<size_t>(kPage) ? flush() : Status::Ok();
          }));
      MNEMO_RETURN_IF_ERROR(flush());
    }
  }
  for (int64_t after = 0;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> page,
                           stores_.episodic->TurnsAfter(after, kPage));
    if (page.empty()) break;
    after = page.back().id;
    for (const storage::TurnRow& r : page) {
      if (mine(r.owner)) sink.Put(internal::TurnToJson(r), "turn");
    }
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> segments,
                         stores_.episodic->Segments(all, me, std::nullopt));
  for (const storage::SegmentRow& r : segments) sink.Put(internal::SegmentToJson(r), "segment");
  segments.clear();
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::EventHit> events,
                         stores_.episodic->SearchEvents({.all = all, .owner = me, .limit = kAll}));
  for (const storage::EventHit& h : events) sink.Put(internal::EventToJson(h.row), "event");
  events.clear();
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::FacetRow> facets, stores_.episodic->Facets(all, me));
  for (const storage::FacetRow& r : facets) sink.Put(internal::FacetToJson(r), "facet");
  const std::optional<std::string> owner = all ? std::nullopt : std::optional<std::string>(me);
  for (int64_t offset = 0;; offset += kPage) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::DocumentRow> page,
                           stores_.documents->ListDocuments(owner, std::nullopt, kPage, offset));
    if (page.empty()) break;
    for (const storage::DocumentRow& r : page) sink.Put(internal::DocumentToJson(r), "document");
  }
  for (int64_t after = 0;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::ContextEventRow> page,
                           stores_.context_events->ContextEventsAfter(after, kPage));
    if (page.empty()) break;
    after = page.back().id;
    for (const storage::ContextEventRow& r : page) {
      if (mine(r.owner)) sink.Put(internal::ContextEventRowToJson(r), "context_event");
    }
  }
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::TripleRow> triples,
      stores_.graph->QueryTriples({.owner = owner, .include_history = true, .limit = kAll}));
  for (const storage::TripleRow& r : triples) sink.Put(internal::TripleToJson(r), "triple");
  if (!sink.ok()) return Unavailable("cannot write the export's temporary file (disk full?)");

  json counts = json::object();
  for (const std::string_view name : internal::kCountNames) {
    auto it = sink.counts().find(std::string(name));
    counts[std::string(name)] = it == sink.counts().end() ? 0 : it->second;
  }
  const json header{{internal::kExportMarker, internal::kExportVersion},
                    {"mnemo_version", MNEMO_VERSION},
                    {"created_at", internal::FormatRfc3339(clock_->NowMs())},
                    {"backend", std::string(stores_.name)},
                    {"principal", who.name},
                    {"scope", all ? "all" : "own"},
                    {"with_vectors", options.with_vectors},
                    {"counts", counts}};
  out << header.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  MNEMO_RETURN_IF_ERROR(sink.CopyTo(out));
  out.flush();
  if (!out) return Unavailable("cannot write the export: the output stream failed");
  return Status::Ok();
}

}  // namespace mnemo
