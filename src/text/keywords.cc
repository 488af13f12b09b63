#include "text/keywords.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <queue>
#include <unordered_map>
#include <utility>

#include "text/pipeline/normalizer.h"
#include "text/pipeline/segmenter.h"
#include "text/pipeline/stopwords.h"
#include "text/utf8.h"

namespace mnemo::text {
namespace {

// Keys longer than this are not taken for JSON keys: real keys are short, and
// the bound keeps the scan linear on text full of quotes.
constexpr size_t kMaxJsonKeyBytes = 128;

// Runs of single CJK characters longer than this are not put back together
// into one keyword: four covers idioms and transliterated names (阿|特|拉|斯),
// longer runs are text the dictionary did not know at all.
constexpr size_t kMaxSingleRun = 4;

bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool IsJsonSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Byte spans of the JSON object keys of `text`, quotes included, in order.
// Every string literal is skipped whole (escapes included), so a value that
// holds `"x":` is not mistaken for a key.
std::vector<ByteSpan> FindJsonKeys(std::string_view text) {
  std::vector<ByteSpan> keys;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] != '"') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    bool closed = false;
    while (j < text.size() && j - i <= kMaxJsonKeyBytes && text[j] != '\n') {
      if (text[j] == '\\') {
        j += 2;
        continue;
      }
      if (text[j] == '"') {
        closed = true;
        break;
      }
      ++j;
    }
    if (!closed) {
      ++i;
      continue;
    }
    size_t before = i;
    while (before > 0 && IsJsonSpace(text[before - 1])) --before;
    size_t after = j + 1;
    while (after < text.size() && IsJsonSpace(text[after])) ++after;
    const bool opens = before > 0 && (text[before - 1] == '{' || text[before - 1] == ',');
    if (opens && after < text.size() && text[after] == ':') {
      keys.push_back({static_cast<int32_t>(i), static_cast<int32_t>(j + 1)});
    }
    i = j + 1;
  }
  return keys;
}

// At least 2 code points, letters, marks and numbers only (no punctuation,
// symbol or space), not starting with a digit: "2024", "3" and "16gb" are
// numbers and measurements, which entities report (quantities).
bool IsKeywordShaped(std::string_view token) {
  size_t count = 0;
  for (size_t pos = 0; pos < token.size(); ++count) {
    int32_t cp;
    pos += static_cast<size_t>(DecodeUtf8(token, pos, &cp));
    if (cp < 0) return false;
    const uint32_t mask = U_GET_GC_MASK(cp);
    if ((mask & (U_GC_L_MASK | U_GC_M_MASK | U_GC_N_MASK)) == 0) return false;
    if (count == 0 && (mask & U_GC_ND_MASK) != 0) return false;
  }
  return count >= 2;
}

// "'s" and "’s" (U+2019) of English possessives.
void StripPossessive(std::string* word) {
  for (std::string_view suffix : {std::string_view("'s"), std::string_view("\xE2\x80\x99s")}) {
    if (word->size() > suffix.size() && word->ends_with(suffix)) {
      word->resize(word->size() - suffix.size());
      return;
    }
  }
}

struct Candidate {
  std::string display;
  std::vector<std::string> df_tokens;  // df = the smallest df of these
  int64_t tf = 0;
};

class KeywordVisitor : public SegmentVisitor {
 public:
  KeywordVisitor(std::string_view text, std::vector<ByteSpan> json_keys)
      : text_(text), json_keys_(std::move(json_keys)) {}

  void OnWord(int32_t start, int32_t end) override {
    if (InJsonKey(start)) return;
    AddWord(Slice(start, end), /*possessive=*/true);
  }

  void OnIdentifier(int32_t start, int32_t end) override {
    if (InJsonKey(start)) return;
    for (int32_t i = start; i < end;) {
      if (!IsAsciiAlnum(text_[i])) {
        ++i;
        continue;
      }
      int32_t j = i;
      while (j < end && IsAsciiAlnum(text_[j])) ++j;
      AddWord(Slice(i, j), /*possessive=*/false);
      i = j;
    }
  }

  // ICU's dictionary splits many words into single characters (数据|库,
  // 优|化); see TopKeywords for how they are put back together.
  void OnCjkRun(std::span<const int32_t> cps, std::span<const int32_t> bounds) override {
    words_.clear();
    size_t c = 0;  // index into cps of the current word's first code point
    for (size_t b = 0; b + 1 < bounds.size(); ++b) {
      while (c + 1 < cps.size() && cps[c] < bounds[b]) ++c;
      size_t next = c;
      while (next + 1 < cps.size() && cps[next] < bounds[b + 1]) ++next;
      if (next == c) continue;
      FoldWord(Slice(cps[c], cps[next]), &folded_);
      const bool stop = folded_.empty() || IsStopWord(folded_) || InJsonKey(cps[c]);
      words_.push_back({.first = c, .last = next, .stop = stop});
    }
    for (size_t w = 0; w < words_.size();) {
      if (words_[w].stop) {
        ++w;
        continue;
      }
      if (Length(w) > 1) {
        // A lone single character right after a word joins it (数据|库).
        const size_t last = IsLoneSingle(w + 1) ? words_[w + 1].last : words_[w].last;
        AddCjk(cps, words_[w].first, last);
        w += last == words_[w].last ? 1 : 2;
        continue;
      }
      size_t end = w;  // one past the run of single characters
      while (end < words_.size() && !words_[end].stop && Length(end) == 1) ++end;
      const size_t run = end - w;
      if (run == 1 && end < words_.size() && !words_[end].stop) {
        // A lone single character with no word before it joins the next (库|数据).
        AddCjk(cps, words_[w].first, words_[end].last);
        w = end + 1;
        continue;
      }
      if (run >= 2 && run <= kMaxSingleRun) AddCjk(cps, words_[w].first, words_[end - 1].last);
      w = end;
    }
  }

