// Import of memory kept by another tool (`mnemo import --from`,
// docs/storage.md "Imports from other tools"). The files are read and parsed
// (foreign_formats.h), every record is checked as its own write would check
// it, and what may not be imported is left out and reported by file and line;
// then the rest is written by one AdminStore::Restore, the path of a backup's
// restore: one transaction, nothing written on an error. Keys and ids are
// derived from the input and entries that are stored as they are already
// are not written again, so a second run writes nothing.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <system_error>
#include <tuple>

#include "base/sha256.h"
#include "context/documents.h"
#include "core/access.h"
#include "core/admin/admin_import_checks.h"
#include "core/admin/admin_options.h"
#include "core/formats/foreign_formats.h"
#include "core/validation.h"
#include "storage/rules/graph_rules.h"
#include "storage/values.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

namespace fs = std::filesystem;
using internal::ForeignFile;
using internal::ForeignFormat;
using internal::ForeignRecords;

// Imported facts weigh like facts stated through memory.graph_upsert.
constexpr double kImportedConfidence = 0.9;

bool Wanted(ForeignFormat format, const fs::path& p) {
  const std::string ext = p.extension().string();
  if (internal::ReadsNotes(format)) return ext == ".md" || ext == ".markdown";
  return ext == ".jsonl" || ext == ".json";
}

// A file name as reports show it: valid UTF-8, each byte that is not part of
// a well-formed sequence written as \xNN, so a report (and its JSON) can
// always be written and still names the file.
std::string ShownName(std::string_view name) {
  if (text::IsValidUtf8(name)) return std::string(name);
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (size_t i = 0; i < name.size();) {
    const auto lead = static_cast<unsigned char>(name[i]);
    const size_t len = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
    if (i + len <= name.size() && text::IsValidUtf8(name.substr(i, len))) {
      out.append(name.substr(i, len));
      i += len;
      continue;
    }
    out += "\\x";
    out += kHex[lead >> 4];
    out += kHex[lead & 0xF];
    ++i;
  }
  return out;
}

std::string KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISDIR(mode)) return "a folder";
  return "not a regular file";
}

// The largest file read: a note becomes one document of at most
// kMaxContentBytes; a JSON or JSONL file is parsed in memory.
int64_t MaxFileBytes(ForeignFormat format) {
  return internal::ReadsNotes(format) ? static_cast<int64_t>(kMaxContentBytes)
                                      : internal::kMaxForeignJsonFileBytes;
}

// A file's text, or why it is left out (`skip`). Opened without blocking
// and checked to be a regular file on the open descriptor, so a FIFO or a
// device is never read or waited on; without `follow`, a link in its place
// is not followed.
struct FileText {
  std::string text;
  std::string skip;
};

Result<FileText> ReadBounded(const fs::path& p, int64_t max_bytes, bool follow) {
  const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW);
  const int fd = ::open(p.c_str(), flags);
  auto cannot = [&p] {
    std::error_code ec(errno, std::generic_category());
    return Unavailable("cannot read " + ShownName(p.string()) + ": " + ec.message());
  };
  if (fd < 0) {
    if (errno == ELOOP) return FileText{.skip = "a symbolic link: not followed"};
    return cannot();
  }
  struct Closer {
    explicit Closer(int f) : fd(f) {}
    Closer(const Closer&) = delete;
    Closer& operator=(const Closer&) = delete;
    ~Closer() { ::close(fd); }
    int fd;
  };
  const Closer closer(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) return cannot();
  if (!S_ISREG(st.st_mode)) return FileText{.skip = KindOf(st.st_mode) + ": never read"};
  const std::string too_long =
      " bytes are read (a note becomes one document of at most 1 MiB; a JSON file is parsed "
      "whole)";
  if (st.st_size > max_bytes) {
    return FileText{.skip = "the file is " + std::to_string(st.st_size) +
                            " bytes long: files of at most " + std::to_string(max_bytes) +
                            too_long};
  }
  // Read up to one byte past the bound: a file that grew since fstat is
  // refused as well.
  FileText out;
  out.text.resize(static_cast<size_t>(max_bytes) + 1);
  size_t got = 0;
  while (got < out.text.size()) {
    const ssize_t n = ::read(fd, out.text.data() + got, out.text.size() - got);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return cannot();
    }
    got += static_cast<size_t>(n);
  }
  if (static_cast<int64_t>(got) > max_bytes) {
    return FileText{.skip = "the file is longer than " + std::to_string(max_bytes) +
                            " bytes: files of at most " + std::to_string(max_bytes) + too_long};
  }
  out.text.resize(got);
  out.text.shrink_to_fit();
  return out;
}

