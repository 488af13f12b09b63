// memory.context_build latency (spec 50, issue "Tool outputs in memory"):
// p50/p95 of ContextBuild per preset over a workspace holding N entries of
// the shared dataset and T conversation turns (with their segments, recaps,
// events and documents), through the public Engine on real SQLite.
//
//   context_bench --dataset DIR [--entries N] [--turns T] [--sessions S]
//                 [--queries Q] [--workspace W [--continue-from K]]
//
// With --workspace, a workspace built before (marked by a file
// `context_bench.ready`) is reused, so the slow ingest runs once;
// --continue-from K first adds turns K..T-1 to it (the turns an interrupted
// ingest did not reach: turn i is the same whichever run stores it). Prints
// one JSON line. Not a test: run by hand on an idle machine.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "mnemo/engine.h"

using mnemo::bench::Check;
using mnemo::bench::Clock;
using mnemo::bench::Field;
using mnemo::bench::MsSince;
using mnemo::bench::Percentile;

int main(int argc, char** argv) {
  int64_t entries = 100000;
  int64_t turns = 100000;
  int sessions = 200;
  int queries = 300;
  std::string dataset;
  std::string workspace;
  int64_t continue_from = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const std::string value = argv[i + 1];
    if (flag == "--entries") entries = std::atoll(value.c_str());
    if (flag == "--turns") turns = std::atoll(value.c_str());
    if (flag == "--sessions") sessions = std::atoi(value.c_str());
    if (flag == "--queries") queries = std::atoi(value.c_str());
    if (flag == "--dataset") dataset = value;
    if (flag == "--workspace") workspace = value;
    if (flag == "--continue-from") continue_from = std::atoll(value.c_str());
  }
  if (dataset.empty()) {
    std::fprintf(stderr, "context_bench: --dataset DIR is required\n");
    return 1;
  }
  std::vector<std::string> lines;
  std::vector<std::string> texts;
  {
    std::ifstream in(dataset + "/memories.jsonl");
    for (std::string line;
         std::getline(in, line) && static_cast<int64_t>(lines.size()) < entries;) {
      texts.push_back(Field(line, "content"));
      lines.push_back(std::move(line));
    }
  }
  std::vector<std::string> query_texts;
  {
    std::ifstream in(dataset + "/queries.jsonl");
    for (std::string line;
         std::getline(in, line) && static_cast<int>(query_texts.size()) < queries;) {
      query_texts.push_back(Field(line, "query"));
    }
  }
  if (texts.empty() || query_texts.empty()) {
    std::fprintf(stderr, "context_bench: %s has no memories or queries\n", dataset.c_str());
    return 1;
  }
  const bool temporary = workspace.empty();
  const std::filesystem::path ws = temporary
                                       ? std::filesystem::temp_directory_path() /
                                             ("mnemo-context-bench-" + std::to_string(getpid()))
                                       : std::filesystem::path(workspace);
  const bool reuse = !temporary && std::filesystem::exists(ws / "context_bench.ready");
  if (!reuse) std::filesystem::remove_all(ws);
  auto engine = mnemo::Engine::Open({.workspace = ws.string()});
  Check(engine.status(), "open");
  mnemo::Engine& e = **engine;
  const mnemo::Principal who;

  double ingest_s = 0;
  if (!reuse || continue_from >= 0) {
    const auto start = Clock::now();
    if (!reuse) {
      std::string all;
      for (const std::string& l : lines) all += l + "\n";
      std::istringstream in(all);
      Check(e.admin().ImportJsonl(who, in).status(), "import");
    }
    for (int64_t i = reuse ? continue_from : 0; i < turns; ++i) {
      const size_t a = static_cast<size_t>((2 * i) % static_cast<int64_t>(texts.size()));
      const size_t b = static_cast<size_t>((2 * i + 1) % static_cast<int64_t>(texts.size()));
      Check(e.archivist()
                .TurnComplete(who, {.session_id = "session-" + std::to_string(i % sessions),
                                    .user_message = texts[a],
                                    .assistant_response = texts[b]})
                .status(),
            "turn");
    }
    for (int s = 0; s < sessions; ++s) {
      Check(e.archivist()
                .SessionEnd(who, "session-" + std::to_string(s), /*sync=*/s + 1 == sessions)
                .status(),
            "session end");
    }
    ingest_s = MsSince(start) / 1000;
    std::ofstream(ws / "context_bench.ready")
        << "entries " << lines.size() << " turns " << turns << "\n";
  }

  std::string out = "{\"bench\":\"context_build\",\"entries\":" + std::to_string(lines.size()) +
                    ",\"turns\":" + std::to_string(turns) +
                    ",\"ingest_s\":" + std::to_string(ingest_s);
  for (const char* preset : {"minimal", "balanced", "extended", "maximum"}) {
    std::vector<double> ms;
    double chars = 0;
    for (size_t i = 0; i < query_texts.size() + 20; ++i) {
      mnemo::ContextBuildRequest req{
          .session_id = "session-" + std::to_string(i % static_cast<size_t>(sessions)),
          .query = query_texts[i % query_texts.size()],
          .preset = preset};
      auto t0 = Clock::now();
      auto block = e.context().Build(who, req);
      const double took = MsSince(t0);
      Check(block.status(), "context_build");
      if (i >= 20) {  // the first 20 warm the caches
        ms.push_back(took);
        chars += static_cast<double>(block->used_chars);
      }
    }
    char buf[200];
    std::snprintf(buf, sizeof(buf), ",\"%s_ms\":{\"p50\":%.3f,\"p95\":%.3f,\"mean_chars\":%.0f}",
                  preset, Percentile(ms, 0.5), Percentile(ms, 0.95),
                  chars / static_cast<double>(ms.size()));
    out += buf;
  }
  std::printf("%s}\n", out.c_str());
  engine->reset();
  if (temporary) std::filesystem::remove_all(ws);
  return 0;
}
