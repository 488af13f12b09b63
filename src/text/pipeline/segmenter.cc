#include "text/pipeline/segmenter.h"

#include <unicode/brkiter.h>
#include <unicode/uchar.h>
#include <unicode/utext.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>

#include "base/strings.h"
#include "text/utf8.h"

namespace mnemo::text {
namespace {

// Classes of ASCII bytes for the scanners below, one table lookup each.
enum ByteClass : uint8_t {
  kAlnum = 1,     // [0-9A-Za-z]
  kJoiner = 2,    // joins an identifier's parts: _ . / - @ : + # ~
  kWbLetter = 4,  // ICU 72's root rules class '@' with the letters (ALetter)
  kDigit = 8,
  kWordByte = 16,  // alphanumerics, '@' and '_' (ExtendNumLet joins them and itself)
};

constexpr std::array<uint8_t, 256> kByteClass = [] {
  std::array<uint8_t, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[c] = kAlnum | kDigit | kWordByte;
  for (int c = 'a'; c <= 'z'; ++c) {
    t[c] = kAlnum | kWbLetter | kWordByte;
    t[c - 'a' + 'A'] = kAlnum | kWbLetter | kWordByte;
  }
  for (const char c : std::string_view("_./-@:+#~")) t[static_cast<unsigned char>(c)] |= kJoiner;
  t['@'] |= kWbLetter | kWordByte;
  t['_'] |= kWordByte;
  return t;
}();

inline bool Is(unsigned char c, uint8_t classes) { return (kByteClass[c] & classes) != 0; }
inline bool IsAsciiAlnum(unsigned char c) { return Is(c, kAlnum); }

// A letter, digit or mark of a non-CJK script: glued to an ASCII run, it
// means the run is part of a larger word (not an identifier).
bool IsForeignWordChar(int32_t cp) {
  if (cp < 0x80 || IsCjk(cp)) return false;
  return u_isUAlphabetic(cp) || (U_GET_GC_MASK(cp) & (U_GC_M_MASK | U_GC_ND_MASK)) != 0;
}

int32_t CodePointBefore(std::string_view text, size_t pos) {
  const size_t start = mnemo::internal::Utf8SequenceStart(text, pos);
  int32_t cp;
  const int n = DecodeUtf8(text, start, &cp);
  return start + n == pos ? cp : -1;
}

int32_t CodePointAt(std::string_view text, size_t pos) {
  int32_t cp;
  DecodeUtf8(text, pos, &cp);
  return cp;
}

inline bool IsWbLetter(unsigned char c) { return Is(c, kWbLetter); }
inline bool IsAsciiDigit(unsigned char c) { return Is(c, kDigit); }
inline bool IsWordByte(unsigned char c) { return Is(c, kWordByte); }

// The prototype is built once; each thread clones it (building one loads and
// compiles rules, cloning is cheap).
std::unique_ptr<icu::BreakIterator> NewWordIterator() {
  static std::mutex mu;
  static icu::BreakIterator* prototype = [] {
    UErrorCode status = U_ZERO_ERROR;
    icu::BreakIterator* bi = icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status);
    if (U_FAILURE(status)) {
      delete bi;
      return static_cast<icu::BreakIterator*>(nullptr);
    }
    return bi;
  }();
  if (prototype == nullptr) return nullptr;
  std::lock_guard<std::mutex> lock(mu);
  return std::unique_ptr<icu::BreakIterator>(prototype->clone());
}

struct Context {
  std::unique_ptr<icu::BreakIterator> bi = NewWordIterator();
  std::vector<ByteSpan> ids;
  std::vector<int32_t> cps;
  std::vector<int32_t> bounds;
  std::string masked;
  bool in_use = false;
};

// ICU's word rules join a character to a CJK neighbour only through
// Extend, Format and ZWJ after it (WB4) and ExtendNumLet on either side of
// Katakana (WB13a/b).
bool JoinsCjk(int32_t cp) {
  if (cp < 0x80) return cp == '_';  // the one ASCII ExtendNumLet; none is Extend or Format
  const auto wb = static_cast<UWordBreakValues>(u_getIntPropertyValue(cp, UCHAR_WORD_BREAK));
  return wb == U_WB_EXTEND || wb == U_WB_FORMAT || wb == U_WB_ZWJ || wb == U_WB_EXTENDNUMLET;
}

// Copies `text` into *out with every CJK code point replaced by one of the
// same length that ICU's word rules treat as a lone separator (U+3001
// IDEOGRAPHIC COMMA, or U+1D300 for four-byte ones), so the break iterator
// steps over CJK runs without its dictionary. Byte offsets stay those of
// `text`, and so do the segments outside the runs: ICU breaks between a CJK
// character and its neighbours unless one of them joins it (JoinsCjk), and
// such text is refused. False (out unspecified) when the text holds no CJK
// or is refused.
bool MaskCjk(std::string_view text, std::string* out) {
  bool any = false;
  int32_t before = 0;  // the previous code point
  bool before_cjk = false;
  for (size_t i = 0; i < text.size();) {
    const auto [cp, n] = DecodeAt(text, i);
    const bool cjk = IsCjk(cp) && (n == 3 || n == 4);
    if ((cjk && i > 0 && JoinsCjk(before)) || (before_cjk && JoinsCjk(cp))) return false;
    if (cjk) {
      if (!any) out->assign(text);
      any = true;
      std::memcpy(out->data() + i, n == 3 ? "\xE3\x80\x81" : "\xF0\x9D\x8C\x80", n);
    }
    before = cp;
    before_cjk = cjk;
    i += n;
  }
  return any;
}

class Walker {
 public:
  Walker(std::string_view text, Context& ctx, SegmentVisitor& visitor)
      : text_(text), ctx_(ctx), v_(visitor) {}

