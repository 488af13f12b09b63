#include "text/stemmer.h"

#include <libstemmer.h>

#include <cstring>
#include <memory>

namespace mnemo::text {
namespace {

struct StemmerDeleter {
  void operator()(sb_stemmer* s) const { sb_stemmer_delete(s); }
};

// A Snowball stemmer keeps its work buffer inside: one per thread.
sb_stemmer* English() {
  thread_local const std::unique_ptr<sb_stemmer, StemmerDeleter> kStemmer(
      sb_stemmer_new("english", "UTF_8"));
  return kStemmer.get();
}

}  // namespace

bool IsStemmable(std::string_view s) {
  if (s.empty() || s.size() > kMaxStemmableLength) return false;
  for (char c : s) {
    if (c < 'a' || c > 'z') return false;
  }
  return true;
}

size_t StemInPlace(char* word, size_t len) {
  if (len < 3 || !IsStemmable(std::string_view(word, len))) return len;
  sb_stemmer* stemmer = English();
  if (stemmer == nullptr) return len;  // out of memory: the word unstemmed
  const sb_symbol* stem =
      sb_stemmer_stem(stemmer, reinterpret_cast<const sb_symbol*>(word), static_cast<int>(len));
  const int stem_len = sb_stemmer_length(stemmer);
  // Porter2 only removes or replaces endings; a stem is never longer.
  if (stem == nullptr || stem_len <= 0 || static_cast<size_t>(stem_len) > len) return len;
  std::memcpy(word, stem, static_cast<size_t>(stem_len));
  return static_cast<size_t>(stem_len);
}

std::string Stem(std::string_view word) {
  std::string out(word);
  out.resize(StemInPlace(out.data(), out.size()));
  return out;
}

}  // namespace mnemo::text
