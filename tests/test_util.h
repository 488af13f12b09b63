// Small helpers shared by tests: temporary folders that clean up after
// themselves. No fixed paths, no global state.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

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

}  // namespace mnemo::testing