  void Run() {
    ctx_.ids.clear();
    FindIdentifiers(text_, &ctx_.ids);
    UText ut = UTEXT_INITIALIZER;
    ascii_ = IsAscii(text_);
    bi_ = ascii_ ? nullptr : ctx_.bi.get();
    cjk_words_ = true;
    if (bi_ != nullptr) {
      std::string_view scanned = text_;
      if (!v_.WantsCjkWords() && MaskCjk(text_, &ctx_.masked)) {
        scanned = ctx_.masked;
        cjk_words_ = false;
      }
      UErrorCode status = U_ZERO_ERROR;
      utext_openUTF8(&ut, scanned.data(), static_cast<int64_t>(scanned.size()), &status);
      bi_->setText(&ut, status);
      if (U_FAILURE(status)) bi_ = nullptr;
      if (bi_ != nullptr) bi_->first();
    }
    prev_ = 0;
    while (!v_.Done() && Advance()) {
      ProcessSegment();
      prev_ = cur_;
    }
    utext_close(&ut);
  }

 private:
  // Moves to the next segment [prev_, cur_) with status_; false at the end.
  bool Advance() {
    const int32_t n = static_cast<int32_t>(text_.size());
    if (ascii_) {
      if (prev_ >= n) return false;
      bool word = false;
      cur_ = NextAsciiSegment(text_, prev_, &word);
      status_ = word ? UBRK_WORD_LETTER : UBRK_WORD_NONE;
      return true;
    }
    if (bi_ != nullptr) {
      cur_ = bi_->next();
      if (cur_ == icu::BreakIterator::DONE) return false;
      status_ = bi_->getRuleStatus();
      return true;
    }
    // Without ICU data: runs of word bytes (ASCII alphanumerics and any
    // non-ASCII) alternate with runs of separators.
    if (prev_ >= n) return false;
    auto word = [&](int32_t i) {
      const auto c = static_cast<unsigned char>(text_[i]);
      return IsAsciiAlnum(c) || c >= 0x80;
    };
    const bool is_word = word(prev_);
    cur_ = prev_ + 1;
    while (cur_ < n && word(cur_) == is_word) ++cur_;
    status_ = is_word ? UBRK_WORD_LETTER : UBRK_WORD_NONE;
    return true;
  }

  void ProcessSegment() {
    int32_t a = std::max(prev_, covered_);
    auto& ids = ctx_.ids;
    while (a < cur_) {
      while (id_idx_ < ids.size() && ids[id_idx_].end <= a) ++id_idx_;
      const bool has_id = id_idx_ < ids.size() && ids[id_idx_].start < cur_;
      const int32_t limit = has_id ? std::max(a, ids[id_idx_].start) : cur_;
      const int32_t cjk = ascii_ ? -1 : FindCjk(a, limit);
      if (cjk >= 0) {
        if (cjk > a) Plain(a, cjk);
        CjkRun(cjk);
        a = std::max(prev_, covered_);
        continue;
      }
      if (limit > a) Plain(a, limit);
      if (!has_id) break;
      v_.OnIdentifier(ids[id_idx_].start, ids[id_idx_].end);
      covered_ = ids[id_idx_].end;
      ++id_idx_;
      a = std::max(a, covered_);
    }
  }

