// Import of memory kept by another tool (`mnemo import --from`,
// docs/storage.md "Imports from other tools"). The files are read and parsed
// (foreign_formats.h), every record is checked as its own write would check
// it, and what may not be imported is left out and reported by file and line;
// then the rest is written by one AdminStore::Restore, the path of a backup's
// restore: one transaction, nothing written on an error. Keys and ids are
// derived from the input and entries that are stored as they are already
// are not written again, so a second run writes nothing.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <system_error>
#include <tuple>

#include "base/sha256.h"
#include "context/documents.h"
#include "core/access.h"
#include "core/admin_service.h"
#include "core/foreign_formats.h"
#include "core/validation.h"
#include "storage/graph_rules.h"
#include "text/strip.h"

namespace mnemo {
namespace {

namespace fs = std::filesystem;
using internal::ForeignFile;
using internal::ForeignFormat;
using internal::ForeignRecords;

// Imported facts weigh like facts stated through memory.graph_upsert.
constexpr double kImportedConfidence = 0.9;

// A UUID-shaped id (version 8: derived) of `seed`, the same on every run.
std::string DerivedId(std::string_view seed) {
  std::string hex = internal::Sha256Hex(seed).substr(0, 32);
  hex[12] = '8';
  hex[16] = "89ab"[hex[16] % 4];
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20, 12);
}

bool Wanted(ForeignFormat format, const fs::path& p) {
  const std::string ext = p.extension().string();
  if (internal::ReadsNotes(format)) return ext == ".md" || ext == ".markdown";
  return ext == ".jsonl" || ext == ".json";
}

Result<std::string> ReadWhole(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) {
    std::error_code ec(errno, std::generic_category());
    return Unavailable("cannot read " + p.string() + ": " + ec.message());
  }
  return text.str();
}

// The file `path`, or the files of the format in the folder `path` (hidden
// folders such as .git or .obsidian left out), in path order.
Result<std::vector<ForeignFile>> ReadFiles(const std::string& path, ForeignFormat format) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    return NotFound("cannot read " + path + ": no such file or folder");
  }
  std::vector<ForeignFile> files;
  if (!fs::is_directory(st)) {
    MNEMO_ASSIGN_OR_RETURN(std::string text, ReadWhole(path));
    files.push_back({.name = path, .text = std::move(text)});
    return files;
  }
  std::vector<std::string> relative;
  fs::recursive_directory_iterator it(path, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.starts_with('.')) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && Wanted(format, it->path())) {
      relative.push_back(fs::relative(it->path(), path).generic_string());
    }
  }
  if (ec) return Unavailable("cannot read the folder " + path + ": " + ec.message());
  if (relative.empty()) {
    return InvalidArgument(path + " holds no " +
                           (internal::ReadsNotes(format) ? std::string(".md files")
                                                         : std::string(".jsonl or .json files")) +
                           " to import as " + std::string(internal::ForeignFormatName(format)));
  }
  std::sort(relative.begin(), relative.end());
  for (std::string& r : relative) {
    MNEMO_ASSIGN_OR_RETURN(std::string text, ReadWhole(fs::path(path) / r));
    files.push_back(
        {.name = (fs::path(path) / r).generic_string(), .relative = r, .text = std::move(text)});
  }
  return files;
}

ForeignRecords Parse(ForeignFormat format, const ForeignFile& file, int64_t max_line_bytes) {
  switch (format) {
    case ForeignFormat::kMcpMemory: return internal::ParseMcpMemory(file, max_line_bytes);
    case ForeignFormat::kMem0: return internal::ParseMem0(file, max_line_bytes);
    case ForeignFormat::kBasicMemory: return internal::ParseBasicMemoryNote(file);
    case ForeignFormat::kMarkdown: return internal::ParseMarkdownNote(file);
    case ForeignFormat::kJsonl: return internal::ParseJsonlEntries(file, max_line_bytes);
  }
  return {};
}

std::string DefaultNamespace(ForeignFormat format) {
  return format == ForeignFormat::kJsonl ? "global" : std::string(ForeignFormatName(format));
}

// What one import gathers before it writes: the rows, checked as their own
// writes would check them, and what was left out.
class Plan {
 public:
  struct Context {
    const Principal& who;
    bool admin = false;
    std::string ns;      // of entries that name none
    std::string source;  // of triples
    std::string_view secrets;
    TimeMs now = 0;
  };
  explicit Plan(Context context) : c_(std::move(context)) {}

  void Skip(const std::string& file, int64_t line, std::string reason) {
    if (report.skipped.size() < ForeignImportReport::kMaxReported) {
      report.skipped.push_back({.file = file, .line = line, .reason = std::move(reason)});
    }
    ++report.skipped_count;
  }

