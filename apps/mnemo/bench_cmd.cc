#include "bench_cmd.h"

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>
#include <variant>

#include "mnemo/bench_anchor.h"
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

// This thread's CPU time in ms. A query's CPU time leaves out the time it
// waited for a core, so on a shared machine it still compares two builds
// (wall-clock percentiles then measure the load as much as the code).
double ThreadCpuMs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

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

// The p50 of each query kind (the dataset's `kind`: keyword, paraphrase,
// phrase, zh, …) in ms, from each query's latency by kind.
json P50ByKind(const std::map<std::string, std::vector<double>>& lat_by_kind) {
  json out = json::object();
  for (const auto& [kind, lat] : lat_by_kind) out[kind] = Round(Percentile(lat, 0.50), 1000);
  return out;
}

// recall@10 of one query: hits over its relevant entries, at most 10 of them
// counted (and at least one).
double RecallAt10(size_t hits, size_t relevant) {
  return static_cast<double>(hits) /
         static_cast<double>(std::min<size_t>(std::max<size_t>(relevant, 1), 10));
}

// An input stream over a string it does not copy: std::istringstream copies
// its string, which at 1M memories is another 350 MB of peak RSS charged to
// the import being measured.
class ViewStream : public std::istream {
 public:
  explicit ViewStream(std::string_view text) : std::istream(&buf_) {
    char* begin = const_cast<char*>(text.data());
    buf_.Set(begin, begin + text.size());
  }

 private:
  struct Buf : std::streambuf {
    void Set(char* begin, char* end) { setg(begin, begin, end); }
  };
  Buf buf_;
};

// The owner of the most memories in datagen.py's datasets (a quarter of them).
constexpr std::string_view kScopedPrincipal = "user-1";

struct RunResult {
  int64_t n = 0;
  double ingest_s = 0;
  double p50 = 0;
  double p95 = 0;
  double cpu_p50 = 0;  // median CPU time of a query (ThreadCpuMs)
  double recall = 0;
  double recall_default = 0;  // hits under the default min_relevance_score
  json by_kind = json::object();
  json p50_by_kind = json::object();
  double min_relevance = 0;
  double two_thread_speedup = 0;  // queries/s with 2 threads over 1
  double scoped_p50 = 0;          // the queries as a user (ACL on): own + public entries
  double scoped_p95 = 0;
  double open_s = 0;          // Engine::Open (of a reused workspace: loads the index file)
  double first_query_ms = 0;  // the first query after the open
  // Each side of the fusion alone, over the same candidates: the hits ranked
  // by keyword_score alone and by vector_score alone (issue 43: the hybrid
  // must recall at least as much as the better of them).
  double keyword_side_recall = 0;
  double keyword_side_recall_hybrid_ties = 0;  // ties left in the hybrid's order
  double vector_side_recall = 0;
};

// R@10 of each side alone: every candidate of both sides (k = 100 returns
// all of them: each side brings max(4k, 40) = 40 for the k = 10 asked
// above, so each side's own top 10 is among them), re-ranked by one signal.
void SideRecalls(Engine& engine, const std::vector<Query>& queries, RunResult* out) {
  Principal admin;
  double keyword = 0;
  double keyword_hybrid_ties = 0;
  double vector = 0;
  for (const Query& q : queries) {
    auto r = engine.memory().Search(admin, {.query = q.text, .max_results = 100, .min_score = 0.0});
    if (!r.ok()) continue;
    std::set<std::string> rel(q.relevant.begin(), q.relevant.end());
    // `own_ties`: the side's own order, ties by updated_at then key (spec
    // 20), as a search of that side alone breaks them; else ties keep the
    // hybrid's order, which lends the side the other side's signal.
    auto recall_by = [&](auto signal, bool own_ties) {
      std::vector<const SearchHit*> hits;
      for (const SearchHit& h : r->results) hits.push_back(&h);
      std::stable_sort(hits.begin(), hits.end(), [&](const SearchHit* a, const SearchHit* b) {
        if (signal(*a) != signal(*b)) return signal(*a) > signal(*b);
        if (!own_ties) return false;
        if (a->updated_at != b->updated_at) return a->updated_at > b->updated_at;
        return a->key < b->key;
      });
      size_t hit = 0;
      for (size_t i = 0; i < hits.size() && i < 10; ++i) {
        if (signal(*hits[i]) > 0 && rel.count(hits[i]->key) != 0) ++hit;
      }
      return RecallAt10(hit, rel.size());
    };
    auto exact = [](const SearchHit& h) { return h.keyword_score; };
    auto cosine = [](const SearchHit& h) { return h.vector_score.value_or(0.0); };
    keyword += recall_by(exact, true);
    keyword_hybrid_ties += recall_by(exact, false);
    vector += recall_by(cosine, true);
  }
  const double nq = std::max<double>(1, static_cast<double>(queries.size()));
  out->keyword_side_recall = keyword / nq;
  out->keyword_side_recall_hybrid_ties = keyword_hybrid_ties / nq;
  out->vector_side_recall = vector / nq;
}

