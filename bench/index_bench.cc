// Vector index measurements on the shared dataset (spec 20, "Performance
// targets"): hnsw build time, query p50/p95 and recall@10 against the exact
// top 10, filtered queries, and save/load/verify times of the index file.
//
//   index_bench [DATASET_DIR] [--threads N]
//
// DATASET_DIR holds vectors.f32 (n x dim float32, row i = id i + 1, i.e.
// key m0000001 = row 0), query_vectors.f32 and gt_knn.jsonl. Not a test: run
// by hand on an idle machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "base/sha256.h"
#include "index/checksum.h"
#include "index/flat_index.h"
#include "index/hnsw_index.h"
#include "index/index_file.h"

namespace {

using Clock = std::chrono::steady_clock;
using mnemo::index::Neighbor;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

std::vector<float> ReadFloats(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::vector<float> v(std::filesystem::file_size(p) / sizeof(float));
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(v.size() * 4));
  return v;
}

// gt_knn.jsonl: one line per query, "neighbors": ["m0009154", ...] -> ids.
std::vector<std::vector<uint64_t>> ReadTruth(const std::filesystem::path& p) {
  std::vector<std::vector<uint64_t>> truth;
  std::ifstream in(p);
  for (std::string line; std::getline(in, line);) {
    std::vector<uint64_t> ids;
    const size_t start = line.find("\"neighbors\"");
    const size_t end = line.find(']', start);
    for (size_t at = line.find("\"m", start); at < end; at = line.find("\"m", at + 1)) {
      ids.push_back(std::strtoull(line.c_str() + at + 2, nullptr, 10));  // m0000001 -> 1
    }
    truth.push_back(std::move(ids));
  }
  return truth;
}

struct Latency {
  double p50, p95, recall;
};

template <typename SearchFn>
Latency Run(size_t dims, const std::vector<float>& queries,
            const std::vector<std::vector<uint64_t>>& truth, SearchFn search) {
  std::vector<double> ms;
  size_t hit = 0, total = 0;
  const size_t nq = queries.size() / dims;
  for (size_t q = 0; q < nq; ++q) {
    const auto t = Clock::now();
    std::vector<Neighbor> r = search(std::span<const float>(queries.data() + q * dims, dims));
    ms.push_back(Seconds(t) * 1000);
    if (q < truth.size()) {
      std::set<uint64_t> want(truth[q].begin(), truth[q].end());
      for (const Neighbor& n : r) hit += want.contains(n.id);
      total += want.size();
    }
  }
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[ms.size() * 95 / 100],
          total ? static_cast<double>(hit) / static_cast<double>(total) : 0};
}

}  // namespace

int main(int argc, char** argv) {
  namespace idx = mnemo::index;
  std::filesystem::path dir = "/work/data/ds100k";
  size_t threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--threads" && i + 1 < argc) {
      threads = std::strtoul(argv[++i], nullptr, 10);
    } else {
      dir = argv[i];
    }
  }
  const size_t dims = 384;
  std::vector<float> vectors = ReadFloats(dir / "vectors.f32");
  std::vector<float> queries = ReadFloats(dir / "query_vectors.f32");
  auto truth = ReadTruth(dir / "gt_knn.jsonl");
  const size_t n = vectors.size() / dims;
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i + 1;
  std::printf("dataset: %zu x %zu, %zu queries\n", n, dims, queries.size() / dims);

  idx::HnswParams params;  // M 16, ef_construction 100, ef_search 64
  params.build_threads = threads;
  auto hnsw = std::move(idx::HnswIndex::Make(dims, params, n).value());
  auto t = Clock::now();
  if (!hnsw->UpsertBatch(ids, vectors).ok()) return 1;
  std::printf("hnsw build (%zu threads): %.2f s (%.0f vectors/s)\n", threads, Seconds(t),
              static_cast<double>(n) / Seconds(t));

  auto flat = std::move(idx::FlatIndex::Make(dims).value());
  if (!flat->UpsertBatch(ids, vectors).ok()) return 1;

  auto h = Run(dims, queries, truth, [&](auto q) { return *hnsw->Search(q, 10); });
  std::printf("hnsw  k=10 ef=64: p50 %.3f ms, p95 %.3f ms, recall@10 %.4f\n", h.p50, h.p95,
              h.recall);
  auto f = Run(dims, queries, truth, [&](auto q) { return *flat->Search(q, 10); });
  std::printf("flat  k=10:       p50 %.3f ms, p95 %.3f ms, recall@10 %.4f\n", f.p50, f.p95,
              f.recall);

  idx::SearchFilter tenth;
  tenth.accept = [](std::span<const uint64_t> ids, std::vector<char>* ok) {
    for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = ids[i] % 10 == 0;
  };
  auto hf = Run(dims, queries, {}, [&](auto q) { return *hnsw->Search(q, 10, tenth); });
  std::printf("hnsw  k=10, filter passing 10%%:  p50 %.3f ms, p95 %.3f ms\n", hf.p50, hf.p95);
  idx::SearchFilter rare;
  rare.accept = [](std::span<const uint64_t> ids, std::vector<char>* ok) {
    for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = ids[i] % 200 == 0;
  };
  auto hr = Run(dims, queries, {}, [&](auto q) { return *hnsw->Search(q, 10, rare); });
  std::printf("hnsw  k=10, filter passing 0.5%%: p50 %.3f ms, p95 %.3f ms\n", hr.p50, hr.p95);
  idx::SearchFilter subset;
  subset.subset.emplace();
  for (uint64_t id = 1; id <= n; id += 50) subset.subset->push_back(id);
  auto hs = Run(dims, queries, {}, [&](auto q) { return *hnsw->Search(q, 10, subset); });
  std::printf("hnsw  k=10, subset of 2%% (exact): p50 %.3f ms, p95 %.3f ms\n", hs.p50, hs.p95);

  const auto file = std::filesystem::temp_directory_path() / "mnemo_index_bench.hnsw.idx";
  t = Clock::now();
  if (!idx::SaveIndexFile(file, *hnsw, "bench-384", "bench", 1).ok()) return 1;
  std::printf("save: %.2f s, %.1f MB\n", Seconds(t),
              static_cast<double>(std::filesystem::file_size(file)) / 1e6);
  t = Clock::now();
  auto now = idx::LoadIndexFile(file, "bench-384", "bench", dims, idx::VerifyMode::kNow);
  std::printf("load, checksum now: %.3f s (%s)\n", Seconds(t), now.status().ToString().c_str());
  t = Clock::now();
  auto later = idx::LoadIndexFile(file, "bench-384", "bench", dims, idx::VerifyMode::kDeferred);
  std::printf("load, deferred:     %.3f s\n", Seconds(t));
  t = Clock::now();
  mnemo::Status verified = later->pending->Run();
  std::printf("deferred verify:    %.3f s (%s)\n", Seconds(t), verified.ToString().c_str());

  std::string blob(reinterpret_cast<const char*>(vectors.data()), vectors.size() * 4);
  t = Clock::now();
  volatile uint64_t x = idx::Xxh64Of(blob);
  const double xs = Seconds(t);
  t = Clock::now();
  std::string sha = mnemo::internal::Sha256Hex(blob);
  const double ss = Seconds(t);
  (void)x;
  std::printf("checksum of %.0f MB: xxh64 %.3f s (%.1f GB/s), sha256 %.3f s (%.1f GB/s)\n",
              static_cast<double>(blob.size()) / 1e6, xs,
              static_cast<double>(blob.size()) / xs / 1e9, ss,
              static_cast<double>(blob.size()) / ss / 1e9);
  std::filesystem::remove(file);
  return 0;
}
