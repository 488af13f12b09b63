// The config loader (mnemo/config.h, spec 15) on any file text. Properties:
// LoadConfig returns a Config or a Status with a message (never throws,
// never crashes), and loading the same file again gives the same answer.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "fuzz_util.h"
#include "mnemo/config.h"

using mnemo::fuzz::Fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const mnemo::fuzz::ScratchDir dir;
  const std::string path = dir.path() + "/mnemo.toml";
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  const mnemo::ConfigSources sources{.file = path};
  auto first = mnemo::LoadConfig(sources);
  auto second = mnemo::LoadConfig(sources);
  if (first.ok() != second.ok()) Fail("loading the same file twice differs");
  if (!first.ok()) {
    if (first.status().message().empty()) Fail("an error without a message");
    if (first.status().message() != second.status().message()) Fail("errors differ");
  }
  return 0;
}
