#include "text/trim.h"

#include "text/utf8.h"

namespace mnemo::text {

std::string_view TrimWhiteSpace(std::string_view s) {
  size_t pos = 0;
  size_t begin = s.size();
  size_t end = 0;
  while (pos < s.size()) {
    const CodePoint c = DecodeAt(s, pos);
    if (!IsWhiteSpace(c.cp)) {
      if (begin == s.size()) begin = pos;
      end = pos + c.len;
    }
    pos += c.len;
  }
  return begin < end ? s.substr(begin, end - begin) : std::string_view();
}

}  // namespace mnemo::text
