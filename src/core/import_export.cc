// JSONL export and all-or-nothing import (spec 10 CLI).

#include <istream>
#include <ostream>

#include "base/json_limits.h"
#include "core/engine_impl.h"
#include "core/entry_json.h"
#include "core/validation.h"

namespace mnemo {
namespace {

constexpr size_t kMaxReportedErrors = 100;

}  // namespace

Status Engine::Impl::ExportJsonl(const Principal& who, std::ostream& out) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  Status st = backend->ForEach(ScopeFor(who), "", [&](const Entry& e) -> Status {
    out << EntryToJson(e).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    if (!out) return Unavailable("cannot write the export: the output stream failed");
    return Status::Ok();
  });
  MNEMO_RETURN_IF_ERROR(st);
  out.flush();
  if (!out) return Unavailable("cannot write the export: the output stream failed");
  return Status::Ok();
}

Result<ImportReport> Engine::Impl::ImportJsonl(const Principal& who, std::istream& in,
                                               const ProgressFn& progress) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  std::vector<storage::EntryWrite> writes;
  // Bring-your-own vectors on import lines: (index into writes, vector).
  std::vector<std::pair<size_t, std::vector<float>>> external;
  std::vector<std::string> errors;
  size_t error_count = 0;
  std::string line;
  int64_t line_no = 0;
  const TimeMs now = clock->NowMs();
  auto fail = [&](const std::string& msg) {
    if (errors.size() < kMaxReportedErrors) {
      errors.push_back("line " + std::to_string(line_no) + ": " + msg);
    }
    ++error_count;
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (Status s = internal::CheckJsonLimits(line, "the line", config.server.max_body_bytes);
        !s.ok()) {
      fail(s.message());
      continue;
    }
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      fail("not valid JSON (truncated or malformed line)");
      continue;
    }
    Result<Entry> e = EntryFromImportJson(j, who.name);
    if (!e.ok()) {
      fail(e.status().message());
      continue;
    }
    if (Status s = CheckSecret(config, e->content, "content"); !s.ok()) {
      fail(s.message());
      continue;
    }
    if (auto emb = j.find("embedding"); emb != j.end() && !emb->is_null()) {
      std::vector<float> v;
      bool numbers = emb->is_array();
      for (const nlohmann::json& x : numbers ? *emb : nlohmann::json::array()) {
        numbers = numbers && x.is_number();
        if (numbers) v.push_back(x.get<float>());
      }
      Status ok =
          numbers ? ValidateEmbedding(v) : InvalidArgument("embedding must be an array of numbers");
      if (!ok.ok()) {
        fail(ok.message());
        continue;
      }
      external.emplace_back(writes.size(), std::move(v));
    }
    // Under ACL a user imports only into their own entries.
    if (!IsAdmin(who)) e->owner = who.name;
    storage::EntryWrite w;
    w.owner = e->owner;
    w.ns = e->ns;
    w.key = e->key;
    w.content = e->content;
    w.category = e->category;
    w.tags = e->tags;
    w.visibility = e->visibility;
    w.now = e->updated_at != 0 ? e->updated_at : now;
    if (!e->id.empty()) w.id = e->id;
    if (e->created_at != 0) w.created_at = e->created_at;
    w.access_count = e->access_count;
    w.useful_count = e->useful_count;
    w.archived = e->archived;
    writes.push_back(std::move(w));
    if (progress && line_no % 4096 == 0) progress(line_no, 0);
  }
  if (in.bad()) return Unavailable("cannot read the import input");
  if (error_count > 0) {
    std::string msg = "import refused, nothing was imported: " + std::to_string(error_count) +
                      " bad line" + (error_count == 1 ? "" : "s");
    for (const std::string& e : errors) msg += "\n" + e;
    if (error_count > errors.size()) {
      msg += "\n(" + std::to_string(error_count - errors.size()) + " more)";
    }
    return InvalidArgument(msg);
  }
  ImportReport report;
  std::vector<storage::Label> labels;
  MNEMO_ASSIGN_OR_RETURN(report.created, backend->UpsertBatch(writes, &labels));
  report.imported = static_cast<int64_t>(writes.size());
  writes.clear();
  if (progress) progress(line_no, line_no);
  MNEMO_RETURN_IF_ERROR(StoreExternalVectors(labels, external));
  // Vectors for what changed; an embedder failure leaves them pending.
  MNEMO_ASSIGN_OR_RETURN(ReindexReport vectors, FillMissingVectors({}));
  (void)vectors;
  return report;
}

}  // namespace mnemo
