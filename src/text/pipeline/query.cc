#include "text/pipeline/query.h"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "base/strings.h"
#include "text/pipeline/normalizer.h"
#include "text/pipeline/segmenter.h"
#include "text/pipeline/stopwords.h"

namespace mnemo::text {
namespace {

inline bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

class QueryVisitor : public SegmentVisitor {
 public:
  explicit QueryVisitor(std::string_view text) : text_(text) {}

  void OnWord(int32_t start, int32_t end) override {
    FoldWord(Slice(start, end), &folded_);
    bool stop = IsStopWord(folded_);
    if (ContainsArabic(folded_)) {
      bool with_article = false;
      const size_t prefix = ArabicPrefixLength(folded_, &with_article);
      Add(std::string_view(folded_).substr(prefix), stop);
      return;
    }
    StemToken(&folded_);
    Add(folded_, stop || IsStopWord(folded_));
  }

  void OnIdentifier(int32_t start, int32_t end) override {
    FoldWord(Slice(start, end), &folded_);
    Add(folded_, false);
    for (int32_t i = start; i < end;) {
      if (!IsAsciiAlnum(text_[i])) {
        ++i;
        continue;
      }
      int32_t j = i;
      while (j < end && IsAsciiAlnum(text_[j])) ++j;
      NormalizeWord(Slice(i, j), &folded_);
      Add(folded_, false);
      i = j;
    }
  }

  // Stop words are dropped first; the remaining words that touch form one
  // chunk, which gives its character bigrams (a 1-character chunk: the
  // character). Chunking makes the terms independent of where the segmenter
  // cut inside the chunk ("服务器" is 服务|器 to ICU, "服务器上的" still gives
  // 服务, 务器), as the index's bigrams are.
  void OnCjkRun(std::span<const int32_t> cps, std::span<const int32_t> bounds) override {
    size_t c = 0;             // index into cps of the current word's first code point
    size_t chunk = SIZE_MAX;  // first code point of the open chunk
    for (size_t b = 0; b + 1 < bounds.size(); ++b) {
      while (c + 1 < cps.size() && cps[c] < bounds[b]) ++c;
      size_t next = c;  // index of the code point after the word
      while (next < cps.size() - 1 && cps[next] < bounds[b + 1]) ++next;
      FoldWord(Slice(bounds[b], bounds[b + 1]), &folded_);
      if (!IsStopWord(folded_)) {
        if (chunk == SIZE_MAX) chunk = c;
        continue;
      }
      if (chunk != SIZE_MAX) AddBigrams(cps, chunk, c, false);
      chunk = SIZE_MAX;
      AddBigrams(cps, c, next, true);
    }
    if (chunk != SIZE_MAX) AddBigrams(cps, chunk, cps.size() - 1, false);
  }

  bool Done() const override { return content_count_ >= kMaxQueryTerms; }

  std::vector<std::string> Take() && {
    std::vector<std::string> out;
    const bool keep_stop = content_count_ == 0;
    for (auto& [term, stop] : terms_) {
      if ((!stop || keep_stop) && out.size() < kMaxQueryTerms) out.push_back(std::move(term));
    }
    return out;
  }

 private:
  std::string_view Slice(int32_t start, int32_t end) const {
    return text_.substr(start, end - start);
  }

  // Terms of the code points [first, last) of a CJK run.
  void AddBigrams(std::span<const int32_t> cps, size_t first, size_t last, bool stop) {
    if (last - first == 1) {
      FoldWord(Slice(cps[first], cps[last]), &folded_);
      Add(folded_, stop);
      return;
    }
    for (size_t i = first; i + 1 < last; ++i) {
      FoldWord(Slice(cps[i], cps[i + 2]), &folded_);
      Add(folded_, stop);
    }
  }

  void Add(std::string_view term, bool stop) {
    if (term.empty()) return;
    for (auto& [existing, existing_stop] : terms_) {
      if (existing != term) continue;
      if (existing_stop && !stop) {
        existing_stop = false;
        ++content_count_;
      }
      return;
    }
    if (stop ? stop_count_ >= kMaxQueryTerms : content_count_ >= kMaxQueryTerms) return;
    terms_.emplace_back(std::string(term), stop);
    ++(stop ? stop_count_ : content_count_);
  }

  std::string_view text_;
  std::string folded_;
  std::vector<std::pair<std::string, bool>> terms_;  // term, is a stop word
  size_t content_count_ = 0;
  size_t stop_count_ = 0;
};

}  // namespace

std::string_view QueryText(std::string_view query) {
  return query.substr(0, mnemo::internal::Utf8CutBytes(query, kMaxQueryReadBytes));
}

std::vector<std::string> QueryTerms(std::string_view query) {
  query = QueryText(query);
  std::string storage;
  const std::string_view prepared = PrepareText(query, &storage);
  QueryVisitor visitor(prepared);
  WalkSegments(prepared, visitor);
  return std::move(visitor).Take();
}

}  // namespace mnemo::text
