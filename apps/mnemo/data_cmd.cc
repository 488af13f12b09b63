// `mnemo export [--with-vectors] [FILE]` and `mnemo import [--merge] FILE`
// (JSONL, spec 10; format version 2 in docs/storage.md).
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
    return Fail(session->engine->ExportJsonl(session->principal, std::cout, options));
  const std::string tmp = file + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Fail(InvalidArgument("cannot write " + file));
    Status s = session->engine->ExportJsonl(session->principal, out, options);
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
      session->engine->ImportJsonl(session->principal, in, progress, options);
  if (progress) std::cerr << "\n";
  if (!report.ok()) return Fail(report.status());
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

int Reindex(const GlobalOptions& g) {
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  ProgressFn progress = TerminalProgress("embedding");
  Result<ReindexReport> r = session->engine->Reindex(session->principal, progress);
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
              << r->documents_reindexed << " documents, " << r->triples_derived << " graph triples";
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

  CLI::App* imp = app.add_subcommand(
      "import", "Load an export (version 2) or a JSONL file of entries (version 1): all or none");
  imp->add_option("file", *file, "JSONL file")->required();
  imp->add_flag("--merge", import_options->merge,
                "Version 2: add to a workspace that is not empty (stored records are kept)");
  imp->callback([&g, &action, file, import_options] {
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
