// `mnemo export [--with-vectors] [FILE]`, `mnemo import [--merge] FILE`
// (JSONL, spec 10; format version 2 in docs/storage.md) and
// `mnemo import --from FORMAT PATH` (other tools' memory, "Imports from other
// tools" there).
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "commands.h"

namespace mnemo::app {
namespace {

int Export(const GlobalOptions& g, const std::string& file, const ExportOptions& options) {
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  if (file.empty())
    return Fail(session->engine->admin().ExportJsonl(session->principal, std::cout, options));
  const std::string tmp = file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Fail(InvalidArgument("cannot write " + file));
    Status s = session->engine->admin().ExportJsonl(session->principal, out, options);
    out.flush();
    if (s.ok() && !out) s = Unavailable("writing " + file + " failed");
    if (!s.ok()) {
      std::remove(tmp.c_str());
      return Fail(s);
    }
  }
  if (std::rename(tmp.c_str(), file.c_str()) != 0) {
    std::remove(tmp.c_str());
    return Fail(InvalidArgument("cannot write " + file));
  }
  return kExitOk;
}

int Import(const GlobalOptions& g, const std::string& file, const ImportOptions& options) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Fail(InvalidArgument("cannot read " + file + ": no such readable file"));
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  ProgressFn progress = TerminalProgress("importing");
  Result<ImportReport> report =
      session->engine->admin().ImportJsonl(session->principal, in, progress, options);
  if (progress) std::cerr << "\n";
  if (!report.ok()) {
    // Bad lines are named by number: the file they are in comes first.
    const Status& s = report.status();
    return Fail(Status(s.code(), file + ": " + s.message(), s.field()));
  }
  if (g.json) {
    nlohmann::json out{
        {"imported", report->imported}, {"created", report->created}, {"version", report->version}};
    if (report->version >= 2) {
      out["records"] = report->records;
      out["skipped"] = report->skipped;
    }
    std::cout << out.dump() << "\n";
  } else if (report->version < 2) {
    std::cout << "Imported " << report->imported << " entries (" << report->created << " new) from "
              << file << "\n";
  } else {
    std::cout << "Imported " << report->imported << " records from " << file << ":";
    for (const auto& [name, n] : report->records) std::cout << " " << n << " " << name;
    std::cout << " (" << report->created << " new entries, " << report->skipped
              << " records already stored)\n";
  }
  return kExitOk;
}

void PrintForeignReport(const ForeignImportReport& r, const std::string& path) {
  std::cout << (r.dry_run ? "Would import" : "Imported") << " from " << path << " as " << r.format
            << " (" << r.files << (r.files == 1 ? " file" : " files") << "):\n"
            << "  entries:   " << r.entries_created << " new, " << r.entries_updated << " updated, "
            << r.entries_unchanged << " unchanged\n"
            << "  documents: " << r.documents_created << " new, " << r.documents_unchanged
            << " already stored\n"
            << "  triples:   " << r.triples_created << " new, " << r.triples_unchanged
            << " already stored\n"
            << "  skipped:   " << r.skipped_count << "\n";
  for (const ForeignImportReport::Skip& s : r.skipped) {
    std::cout << "    " << s.file << (s.line > 0 ? ":" + std::to_string(s.line) : "") << ": "
              << s.reason << "\n";
  }
  if (r.skipped_count > static_cast<int64_t>(r.skipped.size())) {
    std::cout << "    (" << r.skipped_count - static_cast<int64_t>(r.skipped.size()) << " more)\n";
  }
  if (r.dry_run) std::cout << "Dry run: nothing was written.\n";
}

int ImportForeign(const GlobalOptions& g, const std::string& path,
                  const ForeignImportOptions& options) {
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  Result<ForeignImportReport> r =
      session->engine->admin().ImportForeign(session->principal, path, options);
  if (!r.ok()) return Fail(r.status());
  if (!g.json) {
    PrintForeignReport(*r, path);
    return kExitOk;
  }
  nlohmann::json skipped = nlohmann::json::array();
  for (const ForeignImportReport::Skip& s : r->skipped) {
    skipped.push_back({{"file", s.file}, {"line", s.line}, {"reason", s.reason}});
  }
  std::cout << nlohmann::json{{"format", r->format},
                              {"files", r->files},
                              {"dry_run", r->dry_run},
                              {"entries",
                               {{"created", r->entries_created},
                                {"updated", r->entries_updated},
                                {"unchanged", r->entries_unchanged}}},
                              {"documents",
                               {{"created", r->documents_created},
                                {"unchanged", r->documents_unchanged}}},
                              {"triples",
                               {{"created", r->triples_created},
                                {"unchanged", r->triples_unchanged}}},
                              {"skipped", skipped},
                              {"skipped_count", r->skipped_count}}
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
            << "\n";
  return kExitOk;
}

