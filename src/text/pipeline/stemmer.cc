#include "text/pipeline/stemmer.h"

#include <libstemmer.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>

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

// Snowball takes about 0.3 µs a word and is most of tokenizing English;
// text repeats its words, so each thread remembers the stems of recent short
// words in a direct-mapped table (a slot holds the last word hashed to it).
class StemMemo {
 public:
  static constexpr size_t kSlots = 8192;       // 400 KB a thread
  static constexpr size_t kMaxWordBytes = 24;  // longer words are not kept

  class Slot {
   public:
    // The remembered stem when this slot holds `word`, copied into it; else 0.
    size_t Recall(char* word, size_t len) const {
      if (len_ != len || std::memcmp(word_.data(), word, len) != 0) return 0;
      std::memcpy(word, stem_.data(), stem_len_);
      return stem_len_;
    }

    void Keep(std::string_view word, std::string_view stem) {
      len_ = static_cast<uint8_t>(word.size());
      stem_len_ = static_cast<uint8_t>(stem.size());
      std::memcpy(word_.data(), word.data(), word.size());
      std::memcpy(stem_.data(), stem.data(), stem.size());
    }

   private:
    uint8_t len_ = 0;  // 0: empty (stemmed words have 3 bytes or more)
    uint8_t stem_len_ = 0;
    std::array<char, kMaxWordBytes> word_;
    std::array<char, kMaxWordBytes> stem_;
  };

  // The one slot `word` may live in (hashed once for the lookup and the
  // keeping); nullptr for a word too long to keep.
  Slot* SlotFor(const char* word, size_t len) {
    if (len > kMaxWordBytes) return nullptr;
    return &slots_[std::hash<std::string_view>()(std::string_view(word, len)) % kSlots];
  }

 private:
  std::array<Slot, kSlots> slots_{};
};

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
  // On the heap: as a thread_local object its 400 KB would be static TLS,
  // which glibc takes from every thread's stack in a program linking mnemo
  // (a thread asked with a 128 KB stack would not start). Out of memory: no memo.
  thread_local const std::unique_ptr<StemMemo> kMemo(new (std::nothrow) StemMemo());
  StemMemo::Slot* slot = kMemo != nullptr ? kMemo->SlotFor(word, len) : nullptr;
  if (slot != nullptr) {
    if (const size_t remembered = slot->Recall(word, len)) return remembered;
  }
  sb_stemmer* stemmer = English();
  if (stemmer == nullptr) return len;  // out of memory: the word unstemmed
  const sb_symbol* stem =
      sb_stemmer_stem(stemmer, reinterpret_cast<const sb_symbol*>(word), static_cast<int>(len));
  const int stem_len = sb_stemmer_length(stemmer);
  // Porter2 only removes or replaces endings; a stem is never longer.
  if (stem == nullptr || stem_len <= 0 || static_cast<size_t>(stem_len) > len) return len;
  if (slot != nullptr) {
    slot->Keep(std::string_view(word, len), std::string_view(reinterpret_cast<const char*>(stem),
                                                             static_cast<size_t>(stem_len)));
  }
  std::memcpy(word, stem, static_cast<size_t>(stem_len));
  return static_cast<size_t>(stem_len);
}

std::string Stem(std::string_view word) {
  std::string out(word);
  out.resize(StemInPlace(out.data(), out.size()));
  return out;
}

}  // namespace mnemo::text
