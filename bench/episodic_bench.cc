// Archivist per-turn measurements (spec 40 / issue "Archivist"): latency of
// memory.turn_complete (episodic rows, rule capture and statistics; no LLM;
// the markdown files are written by a background thread), the time to ingest
// N turns including every markdown file, and episodic search
// latency over them, through the public Engine on a real SQLite workspace.
//
//   episodic_bench --dataset DIR [--turns N] [--sessions S] [--queries Q]
//
// DIR is a dataset of ../shared/bench/datagen.py: turn i says memories 2i
// (user) and 2i+1 (assistant) of memories.jsonl, and the searches are the
// queries of queries.jsonl. Prints one JSON line. Not a test: run by hand on
// an idle machine.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench_util.h"
#include "mnemo/engine.h"

namespace {

using mnemo::bench::Check;
using mnemo::bench::Clock;
using mnemo::bench::Field;
using mnemo::bench::MsSince;
using mnemo::bench::Percentile;

std::vector<std::string> ReadField(const std::string& path, const std::string& name, size_t max) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; out.size() < max && std::getline(in, line);) {
    out.push_back(Field(line, name));
  }
  return out;
}

const char* const kWords[] = {
    "deploy",  "billing", "service", "database", "migration", "schedule", "invoice", "customer",
    "report",  "budget",  "server",  "latency",  "cache",     "release",  "review",  "meeting",
    "design",  "api",     "token",   "backup",   "restore",   "metrics",  "alert",   "incident",
    "payment", "refund",  "ticket",  "roadmap",  "feature",   "bug",      "test",    "staging",
    "cluster", "queue",   "worker",  "timeout",  "retry",     "config",   "secret",  "storage",
    "发布",    "数据库",  "迁移",    "会议",     "预算",      "报告",     "客户",    "服务器"};

std::string Sentence(std::mt19937& rng, int words) {
  std::uniform_int_distribution<size_t> pick(0, std::size(kWords) - 1);
  std::string s;
  for (int i = 0; i < words; ++i) s += (i ? " " : "") + std::string(kWords[pick(rng)]);
  return s + ".";
}

}  // namespace

int main(int argc, char** argv) {
  int turns = 10000;
  int sessions = 50;
  int queries = 500;
  std::string dataset;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    const int value = std::atoi(argv[i + 1]);
    if (flag == "--turns") turns = value;
    if (flag == "--sessions") sessions = value;
    if (flag == "--queries") queries = value;
    if (flag == "--dataset") dataset = argv[i + 1];
  }
  std::vector<std::string> texts;
  std::vector<std::string> query_texts;
  if (!dataset.empty()) {
    texts = ReadField(dataset + "/memories.jsonl", "content", static_cast<size_t>(turns) * 2);
    query_texts = ReadField(dataset + "/queries.jsonl", "query", static_cast<size_t>(queries));
    if (texts.size() < static_cast<size_t>(turns) * 2 || query_texts.empty()) {
      std::fprintf(stderr, "episodic_bench: %s has too few memories or queries\n", dataset.c_str());
      return 1;
    }
  }
  const std::filesystem::path ws =
      std::filesystem::temp_directory_path() / ("mnemo-episodic-bench-" + std::to_string(getpid()));
  std::filesystem::remove_all(ws);
  auto engine = mnemo::Engine::Open({.workspace = ws.string()});
  Check(engine.status(), "open");
  mnemo::Engine& e = **engine;
  const mnemo::Principal who;
  std::mt19937 rng(7);

  std::vector<double> latency;
  latency.reserve(static_cast<size_t>(turns));
  const auto start = Clock::now();
  for (int i = 0; i < turns; ++i) {
    mnemo::Turn t{.session_id = "session-" + std::to_string(i % sessions),
                  .user_message = texts.empty() ? Sentence(rng, 14) : texts[2 * i],
                  .assistant_response = texts.empty() ? Sentence(rng, 30) : texts[2 * i + 1],
                  .tool_calls = {{.name = "files_read",
                                  .arguments_json = R"({"path": "/srv/app/notes.md"})",
                                  .output = Sentence(rng, 40),
                                  .duration_ms = 12}},
                  // The last turn waits for the background archive files.
                  .sync = i + 1 == turns};
    auto t0 = Clock::now();
    Check(e.archivist().TurnComplete(who, t).status(), "turn");
    latency.push_back(MsSince(t0));
  }
  const double ingest_s = MsSince(start) / 1000;

  std::vector<double> search;
  for (int i = 0; i < queries; ++i) {
    mnemo::EpisodicQuery q{
        .query = query_texts.empty() ? Sentence(rng, 2) : query_texts[i % query_texts.size()],
        .limit = 10};
    auto t0 = Clock::now();
    Check(e.archivist().EpisodicSearch(who, q).status(), "search");
    search.push_back(MsSince(t0));
  }
  std::printf(
      "{\"bench\":\"episodic\",\"turns\":%d,\"sessions\":%d,"
      "\"turn_complete_ms\":{\"p50\":%.3f,\"p95\":%.3f},\"ingest_s\":%.2f,"
      "\"episodic_search_ms\":{\"rows\":%d,\"p50\":%.3f,\"p95\":%.3f}}\n",
      turns, sessions, Percentile(latency, 0.5), Percentile(latency, 0.95), ingest_s, turns * 2,
      Percentile(search, 0.5), Percentile(search, 0.95));
  engine->reset();
  std::filesystem::remove_all(ws);
  return 0;
}