int Reindex(const GlobalOptions& g) {
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  ProgressFn progress = TerminalProgress("embedding");
  Result<ReindexReport> r = session->engine->admin().Reindex(session->principal, progress);
  if (progress) std::cerr << "\n";
  if (!r.ok()) return Fail(r.status());
  if (g.json) {
    std::cout << nlohmann::json{{"signature", r->signature},
                                {"embedded", r->embedded},
                                {"failed", r->failed},
                                {"indexed", r->indexed},
                                {"turns_reindexed", r->turns_reindexed},
                                {"documents_reindexed", r->documents_reindexed},
                                {"triples_derived", r->triples_derived},
                                {"cleaner_failures", r->cleaner_failures}}
                     .dump()
              << "\n";
  } else if (r->signature.empty()) {
    std::cout << "No embedder configured ([embedding] provider = \"none\"): nothing to embed\n";
  } else {
    std::cout << "Reindexed " << r->signature << ": " << r->embedded << " embedded, " << r->failed
              << " still pending, " << r->indexed << " vectors in the index\n";
  }
  if (!g.json) {
    std::cout << "Rebuilt from stored text: " << r->turns_reindexed << " turn rows, "
              << r->documents_reindexed << " documents, " << r->triples_derived
              << " graph triples kept";
    if (r->cleaner_failures > 0) {
      std::cout << " (" << r->cleaner_failures << " tool outputs indexed raw: cleaner failed)";
    }
    std::cout << "\n";
  }
  if (r->failed > 0) {
    std::cerr << "mnemo: " << r->failed
              << " entries still have no vector: the embedder did not answer (see above)\n";
    return kExitUser;
  }
  return kExitOk;
}

}  // namespace

void AddDataCommands(CLI::App& app, GlobalOptions& g, Action& action) {
  auto file = std::make_shared<std::string>();
  auto export_options = std::make_shared<ExportOptions>();
  auto import_options = std::make_shared<ImportOptions>();
  CLI::App* exp = app.add_subcommand(
      "export",
      "Write the whole workspace as JSONL, format version 2 (stdout without FILE): entries, "
      "rules, tool statistics and registry, turns, segments, events, profile, documents, context "
      "events, graph");
  exp->add_option("file", *file, "Output file");
  exp->add_flag("--with-vectors", export_options->with_vectors,
                "Also write bring-your-own vectors (embedder vectors are recomputed on import)");
  exp->callback([&g, &action, file, export_options] {
    action = [&g, file, export_options] { return Export(g, *file, *export_options); };
  });

  auto foreign = std::make_shared<ForeignImportOptions>();
  CLI::App* imp = app.add_subcommand(
      "import",
      "Load an export (version 2) or a JSONL file of entries (version 1): all or none; with "
      "--from, memory kept by another tool");
  imp->add_option("file", *file, "JSONL file; with --from the file or folder to read")->required();
  imp->add_flag("--merge", import_options->merge,
                "Version 2: add to a workspace that is not empty (stored records are kept)");
  imp->add_option("--from", foreign->format,
                  "Read another tool's memory: mcp-memory (memory.jsonl), mem0 (an export), "
                  "basic-memory (a folder of notes), markdown (notes), jsonl ({key, content} "
                  "lines); bad records are skipped and reported, a second run adds nothing");
  imp->add_option("--namespace", foreign->ns,
                  "With --from: the entries' namespace (default: the format's name; global "
                  "for jsonl)");
  imp->add_flag("--dry-run", foreign->dry_run, "With --from: read, check and count, write nothing");
  imp->callback([&g, &action, file, import_options, foreign, imp] {
    const bool from = imp->count("--from") > 0;
    if (!from && (foreign->dry_run || !foreign->ns.empty())) {
      action = [] {
        return Fail(InvalidArgument(
            "--dry-run and --namespace need --from FORMAT (mcp-memory, mem0, basic-memory, "
            "markdown or jsonl)"));
      };
      return;
    }
    if (from) {
      action = [&g, file, foreign] { return ImportForeign(g, *file, *foreign); };
      return;
    }
    action = [&g, file, import_options] { return Import(g, *file, *import_options); };
  });

  CLI::App* hygiene = app.add_subcommand("hygiene", "Archive and delete old memories (spec 10)");
  hygiene->require_subcommand(1);
  hygiene
      ->add_subcommand("run",
                       "Run hygiene now: archive daily and custom memories past "
                       "memory.archive_after_days, delete conversation memories past "
                       "memory.conversation_retention_days")
      ->callback([&g, &action] {
        action = [&g] { return RunMethod(g, "memory.hygiene_run", nlohmann::json::object()); };
      });

  app.add_subcommand("reindex",
                     "Embed entries missing a vector, rebuild the vector index, and rebuild what "
                     "is derived from text (turn search text, document fields) with the current "
                     "tool registry")
      ->callback([&g, &action] { action = [&g] { return Reindex(g); }; });
}

}  // namespace mnemo::app