// Throughput of every query run by two threads (each half) over one thread
// running them all (spec 20: >= 1.6x).
double TwoThreadSpeedup(Engine& engine, const std::vector<Query>& queries) {
  Principal admin;
  auto run = [&](size_t begin, size_t step) {
    for (size_t i = begin; i < queries.size(); i += step) {
      (void)engine.memory().Search(admin,
                                   {.query = queries[i].text, .max_results = 10, .min_score = 0.0});
    }
  };
  auto t1 = Clock::now();
  run(0, 1);
  const double one = Ms(Clock::now() - t1);
  auto t2 = Clock::now();
  std::thread other(run, 1, 2);
  run(0, 2);
  other.join();
  const double two = Ms(Clock::now() - t2);
  return two > 0 ? one / two : 0;
}

// A PostgreSQL run gets a fresh schema of its own, as a sqlite run gets a
// fresh workspace.
// What every run takes from the command line: the backend, the PostgreSQL
// server and schema of `run`, and the index's ef_search.
void ApplyArgs(const BenchArgs& args, const std::string& run, Config& config) {
  config.memory.backend = args.backend;
  if (args.ef_search > 0) config.index.ef_search = args.ef_search;
  if (args.backend != "postgres") return;
  config.postgres.url = args.postgres_url;
  if (config.postgres.url.empty()) {
    if (const char* url = std::getenv("MNEMO_POSTGRES_URL"); url != nullptr) {
      config.postgres.url = url;
    }
  }
  // With --workspace, the schema is the workspace's own (a hash of its
  // path), so a later run with --reuse finds what this one imported.
  const std::string owner =
      args.workspace.empty()
          ? std::to_string(::getpid())
          : "w" + std::to_string(std::hash<std::string>{}(fs::absolute(args.workspace).string()) %
                                 1000000007ULL);
  config.postgres.schema = "mnemo_bench_" + owner + "_" + run;
}

struct AnchorResult {
  double ingest_s = 0;
  double p50 = 0;
  double p95 = 0;
  double cpu_p50 = 0;  // median CPU time of a query (ThreadCpuMs)
  double recall = 0;
  json p50_by_kind = json::object();
  // Rows matching the queries (all of them, not only the top 10), summed
  // over each kind's queries: only anchors that count them (PgFtsAnchor).
  std::optional<json> matched_by_kind;
};

// The same texts and queries through raw SQLite FTS5 (mnemo/bench_anchor.h):
// the reference the keyword figures are ratios against.
// The anchors' input: each memory's content, its rowid (line number) by key.
struct AnchorTexts {
  std::vector<std::string> texts;
  std::map<std::string, int64_t> rowid_of;
};

AnchorTexts ReadAnchorTexts(const std::string& data) {
  AnchorTexts out;
  ViewStream in(data);
  std::string line;
  while (std::getline(in, line)) {
    json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    out.rowid_of[j.value("key", "")] = static_cast<int64_t>(out.texts.size()) + 1;
    out.texts.push_back(j.value("content", ""));
  }
  return out;
}

