// Names (entities.h, kind name): Chinese patterns, then English runs of
// capitalised words.
#include <unicode/uchar.h>

#include <algorithm>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "text/entities/entity_scanner.h"
#include "text/pipeline/segmenter.h"
#include "text/pipeline/stopwords.h"

namespace mnemo::text::internal {
namespace {

bool Contains(std::string_view set, std::string_view piece) {
  return !piece.empty() && set.find(piece) != std::string_view::npos;
}

bool StartsWithAt(std::string_view s, size_t pos, std::string_view prefix) {
  return pos <= s.size() && s.substr(pos).starts_with(prefix);
}

// ---------------------------------------------------------------------------
// Chinese

// Characters that end a name read forward after 我叫 or backward before 先生:
// verbs, particles and pronouns that follow or precede names ("我叫张伟，今年",
// "见到了王先生").
constexpr std::string_view kNameStops =
    "是的在和了我你他她它们住来从也就很喜今年岁现目主负做天后去到要会说跟与同见给找问请位个对向"
    "这那";

// Single-character surnames, the most common ones (a name read backward
// before 先生/女士/小姐 must start with one).
constexpr std::string_view kSurnames =
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕"
    "丁"
    "任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武"
    "戴"
    "莫孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯"
    "纪"
    "梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪"
    "简"
    "车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师仇栾隋商刁沙荣巫寇桑郎甄"
    "丛"
    "仲虞敖巩佘池查麻苑迟邝";

constexpr std::string_view kCompoundSurnames[] = {"欧阳", "司马", "上官", "诸葛", "东方", "慕容",
                                                  "令狐", "皇甫", "尉迟", "公孙", "长孙", "夏侯",
                                                  "独孤", "宇文", "端木", "西门", "南宫", "司徒"};

// Who 和X一起 is with when X is not a name.
constexpr std::string_view kNotNamesZh[] = {
    "我们", "你们", "他们", "她们", "大家", "家人", "朋友", "同事", "同学",   "孩子",  "老婆",
    "老公", "妈妈", "爸爸", "父母", "团队", "别人", "客户", "老板", "女朋友", "男朋友"};

constexpr std::string_view kPronounStarts = "我你他她它";

constexpr std::string_view kForwardTriggers[] = {"我叫", "名字是", "名字叫"};
constexpr std::string_view kTitles[] = {"先生", "女士", "小姐"};
constexpr std::string_view kTogether = "一起";
constexpr std::string_view kConnectors = "和跟与";

// Opening and closing marks of quoted names, and whether the quote is the
// general-purpose “”, which counts only around or next to CJK text.
struct QuotePair {
  std::string_view open;
  std::string_view close;
  bool needs_cjk;
};
constexpr QuotePair kQuotes[] = {
    {"\xE3\x80\x8C", "\xE3\x80\x8D", false},  // 「」
    {"\xE3\x80\x8E", "\xE3\x80\x8F", false},  // 『』
    {"\xE3\x80\x8A", "\xE3\x80\x8B", false},  // 《》
    {"\xE2\x80\x9C", "\xE2\x80\x9D", true},   // “”
};
constexpr size_t kMaxQuotedCodePoints = 30;

bool IsCompoundSurnameAt(std::string_view t, size_t pos) {
  return std::any_of(std::begin(kCompoundSurnames), std::end(kCompoundSurnames),
                     [&](std::string_view s) { return StartsWithAt(t, pos, s); });
}

bool IsNameLetter(int32_t cp) {
  return cp >= 0 && !IsCjk(cp) &&
         (IsAsciiAlpha(cp) || (cp >= 0x80 && (u_isalpha(cp) || (U_GET_GC_MASK(cp) & U_GC_M_MASK))));
}

bool IsUpperStart(int32_t cp) { return cp >= 0 && (u_isupper(cp) || u_istitle(cp)); }

// A Latin word at `pos`: its end (letters, and ' or - between letters).
size_t LatinWordEnd(const EntityScanner& s, size_t pos) {
  size_t p = pos;
  for (;;) {
    const Cp c = s.CpAt(p);
    if (IsNameLetter(c.cp)) {
      p += c.len;
      continue;
    }
    if ((c.cp == '\'' || c.cp == '-' || c.cp == 0x2019) && p > pos &&
        IsNameLetter(s.CpAt(p + c.len).cp)) {
      p += c.len;
      continue;
    }
    return p;
  }
}

// Latin words at `pos` ("Sarah Chen"): the first one capitalised unless
// `any_case`, the others capitalised, one space apart. Returns the end, or
// `pos`.
size_t LatinNameEnd(const EntityScanner& s, size_t pos, bool any_case) {
  if (!any_case && !IsUpperStart(s.CpAt(pos).cp)) return pos;
  size_t end = LatinWordEnd(s, pos);
  if (end == pos) return pos;
  while (s.At(end) == ' ' && IsUpperStart(s.CpAt(end + 1).cp)) {
    const size_t next = LatinWordEnd(s, end + 1);
    if (next == end + 1) break;
    end = next;
  }
  return end;
}

// A name read forward after 我叫/名字是: Latin words, or 2-3 Han
// characters (4 with a compound surname) up to a stop character.
size_t ForwardNameEnd(const EntityScanner& s, size_t pos) {
  const Cp first = s.CpAt(pos);
  if (IsAsciiAlpha(first.cp)) return LatinNameEnd(s, pos, true);
  if (!IsCjk(first.cp)) return pos;
  const size_t limit = IsCompoundSurnameAt(s.text(), pos) ? 4 : 3;
  size_t p = pos;
  size_t count = 0;
  while (count < limit) {
    const Cp c = s.CpAt(p);
    if (!IsCjk(c.cp) || Contains(kNameStops, s.text().substr(p, c.len))) break;
    p += c.len;
    ++count;
  }
  return count >= 2 ? p : pos;
}

void ScanForwardNames(EntityScanner& s) {
  const std::string_view t = s.text();
  for (std::string_view trigger : kForwardTriggers) {
    for (size_t at = t.find(trigger); at != std::string_view::npos; at = t.find(trigger, at + 1)) {
      size_t p = at + trigger.size();
      if (s.At(p) == ' ') ++p;
      const size_t end = ForwardNameEnd(s, p);
      if (end > p && s.IsFree(p, end)) s.Add(EntityKind::kName, p, end);
    }
  }
}

// X先生, X女士, X小姐: X is the longest run of at most 3 Han characters
// before the title that starts with a surname, or a capitalised Latin word.
void ScanTitledNames(EntityScanner& s) {
  const std::string_view t = s.text();
  for (std::string_view title : kTitles) {
    for (size_t at = t.find(title); at != std::string_view::npos; at = t.find(title, at + 1)) {
      const Cp before = s.CpBefore(at);
      if (IsAsciiAlpha(before.cp)) {
        size_t b = at;
        while (b > 0 && IsAsciiAlpha(t[b - 1])) --b;
        if (IsAsciiUpper(t[b]) && s.IsFree(b, at)) s.Add(EntityKind::kName, b, at);
        continue;
      }
      std::vector<size_t> starts;  // starts[k]: where the name of k + 1 characters starts
      size_t p = at;
      while (starts.size() < 3) {
        const Cp c = s.CpBefore(p);
        if (!IsCjk(c.cp) || Contains(kNameStops, t.substr(p - c.len, c.len))) break;
        p -= c.len;
        starts.push_back(p);
      }
      for (size_t n = starts.size(); n > 0; --n) {
        const size_t b = starts[n - 1];
        const bool compound = IsCompoundSurnameAt(t, b);
        if (!compound && !Contains(kSurnames, t.substr(b, s.CpAt(b).len))) continue;
        // A bare surname keeps its title: "王先生", not "王".
        const bool bare = (compound && n == 2) || (!compound && n == 1);
        const size_t end = bare ? at + title.size() : at;
        if (s.IsFree(b, end)) s.Add(EntityKind::kName, b, end);
        break;
      }
    }
  }
}

bool IsNotNameZh(std::string_view x) {
  if (Contains(kPronounStarts, x.substr(0, 3))) return true;
  return std::any_of(std::begin(kNotNamesZh), std::end(kNotNamesZh),
                     [&](std::string_view w) { return x == w; });
}

// 和X一起, 跟X一起, 与X一起.
void ScanCompanions(EntityScanner& s) {
  const std::string_view t = s.text();
  for (size_t at = t.find(kTogether); at != std::string_view::npos;
       at = t.find(kTogether, at + 1)) {
    size_t p = at;
    size_t han = 0;
    bool latin = false;
    bool connected = false;
    constexpr size_t kMaxLatinBytes = 40;
    while (p > 0) {
      const Cp c = s.CpBefore(p);
      const std::string_view piece = t.substr(p - c.len, c.len);
      if (Contains(kConnectors, piece) && c.len == 3) {
        connected = true;
        break;
      }
      if (IsCjk(c.cp) && !latin && han < 4) {
        ++han;
      } else if ((IsAsciiAlpha(c.cp) || c.cp == ' ') && han == 0 && at - p < kMaxLatinBytes) {
        latin = true;
      } else {
        break;
      }
      p -= c.len;
    }
    if (!connected) continue;
    size_t end = at;
    if (latin) {
      while (p < end && t[p] == ' ') ++p;
      while (end > p && t[end - 1] == ' ') --end;
    }
    if (p == end) continue;
    const std::string_view x = t.substr(p, end - p);
    bool ok = false;
    if (latin) {
      ok = LatinNameEnd(s, p, false) == end;
    } else {
      ok = han >= 2 && !IsNotNameZh(x);
    }
    if (ok && s.IsFree(p, end)) s.Add(EntityKind::kName, p, end);
  }
}

bool IsTerminalPunctuation(int32_t cp) {
  return cp == '.' || cp == '!' || cp == '?' || cp == ';' || cp == 0x3002 || cp == 0xFF01 ||
         cp == 0xFF1F || cp == 0xFF1B;
}

void ScanQuoted(EntityScanner& s) {
  const std::string_view t = s.text();
  for (const QuotePair& q : kQuotes) {
    for (size_t at = t.find(q.open); at != std::string_view::npos; at = t.find(q.open, at + 1)) {
      const size_t begin = at + q.open.size();
      size_t p = begin;
      bool cjk = false;
      bool closed = false;
      bool blank = true;
      for (size_t n = 0; n <= kMaxQuotedCodePoints && p < t.size(); ++n) {
        if (StartsWithAt(t, p, q.close)) {
          closed = true;
          break;
        }
        const Cp c = s.CpAt(p);
        if (StartsWithAt(t, p, q.open) || IsTerminalPunctuation(c.cp) || c.cp == '\n' ||
            c.cp == '\r') {
          break;
        }
        cjk = cjk || IsCjk(c.cp);
        blank = blank && IsSpace(c.cp);
        p += c.len;
      }
      if (!closed || blank) continue;
      if (q.needs_cjk) {
        cjk = cjk || IsCjk(s.CpBefore(at).cp) || IsCjk(s.CpAt(p + q.close.size()).cp);
        if (!cjk) continue;
      }
      if (s.IsFree(begin, p)) s.Add(EntityKind::kName, begin, p);
    }
  }
}

// ---------------------------------------------------------------------------
// English

// Capitalised words that are not names, beyond the stop words: days,
// months, greetings and sentence openers.
constexpr std::string_view kNotNamesEn[] = {
    "monday",   "tuesday",   "wednesday", "thursday", "friday",   "saturday", "sunday",
    "january",  "february",  "march",     "april",    "may",      "june",     "july",
    "august",   "september", "october",   "november", "december", "hi",       "hello",
    "hey",      "thanks",    "thank",     "dear",     "yes",      "yeah",     "yep",
    "nope",     "ok",        "okay",      "sure",     "sorry",    "great",    "good",
    "well",     "however",   "maybe",     "perhaps",  "let",      "note",     "today",
    "tomorrow", "yesterday", "now",       "still",    "actually", "anyway",   "finally",
    "first",    "next",      "last",      "hmm",      "oh",       "wow",      "cool",
    "nice",     "fine",      "done",      "btw",      "fyi",      "etc",      "see",
    "use",      "also",      "yet",       "every",    "many",     "much",     "never"};

constexpr std::string_view kTitlesEn[] = {"mr", "mrs", "ms", "dr", "prof"};

std::string AsciiLower(std::string_view word) {
  std::string out(word);
  for (char& c : out) c = LowerAscii(c);
  return out;
}

bool InList(std::string_view lowered, std::span<const std::string_view> list) {
  return std::any_of(list.begin(), list.end(), [&](std::string_view w) { return lowered == w; });
}

class EnglishNames {
 public:
  explicit EnglishNames(EntityScanner& s) : s_(s) {}

