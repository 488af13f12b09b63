#include "base/strings.h"

namespace mnemo::internal {
namespace {

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string_view Trim(std::string_view s, std::string_view chars) {
  const size_t begin = s.find_first_not_of(chars);
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(chars) - begin + 1);
}

size_t Utf8CutBytes(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return s.size();
  size_t cut = max_bytes;
  while (cut > 0 && IsContinuation(s[cut])) --cut;
  return cut;
}

size_t Utf8SuffixStart(std::string_view s, size_t max_bytes) {
  if (s.size() <= max_bytes) return 0;
  size_t start = s.size() - max_bytes;
  while (start < s.size() && IsContinuation(s[start])) ++start;
  return start;
}

size_t Utf8SequenceStart(std::string_view s, size_t end) {
  size_t start = end - 1;
  while (start > 0 && end - start < 4 && IsContinuation(s[start])) --start;
  return start;
}

}  // namespace mnemo::internal
