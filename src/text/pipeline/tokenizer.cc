#include "text/pipeline/tokenizer.h"

#include <string>

#include "text/pipeline/normalizer.h"
#include "text/pipeline/segmenter.h"
#include "text/utf8.h"

namespace mnemo::text {
namespace {

inline bool IsAsciiAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

class IndexVisitor : public SegmentVisitor {
 public:
  IndexVisitor(std::string_view text, const TokenSink& sink, CjkSingles singles,
               const TermGate* gate)
      : text_(text), sink_(sink), singles_(singles), gate_(gate) {}

  bool WantsCjkWords() const override { return singles_ == CjkSingles::kEmit; }

  void OnWord(int32_t start, int32_t end) override {
    if (GatedOut(Slice(start, end))) return;
    NormalizeWord(Slice(start, end), &word_);
    if (!Emit(word_, start, end, false)) return;
    if (!ContainsArabic(word_)) return;
    bool with_article = false;
    const size_t prefix = ArabicPrefixLength(word_, &with_article);
    if (prefix == 0) return;
    const std::string_view rest = std::string_view(word_).substr(prefix);
    Emit(rest, start, end, true);
    if (with_article) {
      alt_.assign(kArabicArticle);
      alt_.append(rest);
      Emit(alt_, start, end, true);
    }
  }

  void OnIdentifier(int32_t start, int32_t end) override {
    if (!GatedOut(Slice(start, end))) {
      FoldWord(Slice(start, end), &word_);
      if (!Emit(word_, start, end, false)) return;
    }
    for (int32_t i = start; i < end;) {
      if (!IsAsciiAlnum(text_[i])) {
        ++i;
        continue;
      }
      int32_t j = i;
      while (j < end && IsAsciiAlnum(text_[j])) ++j;
      if (!GatedOut(Slice(i, j))) {
        NormalizeWord(Slice(i, j), &alt_);
        Emit(alt_, i, j, true);
      }
      i = j;
    }
  }

  void OnCjkRun(std::span<const int32_t> cps, std::span<const int32_t> bounds) override {
    const size_t n = cps.size() - 1;
    if (n == 1) {
      FoldWord(Slice(cps[0], cps[1]), &word_);
      Emit(word_, cps[0], cps[1], false);
      return;
    }
    if (singles_ == CjkSingles::kEmit) {
      MarkSingles(cps, bounds);
    } else {
      single_.assign(n, 0);
    }
    for (size_t i = 0; i + 1 < n; ++i) {
      const std::string_view bigram = Slice(cps[i], cps[i + 2]);
      if (gate_ != nullptr && !gate_->MayStartTerm(bigram) && IsFoldInertCjk(bigram)) {
        emitted_any_ = true;  // left out, as emitted (its token is itself, never empty)
      } else {
        FoldWord(bigram, &word_);
        if (!Emit(word_, cps[i], cps[i + 2], false)) continue;
      }
      for (size_t c = i; c <= i + 1; ++c) {
        if (!single_[c] || (c == i + 1 && c != n - 1)) continue;
        FoldWord(Slice(cps[c], cps[c + 1]), &alt_);
        Emit(alt_, cps[c], cps[c + 1], true);
      }
    }
  }

 private:
  std::string_view Slice(int32_t start, int32_t end) const {
    return text_.substr(start, end - start);
  }

  // Whether the gate rules out the word `raw` (non-empty, its token then too):
  // counted as emitted, so the colocated flags of the tokens after it stay the same.
  bool GatedOut(std::string_view raw) {
    if (gate_ == nullptr || raw.empty() || !IsAscii(raw) || gate_->MayBecomeTerm(raw)) {
      return false;
    }
    emitted_any_ = true;
    return true;
  }

  // Returns false (and emits nothing) for an empty token. The first token
  // is never colocated: a colocated token with nothing before it is emitted
  // as a plain one.
  bool Emit(std::string_view token, int32_t start, int32_t end, bool colocated) {
    if (token.empty()) return false;
    sink_(TokenView{token, start, end, colocated && emitted_any_});
    emitted_any_ = true;
    return true;
  }

  // single_[i]: code point i is a whole ICU word by itself.
  void MarkSingles(std::span<const int32_t> cps, std::span<const int32_t> bounds) {
    single_.assign(cps.size() - 1, 0);
    size_t c = 0;
    for (size_t b = 0; b + 1 < bounds.size(); ++b) {
      while (c + 1 < cps.size() && cps[c] < bounds[b]) ++c;
      if (c + 1 < cps.size() && cps[c] == bounds[b] && cps[c + 1] == bounds[b + 1]) single_[c] = 1;
    }
  }

  std::string_view text_;
  const TokenSink& sink_;
  const CjkSingles singles_;
  const TermGate* gate_;
  std::string word_;
  std::string alt_;
  std::vector<char> single_;
  bool emitted_any_ = false;
};

}  // namespace

TermGate::TermGate(const std::vector<std::string>& terms) {
  for (const std::string& term : terms) {
    if (term.empty()) continue;
    uint32_t& shortest = shortest_[static_cast<unsigned char>(term.front())];
    const auto size = static_cast<uint32_t>(term.size());
    if (shortest == 0 || size < shortest) shortest = size;
    if (term.size() >= 3) {
      const uint32_t key = CjkKey(term);
      cjk_first_[key / 64] |= uint64_t{1} << (key % 64);
    }
  }
}

void Tokenize(std::string_view text, const TokenSink& sink, CjkSingles singles,
              const TermGate* gate) {
  std::string storage;
  const std::string_view prepared = PrepareText(text, &storage);
  IndexVisitor visitor(prepared, sink, singles, gate);
  WalkSegments(prepared, visitor);
}

std::vector<std::string> TokenizeToStrings(std::string_view text) {
  std::vector<std::string> out;
  Tokenize(text, [&out](const TokenView& t) { out.emplace_back(t.text); });
  return out;
}

int32_t DocumentLength(std::string_view text) {
  int32_t n = 0;
  Tokenize(text, [&n](const TokenView& t) { n += t.colocated ? 0 : 1; });
  return n;
}

}  // namespace mnemo::text
