#include "bench_cmd.h"

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <variant>

#include "mnemo/engine.h"

namespace mnemo::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct Query {
  std::string text;
  std::string kind;
  std::vector<std::string> relevant;
};

double Ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size()))) - 1;
  return v[std::min(i, v.size() - 1)];
}

double PeakRssMb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  }
  return 0;
}

bool ReadQueries(const std::string& path, int64_t max, std::vector<Query>* out) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line) && (max == 0 || static_cast<int64_t>(out->size()) < max)) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) return false;
    out->push_back({j.value("query", ""), j.value("kind", ""),
                    j.value("relevant", std::vector<std::string>{})});
  }
  return true;
}

double Round(double v, double scale) { return std::round(v * scale) / scale; }

struct RunResult {
  int64_t n = 0;
  double ingest_s = 0;
  double p50 = 0;
  double p95 = 0;
  double recall = 0;
  double recall_default = 0;  // hits under the default min_relevance_score
  json by_kind = json::object();
  double min_relevance = 0;
};

// Imports the dataset into a fresh workspace with `provider` as embedder and
// runs every query once after a warm-up. Returns an exit code on failure.
std::variant<RunResult, int> RunOnce(const BenchArgs& args, const std::string& data,
                                     const std::vector<Query>& queries,
                                     const std::string& provider) {
  std::string ws = args.workspace.empty()
                       ? (fs::temp_directory_path() /
                          ("mnemo-bench-" + std::to_string(::getpid()) + "-" + provider))
                             .string()
                       : args.workspace + "/" + provider;
  std::error_code ec;
  fs::remove_all(ws, ec);
  Config config;
  config.memory.backend = args.backend;
  config.embedding.provider = provider;
  auto opened = Engine::Open({.workspace = ws, .config = config});
  if (!opened.ok()) {
    std::cerr << "mnemo bench: " << opened.status().message() << "\n";
    return 2;
  }
  Engine& engine = **opened;
  Principal admin;
  RunResult out;
  out.min_relevance = config.search.min_relevance_score;

  std::istringstream in(data);
  auto t0 = Clock::now();
  auto imported = engine.ImportJsonl(admin, in);
  out.ingest_s = Ms(Clock::now() - t0) / 1000.0;
  if (!imported.ok()) {
    std::cerr << "mnemo bench: import failed: " << imported.status().message() << "\n";
    return 2;
  }
  out.n = imported->imported;

  // Warm-up on the first 100 queries, then every query once.
  for (size_t i = 0; i < std::min<size_t>(100, queries.size()); ++i) {
    (void)engine.Search(admin, {.query = queries[i].text, .max_results = 10, .min_score = 0.0});
  }
  std::vector<double> lat;
  std::map<std::string, std::pair<double, int>> by_kind;
  double recall_sum = 0;
  double recall_default_sum = 0;
  for (const Query& q : queries) {
    auto s0 = Clock::now();
    auto r = engine.Search(admin, {.query = q.text, .max_results = 10, .min_score = 0.0});
    lat.push_back(Ms(Clock::now() - s0));
    if (!r.ok()) {
      std::cerr << "mnemo bench: search failed: " << r.status().message() << "\n";
      return 2;
    }
    std::set<std::string> rel(q.relevant.begin(), q.relevant.end());
    size_t hit = 0;
    size_t hit_default = 0;
    for (const SearchHit& h : r->results) {
      if (rel.count(h.key) == 0) continue;
      ++hit;
      if (h.score >= out.min_relevance) ++hit_default;
    }
    double denom = static_cast<double>(std::min<size_t>(std::max<size_t>(rel.size(), 1), 10));
    double recall = static_cast<double>(hit) / denom;
    recall_sum += recall;
    recall_default_sum += static_cast<double>(hit_default) / denom;
    by_kind[q.kind].first += recall;
    by_kind[q.kind].second += 1;
  }
  const double nq = std::max<double>(1, static_cast<double>(queries.size()));
  for (const auto& [kind, acc] : by_kind) out.by_kind[kind] = Round(acc.first / acc.second, 1000);
  out.p50 = Percentile(lat, 0.50);
  out.p95 = Percentile(lat, 0.95);
  out.recall = recall_sum / nq;
  out.recall_default = recall_default_sum / nq;
  opened->reset();
  if (args.workspace.empty()) fs::remove_all(ws, ec);
  return out;
}

}  // namespace