  void Run() {
    const std::string_view t = s_.text();
    size_t pos = 0;
    while (pos < t.size()) {
      const Cp c = s_.CpAt(pos);
      if (IsNameLetter(c.cp) || IsAsciiDigit(c.cp)) {
        pos = Word(pos);
        continue;
      }
      if (c.cp == ' ' && ++spaces_ == 1) {
        pos += c.len;
        continue;
      }
      Flush();
      if (IsTerminalPunctuation(c.cp) || c.cp == ':' || c.cp == 0xFF1A || c.cp == '\n' ||
          c.cp == '\r') {
        sentence_start_ = true;
      } else if (IsCjk(c.cp)) {
        sentence_start_ = false;
      }
      pos += c.len;
    }
    Flush();
  }

 private:
  // Handles the word at `pos`; returns its end.
  size_t Word(size_t pos) {
    const std::string_view t = s_.text();
    size_t end = LatinWordEnd(s_, pos);
    // Letters and digits glued together ("Area51", "3rd") are not names.
    bool digits = false;
    while (end < t.size() && IsAsciiDigit(t[end])) {
      digits = true;
      end = LatinWordEnd(s_, end + 1);
    }
    size_t name_end = end;
    bool possessive = false;
    for (std::string_view suffix : {std::string_view("'s"), std::string_view("\xE2\x80\x99s")}) {
      if (name_end - pos > suffix.size() && t.substr(pos, name_end - pos).ends_with(suffix)) {
        name_end -= suffix.size();
        possessive = true;
        break;
      }
    }
    const std::string_view word = t.substr(pos, name_end - pos);
    const std::string lowered = AsciiLower(word);
    const bool at_start = sentence_start_;
    sentence_start_ = false;
    const bool after_title = title_pending_;
    title_pending_ = false;

    // "Mr", "Dr" as written ("MS Word" is not a title).
    if (InList(lowered, kTitlesEn) && IsAsciiUpper(word[0]) &&
        word.substr(1) == lowered.substr(1)) {
      Flush();
      title_pending_ = true;
      // "Mr." does not end the sentence.
      return s_.At(end) == '.' ? end + 1 : end;
    }
    const bool capitalised = !digits && IsUpperStart(s_.CpAt(pos).cp) && HasLower(pos, name_end);
    const bool function_word = IsStopWord(lowered) || InList(lowered, kNotNamesEn);
    if (!capitalised || function_word || !s_.IsFree(pos, name_end)) {
      Flush();
      return end;
    }
    if (run_words_ > 0 && spaces_ != 1) Flush();
    if (run_words_ == 0) {
      run_begin_ = pos;
      run_at_start_ = at_start;
      run_after_title_ = after_title;
    }
    ++run_words_;
    run_end_ = name_end;
    spaces_ = 0;
    if (possessive) Flush();
    return end;
  }

  // A lower-case letter in [begin, end).
  bool HasLower(size_t begin, size_t end) const {
    for (size_t p = begin; p < end;) {
      const Cp c = s_.CpAt(p);
      if (c.cp >= 0 && u_islower(c.cp)) return true;
      p += c.len;
    }
    return false;
  }

  void Flush() {
    if (run_words_ >= 2 || (run_words_ == 1 && (!run_at_start_ || run_after_title_))) {
      if (s_.IsFree(run_begin_, run_end_)) s_.Add(EntityKind::kName, run_begin_, run_end_);
    }
    run_words_ = 0;
    spaces_ = 0;
  }

  EntityScanner& s_;
  bool sentence_start_ = true;
  bool title_pending_ = false;
  size_t spaces_ = 0;  // single spaces since the run's last word
  size_t run_words_ = 0;
  size_t run_begin_ = 0;
  size_t run_end_ = 0;
  bool run_at_start_ = false;
  bool run_after_title_ = false;
};

}  // namespace

void ScanNames(EntityScanner& scanner) {
  ScanForwardNames(scanner);
  ScanTitledNames(scanner);
  ScanCompanions(scanner);
  ScanQuoted(scanner);
  EnglishNames(scanner).Run();
}

}  // namespace mnemo::text::internal
