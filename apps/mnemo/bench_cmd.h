// `mnemo bench --dataset DIR`: the dataset benchmark of spec 20 on a folder
// made by ../shared/bench/datagen.py. Prints one JSON result line (the shared
// format of bench/README.md) on stdout.
#pragma once

#include <cstdint>
#include <string>

namespace mnemo::app {

struct BenchArgs {
  std::string dataset;    // folder with memories.jsonl and queries.jsonl
  std::string workspace;  // empty: a temporary folder, removed afterwards
  int64_t limit = 0;      // memories to load; 0 = all
  int64_t queries = 0;    // queries to run; 0 = all
  std::string backend = "sqlite";
  // The server of `--backend postgres` (default $MNEMO_POSTGRES_URL). Each
  // run uses a schema of its own, mnemo_bench_<pid>_<run> (with `workspace`:
  // mnemo_bench_w<hash of its path>_<run>, which `reuse` opens again), left
  // in the database afterwards (DROP SCHEMA ... CASCADE removes it).
  std::string postgres_url;
  // keyword (embedder none), hybrid (hash embedder), vector (the dataset's
  // vectors as bring-your-own embeddings) or all.
  std::string mode = "all";
  // With `workspace`: open what an earlier run left in <workspace>/<embedder>
  // and query it without importing (the open is timed: open_s).
  bool reuse = false;
  int64_t ef_search = 0;  // index.ef_search of the runs; 0 = the default
};

// Returns the process exit code (0 ok, 1 bad arguments or dataset, 2 internal).
int RunBenchCommand(const BenchArgs& args);

}  // namespace mnemo::app
