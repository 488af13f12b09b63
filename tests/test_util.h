// Small helpers shared by tests: temporary folders that clean up after
// themselves, and a clock the test moves. No fixed paths, no global state.
#pragma once

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "mnemo/clock.h"

namespace mnemo::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "mnemo-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return path_ + "/" + name; }
  std::string File(const std::string& name) const { return Sub(name); }

 private:
  std::string path_;
};

// A clock that stands still until the test advances it.
class ManualClock final : public Clock {
 public:
  TimeMs NowMs() const override { return now_.load(); }
  void Advance(TimeMs ms) { now_ += ms; }

 private:
  std::atomic<TimeMs> now_{1795946400000};
};

}  // namespace mnemo::testing
