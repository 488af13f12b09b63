#include "text/snippet.h"

#include <algorithm>
#include <cstdint>

#include "text/pipeline/segmenter.h"
#include "text/pipeline/tokenizer.h"
#include "text/utf8.h"

namespace mnemo::text {
namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …
// How far (in code points) a cut end may move to land on a space.
constexpr size_t kBoundarySlack = 16;

struct Match {
  size_t cs;  // code point range in the content
  size_t ce;
  size_t term;
};

// Where each code point of (valid UTF-8) content starts, plus the end. ASCII
// content, most of it, needs no table: code point i is byte i.
class CodePoints {
 public:
  explicit CodePoints(std::string_view s) : ascii_(IsAscii(s)), n_(s.size()) {
    if (ascii_) return;
    offsets_.reserve(s.size() + 1);
    for (size_t i = 0; i < s.size(); ++i) {
      if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
        offsets_.push_back(static_cast<int32_t>(i));
      }
    }
    offsets_.push_back(static_cast<int32_t>(s.size()));
    n_ = offsets_.size() - 1;
  }
  // The number of code points.
  size_t size() const { return n_; }
  // Byte offset of code point `cp` (cp <= size()).
  int32_t Byte(size_t cp) const { return ascii_ ? static_cast<int32_t>(cp) : offsets_[cp]; }
  // Index of the code point starting at `byte` (or of the first after it).
  size_t Index(int32_t byte) const {
    if (ascii_) return static_cast<size_t>(byte);
    return std::lower_bound(offsets_.begin(), offsets_.end(), byte) - offsets_.begin();
  }

 private:
  bool ascii_;
  size_t n_;
  std::vector<int32_t> offsets_;
};

// Only a term of one CJK character can equal a CJK single-character token:
// without one, the tokenizer may skip them (and ICU's dictionary).
CjkSingles SinglesFor(const std::vector<std::string>& terms) {
  return std::any_of(terms.begin(), terms.end(),
                     [](const std::string& t) { return IsCjkCharacter(t); })
             ? CjkSingles::kEmit
             : CjkSingles::kSkip;
}

std::vector<Match> FindMatches(std::string_view content, const CodePoints& offsets,
                               const std::vector<std::string>& terms) {
  std::vector<Match> matches;
  if (terms.empty()) return matches;
  // Only tokens equal to a term count: the words none can come from are
  // neither folded nor stemmed (a search makes a snippet of each hit).
  const TermGate gate(terms);
  Tokenize(
      content,
      [&](const TokenView& t) {
        for (size_t i = 0; i < terms.size(); ++i) {
          if (terms[i] == t.text) {
            matches.push_back({offsets.Index(t.start), offsets.Index(t.end), i});
            break;
          }
        }
      },
      SinglesFor(terms), &gate);
  std::stable_sort(matches.begin(), matches.end(),
                   [](const Match& a, const Match& b) { return a.cs < b.cs; });
  return matches;
}

// The [first, last] range of matches fitting in `budget` code points with
// the most distinct terms (earliest on ties).
std::pair<size_t, size_t> BestWindow(const std::vector<Match>& m, size_t n_terms, size_t budget) {
  std::vector<size_t> counts(n_terms, 0);
  size_t distinct = 0, best = 0, best_l = 0, best_r = 0;
  size_t r = 0;
  for (size_t l = 0; l < m.size(); ++l) {
    if (r < l) r = l;
    while (r < m.size() && m[r].ce - m[l].cs <= budget) {
      if (counts[m[r].term]++ == 0) ++distinct;
      ++r;
    }
    if (r > l && distinct > best) {
      best = distinct;
      best_l = l;
      best_r = r - 1;
    }
    if (r > l && --counts[m[l].term] == 0) --distinct;
  }
  return {best_l, best_r};
}

