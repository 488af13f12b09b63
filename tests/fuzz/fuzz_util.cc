#include "fuzz_util.h"

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace mnemo::fuzz {

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "mnemo-fuzz-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) Fail("mkdtemp failed");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace mnemo::fuzz
