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

  std::string ws = args.workspace;
  bool temp = ws.empty();
  if (temp)
    ws = (fs::temp_directory_path() / ("mnemo-bench-" + std::to_string(::getpid()))).string();
  Config config;
  config.memory.backend = args.backend;
  config.embedding.provider = "none";
  auto opened = Engine::Open({.workspace = ws, .config = config});
  if (!opened.ok()) {
    std::cerr << "mnemo bench: " << opened.status().message() << "\n";
    return 2;
  }
  Engine& engine = **opened;
  Principal admin;

  std::istringstream in(data);
  auto t0 = Clock::now();
  auto imported = engine.ImportJsonl(admin, in);
  double ingest_s = Ms(Clock::now() - t0) / 1000.0;
  if (!imported.ok()) {
    std::cerr << "mnemo bench: import failed: " << imported.status().message() << "\n";
    return 2;
  }
  const int64_t n = imported->imported;

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
      if (h.score >= config.search.min_relevance_score) ++hit_default;
    }
    double denom = static_cast<double>(std::min<size_t>(std::max<size_t>(rel.size(), 1), 10));
    double recall = static_cast<double>(hit) / denom;
    recall_sum += recall;
    recall_default_sum += static_cast<double>(hit_default) / denom;
    by_kind[q.kind].first += recall;
    by_kind[q.kind].second += 1;
  }
  const double nq = std::max<double>(1, static_cast<double>(queries.size()));
  json kinds = json::object();
  for (const auto& [kind, acc] : by_kind) kinds[kind] = Round(acc.first / acc.second, 1000);

  json out = {{"system", "mnemo"},
              {"n", n},
              {"ingest_s", Round(ingest_s, 1000)},
              {"ingest_per_s", Round(static_cast<double>(n) / ingest_s, 1)},
              {"kw_p50_ms", Round(Percentile(lat, 0.50), 1000)},
              {"kw_p95_ms", Round(Percentile(lat, 0.95), 1000)},
              {"kw_recall_at_10", Round(recall_sum / nq, 1000)},
              {"vec_p50_ms", nullptr},
              {"vec_p95_ms", nullptr},
              {"vec_recall_at_10_vs_exact", nullptr},
              {"hybrid_p50_ms", nullptr},
              {"hybrid_recall_at_10", nullptr},
              {"rss_mb", Round(PeakRssMb(), 10)},
              {"notes", "backend " + args.backend +
                            ", keyword only (embedder none), import: one transaction via "
                            "ImportJsonl, queries single-threaded, k=10, min_score 0"},
              {"extra",
               {{"kw_recall_by_kind", kinds},
                {"kw_recall_at_10_min_relevance_default", Round(recall_default_sum / nq, 1000)},
                {"queries", queries.size()}}}};
  std::cout << out.dump() << std::endl;
  opened->reset();
  if (temp) {
    std::error_code ec;
    fs::remove_all(ws, ec);
  }
  return 0;
}

}  // namespace mnemo::app