int RunBenchCommand(const BenchArgs& args) {
  const fs::path dir(args.dataset);
  std::ifstream mem_in(dir / "memories.jsonl", std::ios::binary);
  if (!mem_in) {
    std::cerr << "mnemo bench: " << (dir / "memories.jsonl").string()
              << " not found: make a dataset with ../shared/bench/datagen.py --out DIR\n";
    return 1;
  }
  // Loading the file is outside the timed region; parsing and indexing are in.
  std::string data;
  {
    std::string line;
    int64_t n = 0;
    while ((args.limit == 0 || n < args.limit) && std::getline(mem_in, line)) {
      data += line;
      data += '\n';
      ++n;
    }
  }
  std::vector<Query> queries;
  if (!ReadQueries((dir / "queries.jsonl").string(), args.queries, &queries)) {
    std::cerr << "mnemo bench: cannot read " << (dir / "queries.jsonl").string() << "\n";
    return 1;
  }
  if (args.mode != "all" && args.mode != "keyword" && args.mode != "hybrid") {
    std::cerr << "mnemo bench: --mode must be all, keyword or hybrid\n";
    return 1;
  }

  json out = {{"system", "mnemo"},         {"vec_p50_ms", nullptr},
              {"vec_p95_ms", nullptr},     {"vec_recall_at_10_vs_exact", nullptr},
              {"hybrid_p50_ms", nullptr},  {"hybrid_recall_at_10", nullptr},
              {"kw_p50_ms", nullptr},      {"kw_p95_ms", nullptr},
              {"kw_recall_at_10", nullptr}};
  json extra = {{"queries", queries.size()}};
  std::string notes = "backend " + args.backend +
                      "; import: ImportJsonl, one transaction, then vectors; queries "
                      "single-threaded, k=10, min_score 0";
  if (args.mode != "hybrid") {
    auto r = RunOnce(args, data, queries, "none");
    if (std::holds_alternative<int>(r)) return std::get<int>(r);
    const RunResult& kw = std::get<RunResult>(r);
    out["n"] = kw.n;
    out["ingest_s"] = Round(kw.ingest_s, 1000);
    out["ingest_per_s"] = Round(static_cast<double>(kw.n) / kw.ingest_s, 1);
    out["kw_p50_ms"] = Round(kw.p50, 1000);
    out["kw_p95_ms"] = Round(kw.p95, 1000);
    out["kw_recall_at_10"] = Round(kw.recall, 1000);
    extra["kw_recall_by_kind"] = kw.by_kind;
    extra["kw_recall_at_10_min_relevance_default"] = Round(kw.recall_default, 1000);
    notes += "; keyword run: embedder none";
  }
  if (args.mode != "keyword") {
    auto r = RunOnce(args, data, queries, "hash");
    if (std::holds_alternative<int>(r)) return std::get<int>(r);
    const RunResult& hy = std::get<RunResult>(r);
    out["n"] = hy.n;
    extra["hybrid_ingest_s"] = Round(hy.ingest_s, 1000);
    extra["hybrid_ingest_per_s"] = Round(static_cast<double>(hy.n) / hy.ingest_s, 1);
    out["hybrid_p50_ms"] = Round(hy.p50, 1000);
    extra["hybrid_p95_ms"] = Round(hy.p95, 1000);
    out["hybrid_recall_at_10"] = Round(hy.recall, 1000);
    extra["hybrid_recall_by_kind"] = hy.by_kind;
    extra["hybrid_recall_at_10_min_relevance_default"] = Round(hy.recall_default, 1000);
    notes += "; hybrid run: hash embedder (lexical), weighted fusion 0.6/0.4, default index";
  }
  out["rss_mb"] = Round(PeakRssMb(), 10);
  out["notes"] = notes;
  out["extra"] = extra;
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace mnemo::app
