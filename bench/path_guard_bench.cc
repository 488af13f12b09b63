// memory.path_protected latency on a workspace with many archive files
// (issue 17, item 9): a path outside the workspace with one name (no walk),
// a hard link to the last archive file (a full walk that finds it at the
// end) and a hard link between two of the user's files (a full walk that
// finds nothing).
//
//   path_guard_bench [--files N]   (default 100000)
//
// Prints one JSON line. Not a test: run by hand on an idle machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "mnemo/engine.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double MedianMs(const std::vector<double>& runs) {
  std::vector<double> sorted = runs;
  std::sort(sorted.begin(), sorted.end());
  return sorted[sorted.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  int files = 100000;
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::string(argv[i]) == "--files") files = std::atoi(argv[i + 1]);
  }
  const fs::path root =
      fs::temp_directory_path() / ("mnemo-path-bench-" + std::to_string(getpid()));
  const fs::path ws = root / "ws";
  const fs::path out = root / "out";
  fs::create_directories(out);
  mnemo::Config config;
  config.embedding.provider = "none";
  auto engine = mnemo::Engine::Open({.workspace = ws.string(), .config = config});
  if (!engine.ok()) {
    std::fprintf(stderr, "path_guard_bench: %s\n", engine.status().ToString().c_str());
    return 2;
  }
  // Archive files as the Archivist lays them out: 1 000 per session folder.
  fs::path last;
  for (int i = 0; i < files; ++i) {
    const fs::path dir = ws / "memory_tree/content/episodic" / ("s" + std::to_string(i / 1000));
    if (i % 1000 == 0) fs::create_directories(dir);
    last = dir / (std::to_string(i % 1000) + ".md");
    std::ofstream(last) << "user: turn " << i << "\n";
  }
  std::ofstream(out / "plain.txt") << "mine";
  std::ofstream(out / "mine.txt") << "mine";
  fs::create_hard_link(out / "mine.txt", out / "mine-too.txt");
  fs::create_hard_link(last, out / "archive-link.md");

  const mnemo::Principal me;
  auto time = [&](const fs::path& p, bool expect) {
    std::vector<double> runs;
    for (int round = 0; round < 5; ++round) {
      const auto t = Clock::now();
      auto r = (*engine)->admin().PathProtected(me, p.string());
      runs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t).count());
      if (!r.ok() || r->is_protected != expect) {
        std::fprintf(stderr, "path_guard_bench: wrong answer for %s\n", p.c_str());
        std::exit(2);
      }
    }
    return MedianMs(runs);
  };
  const double plain = time(out / "plain.txt", false);
  const double linked = time(out / "archive-link.md", true);
  const double unlinked = time(out / "mine-too.txt", false);
  std::printf(
      "{\"archive_files\": %d, \"one_name_ms\": %.3f, \"hard_link_to_archive_ms\": %.1f, "
      "\"hard_link_no_match_ms\": %.1f}\n",
      files, plain, linked, unlinked);
  engine->reset();
  fs::remove_all(root);
  return 0;
}
