#include "text/utf8.h"

#include <cstring>

namespace mnemo::text {
namespace {

inline bool IsCont(unsigned char b) { return (b & 0xC0) == 0x80; }

}  // namespace

int DecodeUtf8(std::string_view s, size_t pos, int32_t* cp) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data()) + pos;
  const size_t avail = s.size() - pos;
  const unsigned char b0 = p[0];
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  // The common well-formed two- and three-byte sequences first (every lead
  // byte but E0 and ED accepts any continuation byte second).
  if (b0 >= 0xC2 && b0 <= 0xDF && avail >= 2 && IsCont(p[1])) {
    *cp = ((b0 & 0x1F) << 6) | (p[1] & 0x3F);
    return 2;
  }
  if (DecodeThreeByte(s, pos, cp)) return 3;
  *cp = -1;
  int need;
  int32_t value;
  // The valid range of the second byte narrows for E0, ED, F0 and F4; this
  // is what rules out overlongs, surrogates and values above U+10FFFF.
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    value = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    value = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    value = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  for (int i = 1; i <= need; ++i) {
    if (static_cast<size_t>(i) >= avail) return i;
    const unsigned char b = p[i];
    if (i == 1 ? (b < lo || b > hi) : !IsCont(b)) return i;
    value = (value << 6) | (b & 0x3F);
  }
  *cp = value;
  return need + 1;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

bool IsAscii(std::string_view s) {
  size_t i = 0;
  const char* d = s.data();
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, d + i, 8);
    if (w & 0x8080808080808080ULL) return false;
  }
  for (; i < s.size(); ++i) {
    if (static_cast<unsigned char>(d[i]) >= 0x80) return false;
  }
  return true;
}

bool IsValidUtf8(std::string_view s) {
  size_t i = 0;
  const char* d = s.data();
  while (i < s.size()) {
    if (i + 8 <= s.size()) {
      uint64_t w;
      std::memcpy(&w, d + i, 8);
      if ((w & 0x8080808080808080ULL) == 0) {
        i += 8;
        continue;
      }
    }
    // A well-formed three-byte sequence (CJK text) without the call.
    int32_t cp;
    if (DecodeThreeByte(s, i, &cp)) {
      i += 3;
      continue;
    }
    const int n = DecodeUtf8(s, i, &cp);
    if (cp < 0) return false;
    i += n;
  }
  return true;
}

std::string SanitizeUtf8(std::string_view s) {
  if (IsValidUtf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 16);
  size_t i = 0;
  while (i < s.size()) {
    int32_t cp;
    const int n = DecodeUtf8(s, i, &cp);
    if (cp < 0) {
      out.append(kReplacementChar);
    } else {
      out.append(s.data() + i, n);
    }
    i += n;
  }
  return out;
}

size_t CountCodePoints(std::string_view s) {
  size_t count = 0;
  for (size_t i = 0; i < s.size();) {
    int32_t cp;
    i += DecodeUtf8(s, i, &cp);
    ++count;
  }
  return count;
}

size_t Utf8PrefixBytes(std::string_view s, size_t max_codepoints) {
  size_t i = 0;
  for (size_t n = 0; n < max_codepoints && i < s.size(); ++n) {
    int32_t cp;
    i += DecodeUtf8(s, i, &cp);
  }
  return i;
}

}  // namespace mnemo::text