  void Add(const std::string& file, ForeignRecords records) {
    for (internal::ForeignSkip& s : records.skipped) Skip(file, s.line, std::move(s.reason));
    for (internal::ForeignEntry& e : records.entries) AddEntry(file, e);
    for (internal::ForeignDocument& d : records.documents) AddDocument(file, d);
    for (internal::ForeignTriple& t : records.triples) AddTriple(file, t);
  }

  ForeignImportReport report;
  storage::RestoreBatch batch;

 private:
  Status CheckEntry(const internal::ForeignEntry& e, const std::string& owner,
                    const std::string& ns) const {
    if (!c_.admin && owner != c_.who.name) {
      return PermissionDenied("it belongs to \"" + owner +
                              "\": under ACL only an admin imports another principal's memories");
    }
    if (!IsOwnerName(owner)) {
      return InvalidArgument("the owner must be a principal name of at most 128 bytes");
    }
    if (storage::IsSystemNamespace(ns)) {
      return InvalidArgument("namespace " + ns + " is the engine's own");
    }
    MNEMO_RETURN_IF_ERROR(ValidateKey(e.key, "key"));
    MNEMO_RETURN_IF_ERROR(ValidateNamespace(ns, "namespace"));
    MNEMO_RETURN_IF_ERROR(ValidateContent(e.content, "content"));
    MNEMO_RETURN_IF_ERROR(ValidateCategory(e.category, "category"));
    MNEMO_RETURN_IF_ERROR(ValidateTags(e.tags, "tags"));
    return CheckSecret(c_.secrets, e.content, "content");
  }

  void AddEntry(const std::string& file, internal::ForeignEntry& e) {
    const std::string owner = e.owner.empty() ? c_.who.name : e.owner;
    const std::string ns = e.ns.empty() ? c_.ns : e.ns;
    if (Status st = CheckEntry(e, owner, ns); !st.ok()) {
      Skip(file, e.line, st.message());
      return;
    }
    auto [at, fresh] = entry_at_.try_emplace(
        {owner, ns, e.key}, file + ":" + std::to_string(e.line), batch.entries.size());
    if (!fresh) {
      // The same record twice is one; two different ones under one key
      // cannot both be kept.
      if (batch.entries[at->second.second].content != e.content) {
        Skip(file, e.line,
             "key \"" + e.key + "\" again (first at " + at->second.first + "): the first is kept");
      }
      return;
    }
    storage::EntryWrite w{.owner = owner,
                          .ns = ns,
                          .key = std::move(e.key),
                          .content = std::move(e.content),
                          .category = std::move(e.category),
                          .tags = std::move(e.tags),
                          .visibility = e.visibility,
                          .now = e.updated_at != 0 ? e.updated_at : c_.now};
    if (e.created_at != 0) w.created_at = e.created_at;
    batch.entries.push_back(std::move(w));
  }

  void AddDocument(const std::string& file, internal::ForeignDocument& d) {
    Status st = ValidateContent(d.content, "content");
    if (st.ok() && d.source.size() > kMaxSourceBytes) {
      st = InvalidArgument("the source " + d.source + " is longer than " +
                           std::to_string(kMaxSourceBytes) + " bytes");
    }
    if (st.ok()) st = CheckSecret(c_.secrets, d.content, "content");
    if (!st.ok()) {
      Skip(file, d.line, st.message());
      return;
    }
    std::string id = DerivedId("document\n" + c_.who.name + "\n" + d.content);
    if (!ids_.insert(id).second) return;
    batch.documents.push_back({.id = std::move(id),
                               .owner = c_.who.name,
                               .source = std::move(d.source),
                               .meta = std::move(d.meta),
                               .content = d.content,
                               .search_text = std::move(d.content),
                               .created_at = c_.now,
                               .updated_at = c_.now});
  }

  void AddTriple(const std::string& file, const internal::ForeignTriple& t) {
    storage::TripleRow row{.owner = c_.who.name,
                           .subject = text::CollapseToLine(t.subject),
                           .predicate = storage::internal::NormalizePredicate(t.predicate),
                           .object = text::CollapseToLine(t.object),
                           .confidence = kImportedConfidence,
                           .source = c_.source,
                           .valid_from = c_.now,
                           .created_at = c_.now};
    Status st = ValidateGraphTerm(row.subject, "subject");
    if (st.ok()) st = ValidateGraphTerm(row.predicate, "predicate");
    if (st.ok()) st = ValidateGraphTerm(row.object, "object");
    if (st.ok()) st = CheckSecret(c_.secrets, row.subject, "subject");
    if (st.ok()) st = CheckSecret(c_.secrets, row.object, "object");
    if (!st.ok()) {
      Skip(file, t.line, st.message());
      return;
    }
    row.id =
        DerivedId("triple\n" + row.owner + "\n" + storage::internal::TripleTermKey(row.subject) +
                  "\n" + row.predicate + "\n" + storage::internal::TripleTermKey(row.object));
    if (!ids_.insert(row.id).second) return;
    batch.triples.push_back(std::move(row));
  }