  std::vector<Candidate> Take() && { return std::move(candidates_); }

 private:
  std::string_view Slice(int32_t start, int32_t end) const {
    return text_.substr(start, end - start);
  }

  struct CjkWord {
    size_t first = 0;  // index of its first code point in the run
    size_t last = 0;   // one past its last
    bool stop = false;
  };

  size_t Length(size_t w) const { return words_[w].last - words_[w].first; }

  // words_[w] is a non-stop single character not followed by another one.
  bool IsLoneSingle(size_t w) const {
    if (w >= words_.size() || words_[w].stop || Length(w) != 1) return false;
    return w + 1 == words_.size() || words_[w + 1].stop || Length(w + 1) != 1;
  }

  // The code points [first, last) of a CJK run as one keyword; its document
  // frequency is its bigrams' smallest.
  void AddCjk(std::span<const int32_t> cps, size_t first, size_t last) {
    FoldWord(Slice(cps[first], cps[last]), &folded_);
    if (folded_.empty() || IsStopWord(folded_)) return;
    if (!IsKeywordShaped(folded_)) return;
    std::vector<std::string> bigrams;
    for (size_t i = first; last - first > 2 && i + 2 <= last; ++i) {
      FoldWord(Slice(cps[i], cps[i + 2]), &alt_);
      if (!alt_.empty()) bigrams.push_back(alt_);
    }
    if (bigrams.empty()) bigrams.push_back(folded_);
    Count(folded_, folded_, std::move(bigrams));
  }

  // json_keys_ is sorted and tokens arrive in text order.
  bool InJsonKey(int32_t pos) {
    while (key_idx_ < json_keys_.size() && json_keys_[key_idx_].end <= pos) ++key_idx_;
    return key_idx_ < json_keys_.size() && json_keys_[key_idx_].start <= pos;
  }

  void AddWord(std::string_view word, bool possessive) {
    FoldWord(word, &folded_);
    if (folded_.empty() || IsStopWord(folded_)) return;  // "let's", "it's" whole
    if (possessive) StripPossessive(&folded_);
    if (IsStopWord(folded_)) return;
    if (!IsKeywordShaped(folded_)) return;
    alt_ = folded_;
    if (ContainsArabic(alt_)) {
      // The index emits the word without its article as well (tokenizer.h);
      // that form counts "الكتاب" and "بالكتاب" as one keyword.
      bool with_article = false;
      alt_.erase(0, ArabicPrefixLength(alt_, &with_article));
    } else {
      StemToken(&alt_);
      if (IsStopWord(alt_)) return;
    }
    Count(alt_, folded_, {alt_});
  }

  void Count(const std::string& key, const std::string& display,
             std::vector<std::string> df_tokens) {
    const auto [it, inserted] = index_.try_emplace(key, candidates_.size());
    if (inserted) {
      candidates_.push_back({.display = display, .df_tokens = std::move(df_tokens), .tf = 0});
    }
    ++candidates_[it->second].tf;
  }

  std::string_view text_;
  std::vector<ByteSpan> json_keys_;
  size_t key_idx_ = 0;
  std::vector<CjkWord> words_;
  std::string folded_;
  std::string alt_;
  std::unordered_map<std::string, size_t> index_;  // counting key -> candidates_
  std::vector<Candidate> candidates_;
};

double Idf(int64_t df, int64_t n_docs) {
  df = std::clamp<int64_t>(df, 0, n_docs);
  return std::log((static_cast<double>(n_docs) + 1.0) / (static_cast<double>(df) + 1.0)) + 1.0;
}

int64_t DocFreq(const Candidate& candidate, const DocFreqFn& df) {
  int64_t best = -1;
  for (const std::string& token : candidate.df_tokens) {
    const int64_t d = df(token);
    if (best < 0 || d < best) best = d;
  }
  return best;
}

}  // namespace

std::vector<std::string> TopKeywords(std::string_view text, size_t k, const DocFreqFn& df,
                                     int64_t n_docs) {
  if (k == 0) return {};
  std::string storage;
  const std::string_view prepared = PrepareText(text, &storage);
  KeywordVisitor visitor(prepared, FindJsonKeys(prepared));
  WalkSegments(prepared, visitor);
  std::vector<Candidate> candidates = std::move(visitor).Take();

  const bool use_idf = n_docs > 0 && df;
  // Highest tf first: once tf * (the largest possible idf) is below the k-th
  // best score so far, no later candidate can enter the top k, and the store
  // is not asked about it.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Candidate& a, const Candidate& b) { return a.tf > b.tf; });
  const double max_idf = use_idf ? Idf(0, n_docs) : 1.0;
  std::priority_queue<double, std::vector<double>, std::greater<>> best;  // the top k scores
  std::vector<std::pair<double, const Candidate*>> scored;
  for (const Candidate& candidate : candidates) {
    const auto tf = static_cast<double>(candidate.tf);
    if (best.size() == k && tf * max_idf < best.top()) break;
    const double score = use_idf ? tf * Idf(DocFreq(candidate, df), n_docs) : tf;
    scored.emplace_back(score, &candidate);
    best.push(score);
    if (best.size() > k) best.pop();
  }
  std::sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.second->display < b.second->display;
  });
  std::vector<std::string> out;
  for (size_t i = 0; i < scored.size() && i < k; ++i) out.push_back(scored[i].second->display);
  return out;
}

}  // namespace mnemo::text
