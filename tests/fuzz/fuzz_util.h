// Shared pieces of the fuzz targets (tests/fuzz/README.md).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace mnemo::fuzz {

// A property of the code under test does not hold: report and abort, so
// libFuzzer saves the input as a crash.
[[noreturn]] inline void Fail(std::string_view what) {
  std::fprintf(stderr, "fuzz property failed: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

// A private folder for a target's files, removed when the process exits.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace mnemo::fuzz