bool IsSpaceAt(std::string_view s, const CodePoints& offsets, size_t cp) {
  const char c = s[offsets.Byte(cp)];
  return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

// Chooses [start, end) in code points: covers [cs, ce), fills max_chars
// counting the ellipses, prefers cuts at spaces.
std::pair<size_t, size_t> PlaceWindow(std::string_view s, const CodePoints& offsets, size_t cs,
                                      size_t ce, size_t max_chars) {
  const size_t n = offsets.size();
  const size_t budget = max_chars > 2 ? max_chars - 2 : 1;
  ce = std::min(ce, cs + budget);
  const size_t leftover = budget - (ce - cs);
  size_t start = cs - std::min(cs, leftover / 3);
  size_t end = std::min(n, start + budget);
  if (end - start < budget) start = end > budget ? end - budget : 0;
  // Give back the room of an ellipsis that is not needed.
  for (int pass = 0; pass < 2; ++pass) {
    const size_t room = max_chars - (start > 0 ? 1 : 0) - (end < n ? 1 : 0);
    if (end - start >= room) break;
    const size_t extra = room - (end - start);
    const size_t grow_end = std::min(extra, n - end);
    end += grow_end;
    start -= std::min(start, extra - grow_end);
  }
  if (start > 0) {
    for (size_t i = start; i < cs && i < start + kBoundarySlack; ++i) {
      if (IsSpaceAt(s, offsets, i)) {
        start = i + 1;
        break;
      }
    }
  }
  if (end < n) {
    for (size_t i = end; i > ce && i + kBoundarySlack > end; --i) {
      if (IsSpaceAt(s, offsets, i - 1)) {
        end = i - 1;
        break;
      }
    }
  }
  return {start, end};
}

std::string Passage(std::string_view content, const std::vector<std::string>& terms,
                    size_t max_chars, bool highlight) {
  if (max_chars == 0 || content.empty()) return {};
  std::string sanitized;
  if (!IsValidUtf8(content)) {
    sanitized = SanitizeUtf8(content);
    content = sanitized;
  }
  const CodePoints offsets(content);
  const size_t n = offsets.size();
  // Too small for an ellipsis and a match: a plain prefix.
  if (max_chars < 3 && n > max_chars) {
    return std::string(content.substr(0, offsets.Byte(max_chars)));
  }
  const std::vector<Match> matches = FindMatches(content, offsets, terms);

  size_t start = 0, end = std::min(n, max_chars);
  if (n > max_chars) {
    if (matches.empty()) {
      end = max_chars - 1;
      for (size_t i = end; i > 0 && i + kBoundarySlack > end; --i) {
        if (IsSpaceAt(content, offsets, i - 1)) {
          end = i - 1;
          break;
        }
      }
    } else {
      const size_t budget = max_chars > 2 ? max_chars - 2 : 1;
      const auto [l, r] = BestWindow(matches, terms.size(), budget);
      size_t ce = 0;
      for (size_t i = l; i <= r; ++i) ce = std::max(ce, matches[i].ce);
      std::tie(start, end) = PlaceWindow(content, offsets, matches[l].cs, ce, max_chars);
    }
  }

  // Highlight ranges inside the window, merged when they overlap or touch.
  std::vector<std::pair<size_t, size_t>> marks;
  for (const Match& m : highlight ? matches : std::vector<Match>()) {
    const size_t a = std::max(m.cs, start), b = std::min(m.ce, end);
    if (a >= b) continue;
    if (!marks.empty() && a <= marks.back().second) {
      marks.back().second = std::max(marks.back().second, b);
    } else {
      marks.emplace_back(a, b);
    }
  }
  auto bytes = [&](size_t from, size_t to) {
    return content.substr(offsets.Byte(from), offsets.Byte(to) - offsets.Byte(from));
  };
  std::string out;
  out.reserve(offsets.Byte(end) - offsets.Byte(start) + marks.size() * 4 + 2 * kEllipsis.size());
  if (start > 0) out.append(kEllipsis);
  size_t pos = start;
  for (const auto& [a, b] : marks) {
    out.append(bytes(pos, a));
    out.append("**");
    out.append(bytes(a, b));
    out.append("**");
    pos = b;
  }
  out.append(bytes(pos, end));
  if (end < n) out.append(kEllipsis);
  return out;
}

}  // namespace

std::string MakeSnippet(std::string_view content, const std::vector<std::string>& terms,
                        size_t max_chars) {
  return Passage(content, terms, max_chars, /*highlight=*/true);
}

std::string MakePassage(std::string_view content, const std::vector<std::string>& terms,
                        size_t max_chars) {
  return Passage(content, terms, max_chars, /*highlight=*/false);
}

bool MatchesAnyTerm(std::string_view content, const std::vector<std::string>& terms) {
  if (terms.empty() || content.empty()) return false;
  bool found = false;
  const TermGate gate(terms);
  Tokenize(
      content,
      [&](const TokenView& t) {
        if (!found && std::find(terms.begin(), terms.end(), t.text) != terms.end()) found = true;
      },
      SinglesFor(terms), &gate);
  return found;
}

}  // namespace mnemo::text