// Loads `input` into `anchor` and runs `queries` on it (Fts5Anchor or
// PgFtsAnchor: Insert and Search of the same shape).
template <typename Anchor>
std::variant<AnchorResult, int> MeasureAnchor(Result<std::unique_ptr<Anchor>>& anchor,
                                              const AnchorTexts& input,
                                              const std::vector<Query>& queries) {
  const std::vector<std::string>& texts = input.texts;
  const std::map<std::string, int64_t>& rowid_of = input.rowid_of;
  if (!anchor.ok()) {
    std::cerr << "mnemo bench: anchor: " << anchor.status().message() << "\n";
    return 2;
  }
  AnchorResult out;
  auto t0 = Clock::now();
  if (Status s = (*anchor)->Insert(texts, 1); !s.ok()) {
    std::cerr << "mnemo bench: anchor: " << s.message() << "\n";
    return 2;
  }
  out.ingest_s = Ms(Clock::now() - t0) / 1000.0;
  for (size_t i = 0; i < std::min<size_t>(100, queries.size()); ++i) {
    (void)(*anchor)->Search(queries[i].text, 10);
  }
  std::vector<double> lat;
  std::vector<double> cpu;
  std::map<std::string, std::vector<double>> lat_by_kind;
  double recall_sum = 0;
  for (const Query& q : queries) {
    auto s0 = Clock::now();
    const double c0 = ThreadCpuMs();
    auto r = (*anchor)->Search(q.text, 10);
    cpu.push_back(ThreadCpuMs() - c0);
    lat.push_back(Ms(Clock::now() - s0));
    lat_by_kind[q.kind].push_back(lat.back());
    if (!r.ok()) {
      std::cerr << "mnemo bench: anchor: " << r.status().message() << "\n";
      return 2;
    }
    std::set<int64_t> rel;
    for (const std::string& k : q.relevant) {
      if (auto it = rowid_of.find(k); it != rowid_of.end()) rel.insert(it->second);
    }
    size_t hit = 0;
    for (int64_t id : *r) hit += rel.count(id);
    recall_sum += RecallAt10(hit, q.relevant.size());
  }
  out.p50 = Percentile(lat, 0.50);
  out.p95 = Percentile(lat, 0.95);
  out.cpu_p50 = Percentile(cpu, 0.50);
  out.recall = recall_sum / std::max<double>(1, static_cast<double>(queries.size()));
  out.p50_by_kind = P50ByKind(lat_by_kind);
  // After the timed queries: how many rows each query matched.
  if constexpr (requires(Anchor & a) { a.CountMatches(std::string_view()); }) {
    std::map<std::string, int64_t> matched;
    for (const Query& q : queries) {
      auto n = (*anchor)->CountMatches(q.text);
      if (!n.ok()) {
        std::cerr << "mnemo bench: anchor: " << n.status().message() << "\n";
        return 2;
      }
      matched[q.kind] += *n;
    }
    out.matched_by_kind = json(matched);
  }
  anchor->reset();
  return out;
}

std::variant<AnchorResult, int> RunAnchor(const BenchArgs& args, const AnchorTexts& input,
                                          const std::vector<Query>& queries,
                                          Fts5Anchor::Tokenizer tokenizer) {
  const fs::path dir =
      args.workspace.empty()
          ? fs::temp_directory_path() / ("mnemo-bench-" + std::to_string(::getpid()) + "-anchor")
          : fs::path(args.workspace) / "anchor";
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  auto anchor = Fts5Anchor::Create((dir / "anchor.db").string(), tokenizer);
  auto out = MeasureAnchor(anchor, input, queries);
  fs::remove_all(dir, ec);
  return out;
}

