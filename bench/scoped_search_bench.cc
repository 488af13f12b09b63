// The cost of keyword statistics per caller (issue 17 item 7; run by hand):
//   scoped_search_bench [--entries N] [--mine N] [--queries N] [--dir DIR]
// Fills N entries of which `mine` are bob's and the rest alice's private
// ones, then times bob's KeywordSearch (his own and public entries: the
// statistics are counted over them) and an admin's (every entry: FTS5's own
// statistics) for a few two-word queries, and prints the mean of each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.h"
#include "storage/sqlite/sqlite_backend.h"
#include "text/pipeline/query.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

void Die(const mnemo::Status& s) {
  std::fprintf(stderr, "scoped_search_bench: %s\n", s.ToString().c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  int entries = 100000;
  int mine = 1000;
  int queries = 50;
  std::string dir = "/tmp/mnemo-scoped-search-bench";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--entries") entries = std::atoi(argv[i + 1]);
    if (a == "--mine") mine = std::atoi(argv[i + 1]);
    if (a == "--queries") queries = std::atoi(argv[i + 1]);
    if (a == "--dir") dir = argv[i + 1];
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  auto opened = mnemo::storage::internal::SqliteBackend::Open({.path = dir + "/mnemo.db"});
  if (!opened.ok()) Die(opened.status());
  mnemo::storage::internal::SqliteBackend& b = **opened;

  auto t = Clock::now();
  std::vector<mnemo::storage::EntryWrite> batch;
  for (int i = 0; i < entries; ++i) {
    // Every (entries / mine)-th entry is bob's, so his share is spread out.
    const bool bobs = mine > 0 && i % std::max(1, entries / mine) == 0;
    batch.push_back({.owner = bobs ? "bob" : "alice",
                     .key = "k" + std::to_string(i),
                     .content = mnemo::bench::SyntheticWords(i),
                     .now = 1});
    if (batch.size() == 5000 || i + 1 == entries) {
      if (auto r = b.entries().UpsertBatch(batch); !r.ok()) Die(r.status());
      batch.clear();
    }
  }
  std::printf("fill: %d entries (bob's: about %d) in %.0f ms\n", entries, mine, Ms(t));
  const std::vector<std::string> texts = {"billing w17", "deploy friday", "helix w4242",
                                          "rust invoice", "cargo w99"};
  for (const bool scoped : {true, false}) {
    mnemo::storage::KeywordQuery q{.limit = 20};
    q.filter.scope = scoped ? mnemo::storage::ReadScope{.all = false, .principal = "bob"}
                            : mnemo::storage::ReadScope{};
    double total = 0;
    int runs = 0;
    for (int n = 0; n < queries; ++n) {
      q.terms = mnemo::text::QueryTerms(texts[n % texts.size()]);
      t = Clock::now();
      auto hits = b.entries().KeywordSearch(q);
      total += Ms(t);
      ++runs;
      if (!hits.ok()) Die(hits.status());
    }
    std::printf("%s KeywordSearch: %.2f ms mean over %d queries\n",
                scoped ? "bob's (own + public)" : "admin's (every entry)", total / runs, runs);
  }
  return 0;
}
