// The cost of erasure on a SQLite store with many rows (run by hand):
//   erasure_bench [--entries N] [--turns N] [--dir DIR]
// Fills N entries and N turn rows (in sessions of 20 rows), then times one
// memory.forget (EntryStore::Delete: the row and its FTS5 row), the 'optimize'
// rewrite of entries_fts that hygiene runs after it (CompactEntryIndex), and
// one EraseSession (20 turn rows, turns_fts optimised).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_util.h"
#include "storage/sqlite/sqlite_backend.h"

namespace {

using Clock = std::chrono::steady_clock;

double Ms(Clock::time_point since) {
  return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

void Die(const mnemo::Status& s) {
  std::fprintf(stderr, "erasure_bench: %s\n", s.ToString().c_str());
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  int entries = 100000;
  int turns = 100000;
  std::string dir = "/tmp/mnemo-erasure-bench";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--entries") entries = std::atoi(argv[i + 1]);
    if (a == "--turns") turns = std::atoi(argv[i + 1]);
    if (a == "--dir") dir = argv[i + 1];
  }
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/mnemo.db";
  auto opened = mnemo::storage::internal::SqliteBackend::Open({.path = path});
  if (!opened.ok()) Die(opened.status());
  mnemo::storage::internal::SqliteBackend& b = **opened;

  auto t = Clock::now();
  std::vector<mnemo::storage::EntryWrite> batch;
  for (int i = 0; i < entries; ++i) {
    batch.push_back(
        {.key = "k" + std::to_string(i), .content = mnemo::bench::SyntheticWords(i), .now = 1});
    if (batch.size() == 5000 || i + 1 == entries) {
      if (auto r = b.entries().UpsertBatch(batch); !r.ok()) Die(r.status());
      batch.clear();
    }
  }
  std::printf("fill: %d entries in %.0f ms\n", entries, Ms(t));
  t = Clock::now();
  constexpr int kRowsPerSession = 20;
  for (int s = 0; s * kRowsPerSession < turns; ++s) {
    std::vector<mnemo::storage::TurnWrite> rows(kRowsPerSession);
    for (int r = 0; r < kRowsPerSession; ++r) {
      rows[r].row.session_id = "s" + std::to_string(s);
      rows[r].row.role = r % 2 == 0 ? "user" : "assistant";
      rows[r].row.content = mnemo::bench::SyntheticWords(s * kRowsPerSession + r);
      rows[r].search_text = rows[r].row.content;
    }
    if (auto r = b.episodic().AppendTurns(rows); !r.ok()) Die(r.status());
  }
  std::printf("fill: %d turn rows in %.0f ms\n", turns, Ms(t));

  auto entry = b.entries().FindExact("local", mnemo::Namespace::Parse("global").value(),
                                     mnemo::Key::Parse("k12345").value());
  if (!entry.ok() || !*entry) Die(mnemo::Internal("entry k12345 missing"));
  t = Clock::now();
  if (auto r = b.entries().Delete((*entry)->id); !r.ok()) Die(r.status());
  std::printf("memory.forget of 1 of %d entries: %.1f ms\n", entries, Ms(t));
  t = Clock::now();
  if (auto r = b.entries().CompactEntryIndex(); !r.ok()) Die(r);
  std::printf("CompactEntryIndex (hygiene) after it: %.1f ms\n", Ms(t));
  t = Clock::now();
  auto counts = b.admin().EraseSession(
      {.owner = "local", .session_id = mnemo::SessionId::Parse("s77").value()});
  if (!counts.ok()) Die(counts.status());
  std::printf("EraseSession of %lld of %d turn rows (turns_fts optimised): %.1f ms\n",
              static_cast<long long>(counts->turns), turns, Ms(t));
  opened->reset();
  std::printf("database: %.1f MiB\n",
              static_cast<double>(std::filesystem::file_size(path)) / (1024.0 * 1024.0));
  return 0;
}