  // Reports [a, b) of the current segment as a word when the segment is one.
  void Plain(int32_t a, int32_t b) {
    if (status_ < UBRK_WORD_NONE_LIMIT) return;
    if (a != prev_ || b != cur_) {
      // A piece cut out of a word next to an identifier: drop the ASCII
      // punctuation left at its edges ("naïve" from "naïve.x_y").
      while (a < b && static_cast<unsigned char>(text_[a]) < 0x80 &&
             !IsAsciiAlnum(static_cast<unsigned char>(text_[a]))) {
        ++a;
      }
      while (b > a && static_cast<unsigned char>(text_[b - 1]) < 0x80 &&
             !IsAsciiAlnum(static_cast<unsigned char>(text_[b - 1]))) {
        --b;
      }
      if (a == b) return;
    }
    v_.OnWord(a, b);
  }

  int32_t FindCjk(int32_t a, int32_t b) const {
    for (int32_t i = a; i < b;) {
      if (static_cast<unsigned char>(text_[i]) < 0xE3) {
        ++i;
        continue;
      }
      const CodePoint c = DecodeAt(text_, i);
      if (IsCjk(c.cp)) return i;
      i += static_cast<int32_t>(c.len);
    }
    return -1;
  }

  void CjkRun(int32_t start) {
    auto& cps = ctx_.cps;
    auto& bounds = ctx_.bounds;
    cps.clear();
    bounds.clear();
    const int32_t n = static_cast<int32_t>(text_.size());
    int32_t end = start;
    while (end < n) {
      const CodePoint c = DecodeAt(text_, end);
      if (!IsCjk(c.cp)) break;
      cps.push_back(end);
      end += static_cast<int32_t>(c.len);
    }
    cps.push_back(end);
    bounds.push_back(start);
    if (!cjk_words_ && bi_ != nullptr) {
      // ICU sees the run masked (MaskCjk), one separator a code point: the
      // first boundary at or after its end, without stepping through it.
      if (cur_ < end) {
        cur_ = bi_->following(end - 1);
        status_ = bi_->getRuleStatus();
      }
    } else {
      while (true) {
        if (cjk_words_ && cur_ > start && cur_ < end) bounds.push_back(cur_);
        if (cur_ >= end) break;
        prev_ = cur_;
        if (!Advance()) break;
      }
    }
    bounds.push_back(end);
    covered_ = end;
    v_.OnCjkRun(cps, bounds);
  }

  std::string_view text_;
  Context& ctx_;
  SegmentVisitor& v_;
  bool ascii_ = false;                // ASCII text: NextAsciiSegment, not ICU
  bool cjk_words_ = true;             // ICU's words inside CJK runs (dictionary)
  icu::BreakIterator* bi_ = nullptr;  // null: ICU unavailable, byte-class fallback
  int32_t prev_ = 0;
  int32_t cur_ = 0;
  int32_t status_ = 0;
  int32_t covered_ = 0;
  size_t id_idx_ = 0;
};

}  // namespace

bool IsCjkCharacter(std::string_view s) {
  int32_t cp;
  return !s.empty() && static_cast<size_t>(DecodeUtf8(s, 0, &cp)) == s.size() && IsCjk(cp);
}

bool IsCjk(int32_t cp) {
  if (cp < 0x3005) return false;
  if (cp <= 0x30FF) {
    if (cp <= 0x3007) return true;                  // 々 〆 〇
    if (cp >= 0x3021 && cp <= 0x3029) return true;  // Hangzhou numerals
    if (cp >= 0x3038 && cp <= 0x303B) return true;
    if (cp >= 0x3041 && cp <= 0x3096) return true;  // Hiragana
    if (cp >= 0x309D && cp <= 0x309F) return true;
    if (cp >= 0x30A1 && cp <= 0x30FF) return cp != 0x30FB;  // Katakana, not ・
    return false;
  }
  if (cp >= 0x31F0 && cp <= 0x31FF) return true;
  if (cp >= 0x3400 && cp <= 0x4DBF) return true;
  if (cp >= 0x4E00 && cp <= 0x9FFF) return true;
  if (cp >= 0xF900 && cp <= 0xFAFF) return true;
  if (cp >= 0xFF66 && cp <= 0xFF9F) return true;  // half-width Katakana
  if (cp >= 0x20000 && cp <= 0x323AF) return true;
  return false;
}

