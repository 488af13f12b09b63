// Small helpers shared by the hand-run benchmarks: timing, percentiles,
// failing fast, and reading the dataset generator's JSONL.
#pragma once

#include <errno.h>  // program_invocation_short_name

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::bench {

using Clock = std::chrono::steady_clock;

inline double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// A synthetic text of 24 words for entry or turn number `i`: twelve of a
// dozen common words and twelve of 5 000 rarer ones ("w123"), so terms have
// a spread of document frequencies.
inline std::string SyntheticWords(int i) {
  static constexpr const char* kWords[] = {"billing", "deploy", "friday",  "postgres",
                                           "lisbon",  "editor", "helix",   "cargo",
                                           "review",  "backup", "invoice", "rust"};
  std::string out;
  for (int k = 0; k < 12; ++k) {
    out += kWords[(i * 7 + k * 3) % 12];
    out += " w" + std::to_string((i + k) % 5000) + " ";
  }
  return out;
}

// Nearest-rank percentile of `v` (p in [0, 1]); `v` must not be empty.
inline double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

// Exits with status 2 and "<program>: <what>: <status>" when `s` failed.
inline void Check(const Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, s.ToString().c_str());
    std::exit(2);
  }
}

// The value of a string field in one line of the generator's JSONL
// (minimal, for the generator's own output: `\n` becomes a newline, any
// other escaped character stands for itself).
inline std::string Field(const std::string& line, const std::string& name) {
  const std::string key = "\"" + name + "\": \"";
  size_t at = line.find(key);
  if (at == std::string::npos) return "";
  std::string out;
  for (size_t i = at + key.size(); i < line.size() && line[i] != '"'; ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      ++i;
      out += line[i] == 'n' ? '\n' : line[i];
    } else {
      out += line[i];
    }
  }
  return out;
}

}  // namespace mnemo::bench