  const Context c_;
  // (owner, namespace, key) of each entry -> ("file:line", its index).
  std::map<std::tuple<std::string, std::string, std::string>, std::pair<std::string, size_t>>
      entry_at_;
  std::set<std::string> ids_;  // of documents and triples
};

}  // namespace

Result<ForeignImportReport> AdminService::ImportForeign(const Principal& who,
                                                        const std::string& path,
                                                        const ForeignImportOptions& options) {
  MNEMO_ASSIGN_OR_RETURN(const ForeignFormat format, internal::ParseForeignFormat(options.format));
  if (!options.ns.empty()) MNEMO_RETURN_IF_ERROR(ValidateNamespace(options.ns, "namespace"));
  MNEMO_ASSIGN_OR_RETURN(std::vector<ForeignFile> files, ReadFiles(path, format));
  const std::string name(internal::ForeignFormatName(format));
  Plan plan({.who = who,
             .admin = IsAdmin(who, options_.acl_enabled),
             .ns = options.ns.empty() ? DefaultNamespace(format) : options.ns,
             .source = "import:" + name,
             .secrets = options_.secrets,
             .now = clock_->NowMs()});
  plan.report.format = name;
  plan.report.files = static_cast<int64_t>(files.size());
  plan.report.dry_run = options.dry_run;
  for (const ForeignFile& file : files) {
    plan.Add(file.name, Parse(format, file, options_.max_body_bytes));
  }
  std::stable_sort(plan.report.skipped.begin(), plan.report.skipped.end(),
                   [](const auto& a, const auto& b) {
                     return std::tie(a.file, a.line) < std::tie(b.file, b.line);
                   });
  return WriteForeign(std::move(plan.batch), std::move(plan.report));
}

Result<ForeignImportReport> AdminService::WriteForeign(storage::RestoreBatch batch,
                                                       ForeignImportReport report) {
  // Entries stored as they are already are not written again: a second run
  // leaves their times alone.
  std::vector<storage::EntryWrite> writes;
  for (storage::EntryWrite& w : batch.entries) {
    MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> stored,
                           stores_.entries->FindExact(w.owner, w.ns, w.key));
    if (!stored) {
      ++report.entries_created;
    } else if (stored->content == w.content && stored->category == w.category &&
               stored->tags == w.tags.value_or(std::vector<std::string>{}) &&
               (!w.visibility || *w.visibility == stored->visibility)) {
      ++report.entries_unchanged;
      continue;
    } else {
      ++report.entries_updated;
    }
    writes.push_back(std::move(w));
  }
  batch.entries = std::move(writes);
  if (report.dry_run) {
    for (const storage::DocumentRow& d : batch.documents) {
      MNEMO_ASSIGN_OR_RETURN(std::optional<storage::DocumentRow> stored,
                             stores_.documents->GetDocument(d.id, /*count_access=*/false));
      ++(stored ? report.documents_unchanged : report.documents_created);
    }
    for (const storage::TripleRow& t : batch.triples) {
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TripleRow> stored,
                             stores_.graph->QueryTriples({.subject = t.subject,
                                                          .predicate = t.predicate,
                                                          .object = t.object,
                                                          .owner = t.owner,
                                                          .limit = 1}));
      ++(stored.empty() ? report.triples_created : report.triples_unchanged);
    }
    return report;
  }
  for (storage::DocumentRow& d : batch.documents) {
    MNEMO_ASSIGN_OR_RETURN(context::DocumentFields fields,
                           context::DeriveFields(*stores_.documents, d.search_text));
    d.summary = std::move(fields.summary);
    d.tags = std::move(fields.tags);
    d.entities = std::move(fields.entities);
  }
  MNEMO_ASSIGN_OR_RETURN(storage::RestoreReport restored, stores_.admin->Restore(batch));
  // Another writer may have stored an entry between the look above and the
  // transaction: the store's count is the one that holds.
  const int64_t written = report.entries_created + report.entries_updated;
  report.entries_created = restored.entries_created;
  report.entries_updated = written - restored.entries_created;
  report.documents_created =
      static_cast<int64_t>(batch.documents.size()) - restored.documents_skipped;
  report.documents_unchanged = restored.documents_skipped;
  report.triples_created = static_cast<int64_t>(batch.triples.size()) - restored.triples_skipped;
  report.triples_unchanged = restored.triples_skipped;
  // Vectors for what changed; an embedder failure leaves them pending.
  MNEMO_ASSIGN_OR_RETURN(ReindexReport filled, vectors_.FillMissing({}));
  (void)filled;
  return report;
}

}  // namespace mnemo
