#include "text/pipeline/normalizer.h"

#include <unicode/bytestream.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>

#include <cstdint>

#include "base/strings.h"
#include "text/pipeline/stemmer.h"
#include "text/utf8.h"

namespace mnemo::text {
namespace {

const icu::Normalizer2* NfkcCasefold() {
  // getNFKCCasefoldInstance returns a shared, immutable, thread-safe object.
  static const icu::Normalizer2* instance = [] {
    UErrorCode status = U_ZERO_ERROR;
    const icu::Normalizer2* n = icu::Normalizer2::getNFKCCasefoldInstance(status);
    return U_SUCCESS(status) ? n : nullptr;
  }();
  return instance;
}

void AsciiLower(std::string_view word, std::string* out) {
  out->resize(word.size());
  char* d = out->data();
  for (size_t i = 0; i < word.size(); ++i) {
    const char c = word[i];
    d[i] = (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  }
}

}  // namespace

bool IsFoldInertCjk(std::string_view word) {
  if (word.empty()) return false;
  for (size_t i = 0; i < word.size(); i += 3) {
    // Every code point of the ranges is three bytes.
    int32_t cp;
    if (!DecodeThreeByte(word, i, &cp)) return false;
    const bool inert = (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) ||
                       (cp >= 0x3041 && cp <= 0x3096) || (cp >= 0x30A1 && cp <= 0x30FA);
    if (!inert) return false;
  }
  return true;
}

bool ContainsArabic(std::string_view s) {
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0xD8 && b <= 0xDB) return true;
  }
  return false;
}

void CleanArabic(std::string* s) {
  std::string& str = *s;
  size_t w = 0;
  for (size_t r = 0; r < str.size();) {
    const auto b0 = static_cast<unsigned char>(str[r]);
    if ((b0 == 0xD8 || b0 == 0xD9) && r + 1 < str.size()) {
      const auto b1 = static_cast<unsigned char>(str[r + 1]);
      const char32_t cp = ((b0 & 0x1F) << 6) | (b1 & 0x3F);
      const bool drop = (cp >= 0x064B && cp <= 0x065F) || cp == 0x0670 || cp == 0x0640;
      if (!drop) {
        const bool hamza_alef = cp == 0x0622 || cp == 0x0623 || cp == 0x0625;
        str[w++] = static_cast<char>(b0);
        str[w++] = hamza_alef ? static_cast<char>(0xA7) : static_cast<char>(b1);
      }
      r += 2;
      continue;
    }
    str[w++] = str[r++];
  }
  str.resize(w);
}

void FoldWord(std::string_view word, std::string* out) {
  if (IsAscii(word)) {
    AsciiLower(word.substr(0, kMaxTokenBytes), out);
    return;
  }
  if (IsFoldInertCjk(word)) {
    out->assign(word.substr(0, mnemo::internal::Utf8CutBytes(word, kMaxTokenBytes)));
    return;
  }
  out->clear();
  const icu::Normalizer2* nfkc = NfkcCasefold();
  UErrorCode status = U_ZERO_ERROR;
  if (nfkc != nullptr) {
    icu::StringByteSink<std::string> sink(out, static_cast<int32_t>(word.size()));
    nfkc->normalizeUTF8(0, icu::StringPiece(word.data(), static_cast<int32_t>(word.size())), sink,
                        nullptr, status);
  }
  if (nfkc == nullptr || U_FAILURE(status)) AsciiLower(word, out);
  if (ContainsArabic(*out)) CleanArabic(out);
  if (out->size() > kMaxTokenBytes)
    out->resize(mnemo::internal::Utf8CutBytes(*out, kMaxTokenBytes));
}

void StemToken(std::string* token) { token->resize(StemInPlace(token->data(), token->size())); }

void NormalizeWord(std::string_view word, std::string* out) {
  FoldWord(word, out);
  StemToken(out);
}

size_t ArabicPrefixLength(std::string_view word, bool* with_article) {
  // Longest prefixes first, so that "بال" wins over a bare "ب"-less "ال".
  static constexpr std::string_view kLong[] = {
      "\xD8\xA8\xD8\xA7\xD9\x84",  // بال
      "\xD9\x88\xD8\xA7\xD9\x84",  // وال
      "\xD9\x83\xD8\xA7\xD9\x84",  // كال
      "\xD9\x81\xD8\xA7\xD9\x84",  // فال
  };
  static constexpr std::string_view kLil = "\xD9\x84\xD9\x84";  // لل
  *with_article = false;
  size_t len = 0;
  for (std::string_view p : kLong) {
    if (word.starts_with(p)) {
      len = p.size();
      *with_article = true;
      break;
    }
  }
  if (len == 0 && word.starts_with(kArabicArticle)) len = kArabicArticle.size();
  if (len == 0 && word.starts_with(kLil)) {
    len = kLil.size();
    *with_article = true;
  }
  if (len == 0 || CountCodePoints(word.substr(len)) < 2) {
    *with_article = false;
    return 0;
  }
  return len;
}

}  // namespace mnemo::text