int32_t NextAsciiSegment(std::string_view text, int32_t pos, bool* is_word) {
  const int32_t n = static_cast<int32_t>(text.size());
  auto at = [&](int32_t i) { return i < n ? static_cast<unsigned char>(text[i]) : 0; };
  *is_word = false;
  const unsigned char c = at(pos);
  if (c == '\r') return at(pos + 1) == '\n' ? pos + 2 : pos + 1;  // WB3
  if (c == ' ') {                                                 // WB3d
    int32_t e = pos + 1;
    while (at(e) == ' ') ++e;
    return e;
  }
  if (!IsWordByte(c)) return pos + 1;                        // WB999 (WB3a/b for LF, VT, FF)
  if (c == '_' && !IsWordByte(at(pos + 1))) return pos + 1;  // a lone ExtendNumLet
  int32_t i = pos;                                           // the segment's last byte
  while (true) {
    const unsigned char x = at(i), y = at(i + 1);
    if (IsWordByte(y)) {  // WB5, WB8-10, WB13a/b
      ++i;
      continue;
    }
    const unsigned char z = at(i + 2);
    // WB6/7: letter (MidNumLet '.', Single_Quote) letter; WB11/12: digit
    // (MidNum ',' ';', MidNumLet, Single_Quote) digit.
    if ((y == '.' || y == '\'') &&
        ((IsWbLetter(x) && IsWbLetter(z)) || (IsAsciiDigit(x) && IsAsciiDigit(z)))) {
      i += 2;
      continue;
    }
    if ((y == ',' || y == ';') && IsAsciiDigit(x) && IsAsciiDigit(z)) {
      i += 2;
      continue;
    }
    break;
  }
  *is_word = true;
  return i + 1;
}

void FindIdentifiers(std::string_view text, std::vector<ByteSpan>* out) {
  const size_t n = text.size();
  auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  size_t i = 0;
  while (i < n) {
    if (!Is(byte(i), kAlnum | kJoiner)) {
      ++i;
      continue;
    }
    // The run [i, j) of alphanumerics and joiners; [s, e) is it without the
    // joiners at either end, and holds a joiner when one comes between two
    // alphanumerics.
    size_t j = i;
    size_t s = SIZE_MAX, e = 0;
    bool has_joiner = false, joiner_pending = false;
    for (; j < n; ++j) {
      const uint8_t c = kByteClass[byte(j)];
      if ((c & kAlnum) != 0) {
        if (s == SIZE_MAX) s = j;
        e = j + 1;
        has_joiner = has_joiner || joiner_pending;
      } else if ((c & kJoiner) != 0) {
        joiner_pending = s != SIZE_MAX;
      } else {
        break;
      }
    }
    if (s == SIZE_MAX) s = e = j;
    const size_t start = (s > i && byte(s - 1) == '/') ? s - 1 : s;
    bool ok = has_joiner && e - start <= static_cast<size_t>(kMaxIdentifierBytes);
    if (ok && start == i && i > 0 && byte(i - 1) >= 0x80) {
      ok = !IsForeignWordChar(CodePointBefore(text, i));
    }
    if (ok && e == j && j < n && byte(j) >= 0x80) {
      ok = !IsForeignWordChar(CodePointAt(text, j));
    }
    if (ok) out->push_back({static_cast<int32_t>(start), static_cast<int32_t>(e)});
    i = j;
  }
}

std::string_view PrepareText(std::string_view text, std::string* storage) {
  text = text.substr(0, mnemo::internal::Utf8CutBytes(text, INT32_MAX));
  if (IsValidUtf8(text)) return text;
  storage->assign(text);
  for (size_t i = 0; i < text.size();) {
    int32_t cp;
    const int len = DecodeUtf8(text, i, &cp);
    if (cp < 0) std::fill_n(storage->begin() + i, len, ' ');
    i += len;
  }
  return *storage;
}

void WalkSegments(std::string_view text, SegmentVisitor& visitor) {
  thread_local Context cached;
  if (!cached.in_use) {
    struct InUse {
      Context& ctx;
      explicit InUse(Context& c) : ctx(c) { ctx.in_use = true; }
      ~InUse() { ctx.in_use = false; }
    } guard(cached);
    Walker(text, cached, visitor).Run();
    return;
  }
  // Re-entered from a visitor on this thread: the cached context is busy.
  Context fresh;
  fresh.in_use = true;
  Walker(text, fresh, visitor).Run();
}

}  // namespace mnemo::text