// Whether `key`, read as a path, has a ".." step (a permalink or a name
// that climbs out of its folder).
bool HasDotDot(std::string_view key) {
  size_t start = 0;
  while (start <= key.size()) {
    size_t end = key.find_first_of("/\\", start);
    if (end == std::string_view::npos) end = key.size();
    if (key.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

// Whether `p` is `root` or inside it, by whole components.
bool Within(const fs::path& p, const fs::path& root) {
  auto pi = p.begin();
  for (auto ri = root.begin(); ri != root.end(); ++ri, ++pi) {
    if (ri->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *ri) return false;
  }
  return true;
}

// One file of a folder to read: its path inside the folder, and how to
// open it (a link to a file inside the folder is opened at its target).
struct Listed {
  std::string relative;
  fs::path open_at;  // has no link in it
};

// The files of the format in the folder `root` (hidden folders such as
// .git or .obsidian left out), in path order, only their names held: a link
// is followed only to a file inside the folder, never to a folder; a FIFO,
// socket or device is never opened. What is left out goes to `skip`.
Result<std::vector<Listed>> ListFolder(
    const fs::path& root, ForeignFormat format,
    const std::function<void(const std::string&, std::string)>& skip) {
  std::error_code ec;
  const fs::path real_root = fs::canonical(root, ec);
  if (ec)
    return Unavailable("cannot read the folder " + ShownName(root.string()) + ": " + ec.message());
  std::vector<Listed> out;
  fs::recursive_directory_iterator it(root, ec);
  for (const fs::recursive_directory_iterator end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    if (p.filename().string().starts_with('.')) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      ec.clear();
      continue;
    }
    const fs::file_status link = it->symlink_status(ec);
    if (ec) break;
    const fs::path relative = p.lexically_relative(root);
    const std::string name = (root / relative).generic_string();
    if (std::any_of(relative.begin(), relative.end(),
                    [](const fs::path& c) { return c == ".."; })) {
      skip(name, "a path with \"..\": never read");
      continue;
    }
    if (fs::is_directory(link)) continue;
    if (fs::is_symlink(link)) {
      if (!Wanted(format, p)) continue;
      const fs::path target = fs::canonical(p, ec);
      if (ec) {
        ec.clear();
        skip(name, "a symbolic link to nothing that exists: not followed");
      } else if (!Within(target, real_root)) {
        skip(name, "a symbolic link that leads out of the folder: not followed");
      } else if (!fs::is_regular_file(fs::symlink_status(target, ec))) {
        ec.clear();
        skip(name, "a symbolic link to something that is not a file: not followed");
      } else {
        out.push_back({.relative = relative.generic_string(), .open_at = target});
      }
      continue;
    }
    if (!fs::is_regular_file(link)) {
      struct stat st {};
      skip(name, (::lstat(p.c_str(), &st) == 0 ? KindOf(st.st_mode) : std::string("not a file")) +
                     ": never read");
      continue;
    }
    if (Wanted(format, p)) out.push_back({.relative = relative.generic_string(), .open_at = p});
  }
  if (ec) {
    return Unavailable("cannot read the folder " + ShownName(root.string()) + ": " + ec.message());
  }
  std::sort(out.begin(), out.end(),
            [](const Listed& a, const Listed& b) { return a.relative < b.relative; });
  return out;
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
  Status CheckEntry(const internal::ForeignEntry& e, const PrincipalId& owner,
                    const std::string& ns) const {
    if (!c_.admin && owner.view() != c_.who.name) {
      return PermissionDenied("it belongs to \"" + owner.str() +
                              "\": under ACL only an admin imports another principal's memories");
    }
    if (storage::IsSystemNamespace(ns)) {
      return InvalidArgument("namespace " + ns + " is the engine's own");
    }
    MNEMO_RETURN_IF_ERROR(ValidateKey(e.key, "key"));
    if (HasDotDot(e.key)) {
      return InvalidArgument(
          "the key \"" + e.key + "\" holds a \"..\" step: keys of imported notes never do", "key");
    }
    MNEMO_RETURN_IF_ERROR(ValidateNamespace(ns, "namespace"));
    MNEMO_RETURN_IF_ERROR(ValidateContent(e.content, "content"));
    MNEMO_RETURN_IF_ERROR(ValidateCategory(e.category, "category"));
    MNEMO_RETURN_IF_ERROR(ValidateTags(e.tags, "tags"));
    return CheckSecret(c_.secrets, e.content, "content");
  }

  void AddEntry(const std::string& file, internal::ForeignEntry& e) {
    // A note that names no owner is the importer's.
    Result<PrincipalId> parsed =
        PrincipalId::Parse(e.owner.empty() ? c_.who.name : e.owner, "owner");
    const std::string ns = e.ns.empty() ? c_.ns : e.ns;
    if (Status st = parsed.ok() ? CheckEntry(e, *parsed, ns) : parsed.status(); !st.ok()) {
      Skip(file, e.line, st.message());
      return;
    }
    const std::string& owner = parsed->str();
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
    std::string id = internal::DerivedId("document\n" + c_.who.name + "\n" + d.content);
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
                           .subject = internal::ForeignEntityName(t.subject),
                           .predicate = storage::internal::NormalizePredicate(t.predicate),
                           .object = internal::ForeignEntityName(t.object),
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
    row.id = internal::DerivedId(
        "triple\n" + row.owner + "\n" + storage::internal::TripleTermKey(row.subject) + "\n" +
        row.predicate + "\n" + storage::internal::TripleTermKey(row.object));
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

Result<ForeignImportReport> Admin::ImportForeign(const Principal& who, const std::string& path,
                                                 const ForeignImportOptions& options) {
  MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
  MNEMO_ASSIGN_OR_RETURN(const ForeignFormat format, internal::ParseForeignFormat(options.format));
  if (!options.ns.empty()) MNEMO_RETURN_IF_ERROR(ValidateNamespace(options.ns, "namespace"));
  const std::string name(internal::ForeignFormatName(format));
  Plan plan({.who = who,
             .admin = IsAdmin(who, options_->acl_enabled),
             .ns = options.ns.empty() ? DefaultNamespace(format) : options.ns,
             .source = "import:" + name,
             .secrets = options_->secrets,
             .now = clock_->NowMs()});
  plan.report.format = name;
  plan.report.dry_run = options.dry_run;
  // One file at a time: read, parsed into the plan, let go.
  const int64_t max_bytes = MaxFileBytes(format);
  auto read = [&](const fs::path& at, bool follow, ForeignFile file) -> Status {
    MNEMO_ASSIGN_OR_RETURN(FileText text, ReadBounded(at, max_bytes, follow));
    if (!text.skip.empty()) {
      plan.Skip(file.name, 0, std::move(text.skip));
      return Status::Ok();
    }
    file.text = std::move(text.text);
    ++plan.report.files;
    plan.Add(file.name, Parse(format, file, options_->max_body_bytes));
    return Status::Ok();
  };
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) {
    return NotFound("cannot read " + ShownName(path) + ": no such file or folder");
  }
  if (!fs::is_directory(st)) {
    if (!fs::is_regular_file(st)) {
      struct stat raw {};
      return InvalidArgument(
          "cannot import " + ShownName(path) + ": it is " +
          (::stat(path.c_str(), &raw) == 0 ? KindOf(raw.st_mode) : std::string("not a file")) +
          ", not a file or a folder (it is never read)");
    }
    MNEMO_RETURN_IF_ERROR(read(path, /*follow=*/true, {.name = ShownName(path)}));
    if (plan.report.files == 0 && !plan.report.skipped.empty()) {
      return InvalidArgument("cannot import " + ShownName(path) + ": " +
                             plan.report.skipped.front().reason);
    }
  } else {
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<Listed> listed,
        ListFolder(path, format, [&](const std::string& file, std::string reason) {
          plan.Skip(ShownName(file), 0, std::move(reason));
        }));
    if (listed.empty() && plan.report.skipped_count == 0) {
      return InvalidArgument(ShownName(path) + " holds no " +
                             (internal::ReadsNotes(format) ? std::string(".md files")
                                                           : std::string(".jsonl or .json files")) +
                             " to import as " + name);
    }
    for (Listed& l : listed) {
      const std::string shown = ShownName((fs::path(path) / l.relative).generic_string());
      MNEMO_RETURN_IF_ERROR(
          read(l.open_at, /*follow=*/false, {.name = shown, .relative = ShownName(l.relative)}));
    }
  }
  std::stable_sort(plan.report.skipped.begin(), plan.report.skipped.end(),
                   [](const auto& a, const auto& b) {
                     return std::tie(a.file, a.line) < std::tie(b.file, b.line);
                   });
  return WriteForeign(std::move(plan.batch), std::move(plan.report));
}

Result<ForeignImportReport> Admin::WriteForeign(storage::RestoreBatch batch,
                                                ForeignImportReport report) {
  // Entries stored as they are already are not written again: a second run
  // leaves their times alone.
  std::vector<storage::EntryWrite> writes;
  for (storage::EntryWrite& w : batch.entries) {
    MNEMO_ASSIGN_OR_RETURN(const Namespace ns, Namespace::Parse(w.ns));
    MNEMO_ASSIGN_OR_RETURN(const Key key, Key::Parse(w.key));
    MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> stored,
                           stores_.entries->FindExact(w.owner, ns, key));
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
