// The cleaner-spec parser and its steps (text/cleaner.h, spec 50). The first
// line of the input is the spec, the rest the tool output. Properties: Parse
// never fails other than with a Status; a parsed spec's canonical text parses
// to the same canonical text; Apply's result is valid UTF-8.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_util.h"
#include "text/cleaner.h"
#include "text/utf8.h"

using mnemo::fuzz::Fail;
using mnemo::text::Cleaner;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view spec = input.substr(0, newline);
  const std::string_view output =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  auto cleaner = Cleaner::Parse(spec);
  if (!cleaner.ok()) return 0;
  const std::string canonical = cleaner->ToJson();
  auto again = Cleaner::Parse(canonical);
  if (!again.ok()) Fail("canonical spec does not parse: " + again.status().ToString());
  if (again->ToJson() != canonical) Fail("canonical spec is not stable: " + canonical);
  if (auto cleaned = cleaner->Apply(output); cleaned.ok()) {
    if (!mnemo::text::IsValidUtf8(*cleaned)) Fail("Apply returned ill-formed UTF-8");
  }
  const auto fallback = cleaner->CleanOrFallback(output);
  if (fallback.failed && fallback.text != output) Fail("a failed cleaner must return the output");
  return 0;
}
