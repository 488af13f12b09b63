// Numbers with units (entities.h, kind quantity).
#include <algorithm>
#include <string_view>

#include "text/entities/entity_scanner.h"

namespace mnemo::text::internal {
namespace {

// Units of two or more ASCII letters, lower-case, matched case-insensitively
// against the whole letter run after the number ("5 minutes" is not "5 min").
constexpr std::string_view kWordUnits[] = {
    // time
    "ns", "ms", "sec", "secs", "second", "seconds", "min", "mins", "minute", "minutes", "hr", "hrs",
    "hour", "hours", "day", "days", "wk", "wks", "week", "weeks", "month", "months", "yr", "yrs",
    "year", "years",
    // data and rates
    "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib", "byte", "bytes", "bit", "bits",
    "kbps", "mbps", "gbps", "hz", "khz", "mhz", "ghz", "fps", "rpm", "qps", "rps", "tokens",
    // length, speed, weight, volume, power, screens
    "mm", "cm", "km", "mi", "mile", "miles", "ft", "feet", "foot", "inch", "inches", "meter",
    "meters", "metre", "metres", "kilometer", "kilometers", "kilometre", "kilometres", "km/h",
    "m/s", "mph", "kph", "kg", "mg", "lb", "lbs", "oz", "gram", "grams", "kilogram", "kilograms",
    "ton", "tons", "tonne", "tonnes", "ml", "liter", "liters", "litre", "litres", "kw", "kwh",
    "mah", "px", "dpi",
    // money
    "usd", "eur", "gbp", "cny", "rmb", "jpy", "dollar", "dollars", "euro", "euros", "cent", "cents",
    "yuan", "bucks"};

// One-letter units, case-sensitive, only glued to the number ("5s", "3x",
// "10k"): with a space they are too often a word ("2 s", "5 m away").
constexpr std::string_view kLetterUnits = "smhdgkKMBLx";

// Glued or after one space.
constexpr std::string_view kSymbolUnits[] = {"%", "％", "‰", "°C", "°F", "°", "℃", "℉", "µs", "μs"};

// Chinese units; the longest match wins (个小时 over 小时). 月 and 日 are not
// units: after a number they name a month or a day ("3月", "5日").
constexpr std::string_view kCjkUnits[] = {
    "个小时", "小时", "分钟", "秒钟", "毫秒", "秒",   "天",   "周",   "星期", "个星期", "个月",
    "年",     "岁",   "公里", "千米", "米",   "厘米", "毫米", "英里", "公斤", "千克",   "克",
    "斤",     "吨",   "升",   "毫升", "元",   "块钱", "块",   "美元", "欧元", "英镑",   "日元",
    "万元",   "亿元", "万",   "亿",   "度",   "倍",   "字节", "兆"};

constexpr std::string_view kYearUnit = "年";

constexpr std::string_view kCurrencySigns[] = {"$", "€", "£", "¥", "￥", "₹"};

bool StartsWithAt(std::string_view s, size_t pos, std::string_view prefix) {
  return pos <= s.size() && s.substr(pos).starts_with(prefix);
}

bool IsIdentByte(char c) { return IsAsciiAlnum(c) || c == '_'; }

// A number at `pos` (an ASCII digit): digits, ',' + 3 digits groups, an
// optional '.' + digits. Returns its end.
size_t ParseNumber(std::string_view t, size_t pos) {
  size_t p = pos;
  while (p < t.size() && IsAsciiDigit(t[p])) ++p;
  while (p + 3 < t.size() && t[p] == ',' && IsAsciiDigit(t[p + 1]) && IsAsciiDigit(t[p + 2]) &&
         IsAsciiDigit(t[p + 3]) && (p + 4 == t.size() || !IsAsciiDigit(t[p + 4]))) {
    p += 4;
  }
  if (p + 1 < t.size() && t[p] == '.' && IsAsciiDigit(t[p + 1])) {
    ++p;
    while (p < t.size() && IsAsciiDigit(t[p])) ++p;
  }
  return p;
}

// Whether nothing word-like follows at `pos`.
bool EndsWord(const EntityScanner& s, size_t pos) {
  return !IsIdentByte(s.At(pos)) && !IsForeignWordChar(s.CpAt(pos).cp);
}

// The end of the unit at `pos`, or 0. `glued`: no space before it.
size_t MatchUnit(const EntityScanner& s, size_t pos, bool glued) {
  const std::string_view t = s.text();
  if (pos >= t.size()) return 0;
  if (IsAsciiAlpha(t[pos])) {
    size_t run = pos;
    while (run < t.size() && IsAsciiAlpha(t[run])) ++run;
    size_t longer = run;  // "km/h", "m/s"
    if (s.At(run) == '/' && IsAsciiAlpha(s.At(run + 1))) {
      longer = run + 1;
      while (longer < t.size() && IsAsciiAlpha(t[longer])) ++longer;
    }
    for (size_t end : {longer, run}) {
      if (!EndsWord(s, end)) continue;
      const std::string_view word = t.substr(pos, end - pos);
      if (word.size() == 1) {
        if (glued && kLetterUnits.find(word[0]) != std::string_view::npos) return end;
        continue;
      }
      for (std::string_view unit : kWordUnits) {
        if (unit.size() == word.size() && StartsWithNoCase(word, 0, unit)) return end;
      }
    }
    return 0;
  }
  for (std::string_view unit : kSymbolUnits) {
    if (StartsWithAt(t, pos, unit)) return pos + unit.size();
  }
  size_t best = 0;
  for (std::string_view unit : kCjkUnits) {
    if (unit.size() > best && StartsWithAt(t, pos, unit)) best = unit.size();
  }
  return best == 0 ? 0 : pos + best;
}

// The end of the quantity whose number is [begin, number_end), or 0.
size_t QuantityEnd(const EntityScanner& s, size_t begin, size_t number_end) {
  const std::string_view t = s.text();
  size_t end = MatchUnit(s, number_end, true);
  if (end == 0 && s.At(number_end) == ' ') end = MatchUnit(s, number_end + 1, false);
  if (end == 0) return 0;
  // "2024年" is a year, not a duration.
  const bool four_digits =
      number_end - begin == 4 && std::all_of(t.begin() + static_cast<std::ptrdiff_t>(begin),
                                             t.begin() + static_cast<std::ptrdiff_t>(number_end),
                                             [](char c) { return IsAsciiDigit(c); });
  if (four_digits && t.substr(end - kYearUnit.size(), kYearUnit.size()) == kYearUnit) return 0;
  return end;
}

// After a currency amount: "$5k", "$2M", "$3B", "$1bn".
size_t MultiplierEnd(const EntityScanner& s, size_t pos) {
  if (StartsWithAt(s.text(), pos, "bn") && EndsWord(s, pos + 2)) return pos + 2;
  const char c = s.At(pos);
  if ((c == 'k' || c == 'K' || c == 'M' || c == 'B') && EndsWord(s, pos + 1)) return pos + 1;
  return pos;
}

// "$30", "€ 9.99", "$5k": returns the end, or 0.
size_t CurrencyEnd(const EntityScanner& s, size_t pos) {
  const std::string_view t = s.text();
  for (std::string_view sign : kCurrencySigns) {
    if (!StartsWithAt(t, pos, sign)) continue;
    size_t n = pos + sign.size();
    if (s.At(n) == ' ') ++n;
    if (!IsAsciiDigit(s.At(n))) return 0;
    const size_t end = MultiplierEnd(s, ParseNumber(t, n));
    return EndsWord(s, end) ? end : 0;
  }
  return 0;
}

}  // namespace

void ScanQuantities(EntityScanner& s) {
  const std::string_view t = s.text();
  size_t i = 0;
  while (i < t.size()) {
    if (s.IsTaken(i)) {
      ++i;
      continue;
    }
    const char before = i > 0 ? t[i - 1] : ' ';
    const bool boundary =
        !IsIdentByte(before) && before != '.' && !IsForeignWordChar(s.CpBefore(i).cp);
    if (boundary && !IsAsciiDigit(t[i])) {
      const size_t end = CurrencyEnd(s, i);
      if (end != 0 && s.IsFree(i, end)) {
        s.Add(EntityKind::kQuantity, i, end);
        i = end;
        continue;
      }
    }
    if (!IsAsciiDigit(t[i])) {
      ++i;
      continue;
    }
    const size_t number_end = ParseNumber(t, i);
    if (boundary) {
      const size_t end = QuantityEnd(s, i, number_end);
      if (end != 0 && s.IsFree(i, end)) {
        s.Add(EntityKind::kQuantity, i, end);
        i = end;
        continue;
      }
    }
    i = number_end;
  }
}

}  // namespace mnemo::text::internal