// The same texts and queries through raw PostgreSQL full-text search on the
// server of the postgres runs, in a schema of its own, with `terms`
// (mnemo/bench_anchor.h).
std::variant<AnchorResult, int> RunPgAnchor(const BenchArgs& args, const AnchorTexts& input,
                                            const std::vector<Query>& queries,
                                            PgFtsAnchor::Terms terms) {
  Config config;
  ApplyArgs(args, terms == PgFtsAnchor::Terms::kMnemo ? "pg_anchor_same_terms" : "pg_anchor",
            config);
  auto anchor = PgFtsAnchor::Create(config.postgres.url, config.postgres.schema, terms);
  return MeasureAnchor(anchor, input, queries);
}

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
  const bool reuse = args.reuse && !args.workspace.empty() && fs::exists(ws);
  if (!reuse) fs::remove_all(ws, ec);
  Config config;
  config.memory.acl_enabled = true;  // the admin reads everything; kScopedPrincipal does not
  ApplyArgs(args, provider, config);
  config.embedding.provider = provider;
  const auto open_start = Clock::now();
  auto opened = Engine::Open({.workspace = ws, .config = config});
  if (!opened.ok()) {
    std::cerr << "mnemo bench: " << opened.status().message() << "\n";
    return 2;
  }
  Engine& engine = **opened;
  Principal admin;
  RunResult out;
  out.min_relevance = config.search.min_relevance_score;
  out.open_s = Ms(Clock::now() - open_start) / 1000.0;

  if (reuse) {
    auto s0 = Clock::now();
    if (!queries.empty()) {
      (void)engine.memory().Search(admin,
                                   {.query = queries[0].text, .max_results = 10, .min_score = 0.0});
    }
    out.first_query_ms = Ms(Clock::now() - s0);
  } else {
    ViewStream in(data);
    auto t0 = Clock::now();
    auto imported = engine.admin().ImportJsonl(admin, in);
    out.ingest_s = Ms(Clock::now() - t0) / 1000.0;
    if (!imported.ok()) {
      std::cerr << "mnemo bench: import failed: " << imported.status().message() << "\n";
      return 2;
    }
    out.n = imported->imported;
  }

  // Warm-up on the first 100 queries, then every query once.
  for (size_t i = 0; i < std::min<size_t>(100, queries.size()); ++i) {
    (void)engine.memory().Search(admin,
                                 {.query = queries[i].text, .max_results = 10, .min_score = 0.0});
  }
  std::vector<double> lat;
  std::map<std::string, std::vector<double>> lat_by_kind;
  std::map<std::string, std::pair<double, int>> by_kind;
  double recall_sum = 0;
  double recall_default_sum = 0;
  std::vector<double> cpu;
  for (const Query& q : queries) {
    auto s0 = Clock::now();
    const double c0 = ThreadCpuMs();
    auto r = engine.memory().Search(admin, {.query = q.text, .max_results = 10, .min_score = 0.0});
    cpu.push_back(ThreadCpuMs() - c0);
    lat.push_back(Ms(Clock::now() - s0));
    lat_by_kind[q.kind].push_back(lat.back());
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
    const double recall = RecallAt10(hit, rel.size());
    recall_sum += recall;
    recall_default_sum += RecallAt10(hit_default, rel.size());
    by_kind[q.kind].first += recall;
    by_kind[q.kind].second += 1;
  }
  const double nq = std::max<double>(1, static_cast<double>(queries.size()));
  for (const auto& [kind, acc] : by_kind) out.by_kind[kind] = Round(acc.first / acc.second, 1000);
  out.p50_by_kind = P50ByKind(lat_by_kind);
  out.p50 = Percentile(lat, 0.50);
  out.p95 = Percentile(lat, 0.95);
  out.cpu_p50 = Percentile(cpu, 0.50);
  out.recall = recall_sum / nq;
  out.recall_default = recall_default_sum / nq;
  out.two_thread_speedup = TwoThreadSpeedup(engine, queries);
  if (provider != "none") SideRecalls(engine, queries, &out);
  // The same queries as a user, who reads their own and public entries: a
  // search of every principal of a workspace with memory.acl_enabled.
  const Principal user{.name = std::string(kScopedPrincipal), .role = Role::kUser};
  std::vector<double> scoped;
  for (const Query& q : queries) {
    auto s0 = Clock::now();
    auto r = engine.memory().Search(user, {.query = q.text, .max_results = 10, .min_score = 0.0});
    scoped.push_back(Ms(Clock::now() - s0));
    if (!r.ok()) {
      std::cerr << "mnemo bench: search as " << user.name << " failed: " << r.status().message()
                << "\n";
      return 2;
    }
  }
  out.scoped_p50 = Percentile(scoped, 0.50);
  out.scoped_p95 = Percentile(scoped, 0.95);
  opened->reset();
  if (args.workspace.empty()) fs::remove_all(ws, ec);
  return out;
}

bool ReadFloats(const fs::path& path, size_t count, std::vector<float>* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->resize(count);
  in.read(reinterpret_cast<char*>(out->data()),
          static_cast<std::streamsize>(count * sizeof(float)));
  return static_cast<size_t>(in.gcount()) == count * sizeof(float);
}

// The dataset's own vectors through bring-your-own embeddings: ANN recall
// against the exact neighbours (gt_knn.jsonl), vector-only latency, and
// hybrid (query text + query vector) recall against `relevant`.
int RunVectors(const BenchArgs& args, const fs::path& dir, const std::string& data,
               const std::vector<Query>& queries, json* out, json* extra) {
  json meta = json::parse(std::ifstream(dir / "meta.json"), nullptr, false);
  if (meta.is_discarded() || !meta.contains("dim")) {
    std::cerr << "mnemo bench: " << (dir / "meta.json").string() << " has no dim\n";
    return 1;
  }
  const size_t dim = meta["dim"].get<size_t>();
  std::vector<std::string> lines;
  {
    std::istringstream in(data);
    std::string line;
    while (std::getline(in, line)) lines.push_back(std::move(line));
  }
  std::vector<float> vectors;
  std::vector<float> qvectors;
  if (!ReadFloats(dir / "vectors.f32", lines.size() * dim, &vectors) ||
      !ReadFloats(dir / "query_vectors.f32", queries.size() * dim, &qvectors)) {
    std::cerr << "mnemo bench: cannot read vectors.f32 / query_vectors.f32\n";
    return 1;
  }
  std::vector<std::vector<std::string>> gt;
  {
    std::ifstream in(dir / "gt_knn.jsonl");
    std::string line;
    while (gt.size() < queries.size() && std::getline(in, line)) {
      json j = json::parse(line, nullptr, false);
      gt.push_back(j.is_discarded() ? std::vector<std::string>{}
                                    : j.value("neighbors", std::vector<std::string>{}));
    }
  }
  if (gt.size() < queries.size()) {
    std::cerr << "mnemo bench: " << (dir / "gt_knn.jsonl").string() << " has " << gt.size()
              << " lines of exact neighbours, expected one per query (" << queries.size()
              << "): generate the dataset with its ground truth\n";
    return 1;
  }
  // Each memory line gets its vector as "embedding".
  std::string with_vectors;
  char buf[32];
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string& l = lines[i];
    l.pop_back();  // the closing brace
    with_vectors += l;
    with_vectors += ",\"embedding\":[";
    for (size_t d = 0; d < dim; ++d) {
      std::snprintf(buf, sizeof buf, d == 0 ? "%.7g" : ",%.7g", vectors[i * dim + d]);
      with_vectors += buf;
    }
    with_vectors += "]}\n";
  }
  const std::string ws =
      (fs::temp_directory_path() / ("mnemo-bench-" + std::to_string(::getpid()) + "-vectors"))
          .string();
  std::error_code ec;
  fs::remove_all(ws, ec);
  Config config;
  config.memory.acl_enabled = true;  // the admin reads everything; kScopedPrincipal does not
  ApplyArgs(args, "vectors", config);
  config.embedding.provider = "none";
  auto opened = Engine::Open({.workspace = ws, .config = config});
  if (!opened.ok()) {
    std::cerr << "mnemo bench: " << opened.status().message() << "\n";
    return 2;
  }
  Engine& engine = **opened;
  Principal admin;
  ViewStream in(with_vectors);
  auto t0 = Clock::now();
  auto imported = engine.admin().ImportJsonl(admin, in);
  const double ingest_s = Ms(Clock::now() - t0) / 1000.0;
  if (!imported.ok()) {
    std::cerr << "mnemo bench: import failed: " << imported.status().message() << "\n";
    return 2;
  }
  auto query_vector = [&](size_t j) {
    return std::vector<float>(qvectors.begin() + static_cast<std::ptrdiff_t>(j * dim),
                              qvectors.begin() + static_cast<std::ptrdiff_t>((j + 1) * dim));
  };
  // "?" has no terms: the keyword side is empty, so this is the vector side alone.
  std::vector<double> vec_lat;
  std::vector<double> hyb_lat;
  double ann = 0;
  double hybrid = 0;
  for (size_t j = 0; j < queries.size(); ++j) {
    auto s0 = Clock::now();
    auto v = engine.memory().Search(
        admin, {.query = "?", .max_results = 10, .min_score = 0.0, .embedding = query_vector(j)});
    vec_lat.push_back(Ms(Clock::now() - s0));
    auto s1 = Clock::now();
    auto h = engine.memory().Search(admin, {.query = queries[j].text,
                                            .max_results = 10,
                                            .min_score = 0.0,
                                            .embedding = query_vector(j)});
    hyb_lat.push_back(Ms(Clock::now() - s1));
    if (!v.ok() || !h.ok()) {
      std::cerr << "mnemo bench: search failed: " << (v.ok() ? h.status() : v.status()).message()
                << "\n";
      return 2;
    }
    std::set<std::string> exact(gt[j].begin(), gt[j].end());
    std::set<std::string> rel(queries[j].relevant.begin(), queries[j].relevant.end());
    size_t a = 0;
    size_t b = 0;
    for (const SearchHit& x : v->results) a += exact.count(x.key);
    for (const SearchHit& x : h->results) b += rel.count(x.key);
    ann += static_cast<double>(a) / static_cast<double>(std::max<size_t>(1, exact.size()));
    hybrid += RecallAt10(b, rel.size());
  }
  const double nq = std::max<double>(1, static_cast<double>(queries.size()));
  (*out)["vec_p50_ms"] = Round(Percentile(vec_lat, 0.50), 1000);
  (*out)["vec_p95_ms"] = Round(Percentile(vec_lat, 0.95), 1000);
  (*out)["vec_recall_at_10_vs_exact"] =
      gt.size() == queries.size() ? json(Round(ann / nq, 1000)) : json(nullptr);
  (*extra)["byo_hybrid_p50_ms"] = Round(Percentile(hyb_lat, 0.50), 1000);
  (*extra)["byo_hybrid_p95_ms"] = Round(Percentile(hyb_lat, 0.95), 1000);
  (*extra)["byo_hybrid_recall_at_10"] = Round(hybrid / nq, 1000);
  (*extra)["byo_ingest_s"] = Round(ingest_s, 1000);
  opened->reset();
  fs::remove_all(ws, ec);
  return 0;
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
  if (args.mode != "all" && args.mode != "keyword" && args.mode != "hybrid" &&
      args.mode != "vector") {
    std::cerr << "mnemo bench: --mode must be all, keyword, hybrid or vector\n";
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
                      "single-threaded, k=10, min_score 0; *_scoped_*: the same queries as user " +
                      std::string(kScopedPrincipal) + " (ACL on: own and public entries)";
  if (args.mode == "all" || args.mode == "keyword") {
    const AnchorTexts anchor_texts = ReadAnchorTexts(data);
    auto a = RunAnchor(args, anchor_texts, queries, Fts5Anchor::Tokenizer::kUnicode61);
    if (std::holds_alternative<int>(a)) return std::get<int>(a);
    const AnchorResult& anchor = std::get<AnchorResult>(a);
    auto same = RunAnchor(args, anchor_texts, queries, Fts5Anchor::Tokenizer::kMnemo);
    if (std::holds_alternative<int>(same)) return std::get<int>(same);
    const AnchorResult& anchor_same = std::get<AnchorResult>(same);
    std::optional<AnchorResult> pg_anchor;
    std::optional<AnchorResult> pg_anchor_same_terms;
    if (args.backend == "postgres") {
      auto pga = RunPgAnchor(args, anchor_texts, queries, PgFtsAnchor::Terms::kSimple);
      if (std::holds_alternative<int>(pga)) return std::get<int>(pga);
      pg_anchor = std::get<AnchorResult>(pga);
      auto pgs = RunPgAnchor(args, anchor_texts, queries, PgFtsAnchor::Terms::kMnemo);
      if (std::holds_alternative<int>(pgs)) return std::get<int>(pgs);
      pg_anchor_same_terms = std::get<AnchorResult>(pgs);
    }
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
    extra["kw_p50_by_kind"] = kw.p50_by_kind;
    extra["kw_cpu_p50_ms"] = Round(kw.cpu_p50, 1000);
    extra["kw_scoped_p50_ms"] = Round(kw.scoped_p50, 1000);
    extra["kw_scoped_p95_ms"] = Round(kw.scoped_p95, 1000);
    extra["kw_recall_at_10_min_relevance_default"] = Round(kw.recall_default, 1000);
    extra["kw_two_thread_speedup"] = Round(kw.two_thread_speedup, 100);
    const double rate = static_cast<double>(kw.n) / kw.ingest_s;
    json anchor_p50_by_kind = json::object();
    json anchor_matched_by_kind = json::object();
    auto anchor_json = [&](const AnchorResult& x, const char* tokenizer) {
      const double anchor_rate = static_cast<double>(kw.n) / x.ingest_s;
      return json{{"system", "sqlite-fts5"},
                  {"tokenizer", tokenizer},
                  {"ingest_per_s", Round(anchor_rate, 1)},
                  {"kw_p50_ms", Round(x.p50, 1000)},
                  {"kw_p95_ms", Round(x.p95, 1000)},
                  {"kw_cpu_p50_ms", Round(x.cpu_p50, 1000)},
                  {"kw_recall_at_10", Round(x.recall, 1000)},
                  {"mnemo_kw_p50_ratio", Round(kw.p50 / x.p50, 100)},
                  {"mnemo_kw_p95_ratio", Round(kw.p95 / x.p95, 100)},
                  {"mnemo_ingest_ratio", Round(rate / anchor_rate, 100)}};
    };
    // Each anchor's p50 by query kind (and matched rows, where counted),
    // side by side in extra under the anchor's key.
    auto by_kind = [&](const char* name, const AnchorResult& x) {
      anchor_p50_by_kind[name] = x.p50_by_kind;
      if (x.matched_by_kind) anchor_matched_by_kind[name] = *x.matched_by_kind;
    };
    out["anchor"] = anchor_json(anchor, "unicode61");
    extra["anchor_mnemo_tokenizer"] = anchor_json(anchor_same, "mnemo");
    out["kw_p50_vs_anchor"] = out["anchor"]["mnemo_kw_p50_ratio"];
    out["ingest_vs_anchor"] = out["anchor"]["mnemo_ingest_ratio"];
    by_kind("anchor", anchor);
    by_kind("anchor_mnemo_tokenizer", anchor_same);
    if (pg_anchor && pg_anchor_same_terms) {
      json pg = anchor_json(*pg_anchor, "simple");
      pg["system"] = "postgresql-fts";
      out["anchor_postgres"] = pg;
      out["kw_p50_vs_pg_anchor"] = pg["mnemo_kw_p50_ratio"];
      out["ingest_vs_pg_anchor"] = pg["mnemo_ingest_ratio"];
      json same_terms = anchor_json(*pg_anchor_same_terms, "mnemo");
      same_terms["system"] = "postgresql-fts";
      out["anchor_postgres_same_terms"] = same_terms;
      out["kw_p50_vs_pg_anchor_same_terms"] = same_terms["mnemo_kw_p50_ratio"];
      out["ingest_vs_pg_anchor_same_terms"] = same_terms["mnemo_ingest_ratio"];
      by_kind("anchor_postgres", *pg_anchor);
      by_kind("anchor_postgres_same_terms", *pg_anchor_same_terms);
      notes +=
          "; anchor_postgres (run before mnemo, same server): raw PostgreSQL full-text search, "
          "to_tsvector('simple') stored with a GIN index, the query words OR'ed "
          "(websearch_to_tsquery), ts_rank_cd, LIMIT 10; anchor_postgres_same_terms: the same "
          "with mnemo's own terms (each row's tsvector the one mnemo's PostgreSQL backend "
          "stores, the query the OR of mnemo's query terms), so it matches the rows mnemo "
          "matches";
    }
    extra["anchor_p50_by_kind"] = anchor_p50_by_kind;
    if (!anchor_matched_by_kind.empty())
      extra["anchor_matched_rows_by_kind"] = anchor_matched_by_kind;
    notes +=
        "; keyword run: embedder none; anchors (run first, same process): raw SQLite FTS5, "
        "query words OR'ed, ORDER BY rank (bm25), with FTS5's default tokenizer (anchor) "
        "and with mnemo's (extra.anchor_mnemo_tokenizer)";
  }
  if (args.mode == "all" || args.mode == "vector") {
    if (int rc = RunVectors(args, dir, data, queries, &out, &extra); rc != 0) return rc;
    notes += "; vector run: the dataset's vectors as bring-your-own embeddings";
  }
  if (args.mode == "all" || args.mode == "hybrid") {
    // The default embedder: word vectors when their file is found, else hash.
    auto r = RunOnce(args, data, queries, Config().embedding.provider);
    if (std::holds_alternative<int>(r)) return std::get<int>(r);
    const RunResult& hy = std::get<RunResult>(r);
    out["n"] = hy.n;
    if (args.reuse) {
      extra["hybrid_open_s"] = Round(hy.open_s, 1000);
      extra["hybrid_first_query_ms"] = Round(hy.first_query_ms, 1000);
    }
    extra["hybrid_ingest_s"] = Round(hy.ingest_s, 1000);
    extra["hybrid_ingest_per_s"] = Round(static_cast<double>(hy.n) / hy.ingest_s, 1);
    out["hybrid_p50_ms"] = Round(hy.p50, 1000);
    extra["hybrid_p95_ms"] = Round(hy.p95, 1000);
    extra["hybrid_cpu_p50_ms"] = Round(hy.cpu_p50, 1000);
    extra["hybrid_scoped_p50_ms"] = Round(hy.scoped_p50, 1000);
    extra["hybrid_scoped_p95_ms"] = Round(hy.scoped_p95, 1000);
    out["hybrid_recall_at_10"] = Round(hy.recall, 1000);
    extra["hybrid_recall_by_kind"] = hy.by_kind;
    extra["hybrid_recall_at_10_min_relevance_default"] = Round(hy.recall_default, 1000);
    extra["hybrid_two_thread_speedup"] = Round(hy.two_thread_speedup, 100);
    extra["hybrid_keyword_side_recall_at_10"] = Round(hy.keyword_side_recall, 1000);
    extra["hybrid_keyword_side_recall_at_10_hybrid_ties"] =
        Round(hy.keyword_side_recall_hybrid_ties, 1000);
    extra["hybrid_vector_side_recall_at_10"] = Round(hy.vector_side_recall, 1000);
    notes +=
        "; hybrid run: default embedder (words when its file is found, else hash), default "
        "fusion (" +
        Config().search.fusion + "), default index";
  }
  out["rss_mb"] = Round(PeakRssMb(), 10);
  out["notes"] = notes;
  out["extra"] = extra;
  std::cout << out.dump() << std::endl;
  return 0;
}

}  // namespace mnemo::app
