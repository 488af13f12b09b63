#include "text/secrets.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace mnemo::text {
namespace {

inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsLower(char c) { return c >= 'a' && c <= 'z'; }
inline bool IsUpper(char c) { return c >= 'A' && c <= 'Z'; }
inline bool IsAlnum(char c) { return IsDigit(c) || IsLower(c) || IsUpper(c); }
inline char Lower(char c) { return IsUpper(c) ? static_cast<char>(c + 32) : c; }
// Bytes of names and keys: the unit the scanner walks over.
inline bool IsRunChar(char c) { return IsAlnum(c) || c == '_' || c == '-'; }
// Bytes of bearer tokens, JWTs and base64.
inline bool IsTokenChar(char c) {
  return IsRunChar(c) || c == '.' || c == '~' || c == '+' || c == '/' || c == '=';
}
inline bool IsSpace(char c) { return c == ' ' || c == '\t'; }

bool StartsWithIgnoreCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (Lower(s[i]) != prefix[i]) return false;
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view s, std::string_view lower) {
  return s.size() == lower.size() && StartsWithIgnoreCase(s, lower);
}

struct Classes {
  bool digit = false, lower = false, upper = false, symbol = false;
  bool upper_after_first = false;
  size_t digits = 0;
};

Classes ClassesOf(std::string_view s) {
  Classes c;
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    if (IsDigit(ch)) {
      c.digit = true;
      ++c.digits;
    } else if (IsLower(ch)) {
      c.lower = true;
    } else if (IsUpper(ch)) {
      c.upper = true;
      c.upper_after_first |= i > 0;
    } else {
      c.symbol = true;
    }
  }
  return c;
}

// A token that is not a word of prose: a digit, or upper case inside it.
bool LooksGenerated(std::string_view s) {
  const Classes c = ClassesOf(s);
  return c.digit || (c.upper_after_first && c.lower);
}

double ShannonEntropy(std::string_view s) {
  std::array<int, 256> counts{};
  for (char c : s) ++counts[static_cast<unsigned char>(c)];
  double h = 0;
  for (int n : counts) {
    if (n == 0) continue;
    const double p = static_cast<double>(n) / static_cast<double>(s.size());
    h -= p * std::log2(p);
  }
  return h;
}

bool IsPlaceholder(std::string_view v) {
  if (v.starts_with(kRedacted) || v.starts_with("$") || v.starts_with("{{") ||
      v.starts_with("%(")) {
    return true;
  }
  if (v.find_first_not_of('*') == std::string_view::npos) return true;
  for (std::string_view word : {"null", "none", "nil", "true", "false", "undefined"}) {
    if (EqualsIgnoreCase(v, word)) return true;
  }
  return false;
}

class Scanner {
 public:
  explicit Scanner(std::string_view t) : t_(t) {}

  std::optional<SecretMatch> Next(size_t pos) {
    const size_t n = t_.size();
    size_t i = pos;
    while (i < n) {
      while (i < n && !IsRunChar(t_[i])) ++i;
      const size_t s = i;
      while (i < n && IsRunChar(t_[i])) ++i;
      if (s == i) break;
      if (auto m = CheckRun(s, i)) return m;
    }
    return std::nullopt;
  }

 private:
  std::optional<SecretMatch> CheckRun(size_t s, size_t e) {
    const std::string_view run = t_.substr(s, e - s);
    std::optional<SecretMatch> m;
    switch (Lower(run[0])) {
      case '-': m = Pem(s, run); break;
      case 'a': m = AwsKey(s, run); break;
      case 'b': m = Bearer(run, e); break;
      case 'g': m = GitHub(s, run); break;
      case 's': m = OpenAi(s, run); break;
      case 'x': m = Slack(s, run); break;
      default: break;
    }
    if (!m) m = AuthorizationHeader(run, e);
    if (!m) m = Assignment(run, e);
    if (!m && (e - s >= 32 || (e < t_.size() && (t_[e] == '+' || t_[e] == '/')))) {
      m = HighEntropy(s, e);
    }
    return m;
  }

  static SecretMatch Make(std::string_view kind, size_t start, size_t end) {
    return SecretMatch{kind, start, end};
  }

  std::optional<SecretMatch> Pem(size_t s, std::string_view run) const {
    if (!run.starts_with("-----BEGIN")) return std::nullopt;
    const size_t line_end = std::min(t_.find('\n', s), t_.size());
    const std::string_view line = t_.substr(s, line_end - s);
    const size_t key = line.find("PRIVATE KEY-----");
    if (key == std::string_view::npos || key > 64) return std::nullopt;
    size_t end = t_.size();
    const size_t end_marker = t_.find("-----END", s);
    if (end_marker != std::string_view::npos) {
      const size_t close = t_.find("PRIVATE KEY-----", end_marker);
      if (close != std::string_view::npos) end = close + 16;
    }
    return Make("private key block", s, end);
  }

  std::optional<SecretMatch> AwsKey(size_t s, std::string_view run) const {
    if (run.size() != 20 || !(run.starts_with("AKIA") || run.starts_with("ASIA"))) {
      return std::nullopt;
    }
    for (char c : run) {
      if (!IsUpper(c) && !IsDigit(c)) return std::nullopt;
    }
    return Make("AWS access key", s, s + run.size());
  }

  std::optional<SecretMatch> OpenAi(size_t s, std::string_view run) const {
    if (!run.starts_with("sk-") || run.size() < 23) return std::nullopt;
    const Classes c = ClassesOf(run.substr(3));
    if (!c.digit || !(c.lower || c.upper)) return std::nullopt;
    return Make("OpenAI-style API key", s, s + run.size());
  }

  std::optional<SecretMatch> GitHub(size_t s, std::string_view run) const {
    size_t prefix = 0, min_tail = 0;
    if (run.starts_with("github_pat_")) {
      prefix = 11;
      min_tail = 20;
    } else if (run.size() > 4 && run.starts_with("gh") && run[3] == '_' &&
               std::string_view("pousr").find(run[2]) != std::string_view::npos) {
      prefix = 4;
      min_tail = 30;
    }
    if (prefix == 0 || run.size() < prefix + min_tail) return std::nullopt;
    return Make("GitHub token", s, s + run.size());
  }

  std::optional<SecretMatch> Slack(size_t s, std::string_view run) const {
    if (run.size() < 15 || !run.starts_with("xox") || run[4] != '-' ||
        std::string_view("abprs").find(run[3]) == std::string_view::npos) {
      return std::nullopt;
    }
    return Make("Slack token", s, s + run.size());
  }

  std::optional<SecretMatch> Bearer(std::string_view run, size_t e) const {
    if (!EqualsIgnoreCase(run, "bearer")) return std::nullopt;
    size_t i = e;
    while (i < t_.size() && IsSpace(t_[i])) ++i;
    if (i == e) return std::nullopt;
    const size_t start = i;
    while (i < t_.size() && IsTokenChar(t_[i])) ++i;
    const std::string_view token = t_.substr(start, i - start);
    if (token.size() < 12 || !LooksGenerated(token)) return std::nullopt;
    return Make("bearer token", start, i);
  }

  // Position after an assignment operator that follows a name ending at
  // `e` (optionally closing a quote), or npos. *colon: the operator was ':'.
  size_t AfterOperator(size_t e, bool* colon) const {
    const size_t n = t_.size();
    size_t i = e;
    if (i < n && (t_[i] == '"' || t_[i] == '\'')) ++i;
    while (i < n && IsSpace(t_[i])) ++i;
    if (i >= n) return std::string_view::npos;
    *colon = t_[i] == ':';
    if (t_[i] == ':') {
      if (i + 1 < n && t_[i + 1] == ':') return std::string_view::npos;
      i += (i + 1 < n && t_[i + 1] == '=') ? 2 : 1;
    } else if (t_[i] == '=') {
      if (i + 1 < n && t_[i + 1] == '=') return std::string_view::npos;
      i += (i + 1 < n && t_[i + 1] == '>') ? 2 : 1;
    } else {
      return std::string_view::npos;
    }
    while (i < n && IsSpace(t_[i])) ++i;
    return i;
  }

  // The value at `i`: a quoted string on one line, or up to a delimiter.
  // Returns [start, end) of the value without quotes; empty when none.
  std::pair<size_t, size_t> Value(size_t i, bool url_style, bool* quoted) const {
    const size_t n = t_.size();
    *quoted = i < n && (t_[i] == '"' || t_[i] == '\'' || t_[i] == '`');
    if (*quoted) {
      const char q = t_[i];
      size_t j = i + 1;
      while (j < n && t_[j] != q && t_[j] != '\n' && j - i <= 512) ++j;
      if (j >= n || t_[j] != q) return {i, i};
      return {i + 1, j};
    }
    // '&' ends a value only after '=' (URL query strings).
    const std::string_view stops = url_style ? ",;&)}]<>\"'" : ",;)}]<>\"'";
    size_t j = i;
    while (j < n && !std::isspace(static_cast<unsigned char>(t_[j])) &&
           stops.find(t_[j]) == std::string_view::npos) {
      ++j;
    }
    return {i, BeforeClosingPunctuation(i, j)};
  }

  // `end` moved back over the sentence punctuation that closes an unquoted
  // value ("password=hunter2." / "…hunter2!" / "…hunter2。"): it is the
  // sentence's, not the secret's, and redaction keeps it. The value keeps
  // at least one byte.
  size_t BeforeClosingPunctuation(size_t start, size_t end) const {
    while (end > start + 1) {
      const char c = t_[end - 1];
      if (c == '.' || c == '!' || c == '?' || c == ':') {
        --end;
        continue;
      }
      bool wide = false;
      // 。 ！ ？ in UTF-8.
      for (std::string_view mark : {"\xE3\x80\x82", "\xEF\xBC\x81", "\xEF\xBC\x9F"}) {
        if (end >= start + 1 + mark.size() && t_.substr(end - mark.size(), mark.size()) == mark) {
          end -= mark.size();
          wide = true;
          break;
        }
      }
      if (!wide) break;
    }
    return end;
  }

  std::optional<SecretMatch> AuthorizationHeader(std::string_view run, size_t e) const {
    constexpr std::string_view kName = "authorization";
    if (run.size() < kName.size() ||
        !EqualsIgnoreCase(run.substr(run.size() - kName.size()), kName)) {
      return std::nullopt;
    }
    if (run.size() > kName.size() && run[run.size() - kName.size() - 1] != '-') {
      return std::nullopt;
    }
    bool colon = false;
    size_t i = AfterOperator(e, &colon);
    if (i == std::string_view::npos || !colon) return std::nullopt;
    if (i < t_.size() && (t_[i] == '"' || t_[i] == '\'')) ++i;
    size_t end = i;
    while (end < t_.size() && t_[end] != '\n' && t_[end] != '\r' && t_[end] != '"' &&
           t_[end] != '\'') {
      ++end;
    }
    while (end > i && IsSpace(t_[end - 1])) --end;
    end = BeforeClosingPunctuation(i, end);
    if (IsPlaceholder(t_.substr(i, end - i))) return std::nullopt;
    // The value must hold a credential-like token, not prose.
    for (size_t j = i; j < end;) {
      while (j < end && !IsTokenChar(t_[j])) ++j;
      const size_t s = j;
      while (j < end && IsTokenChar(t_[j])) ++j;
      if (j - s >= 8 && LooksGenerated(t_.substr(s, j - s))) {
        return Make("authorization header", i, end);
      }
    }
    return std::nullopt;
  }

  // The kind of assignment whose keyword is a component of `name`, or "".
  static std::string_view KeywordKind(std::string_view name) {
    static constexpr std::pair<std::string_view, std::string_view> kKeywords[] = {
        {"password", "password assignment"}, {"passwd", "password assignment"},
        {"pwd", "password assignment"},      {"secret", "secret assignment"},
        {"token", "token assignment"},       {"api_key", "API key assignment"},
        {"api-key", "API key assignment"},   {"apikey", "API key assignment"},
    };
    for (const auto& [word, kind] : kKeywords) {
      for (size_t p = 0; p + word.size() <= name.size(); ++p) {
        if (!StartsWithIgnoreCase(name.substr(p), word)) continue;
        const size_t q = p + word.size();
        const bool left = p == 0 || name[p - 1] == '_' || name[p - 1] == '-' ||
                          (IsLower(name[p - 1]) && IsUpper(name[p]));
        const bool right = q == name.size() || name[q] == '_' || name[q] == '-' ||
                           IsDigit(name[q]) || (IsUpper(name[q]) && IsLower(name[q - 1]));
        if (left && right) return kind;
      }
    }
    return {};
  }

  std::optional<SecretMatch> Assignment(std::string_view run, size_t e) const {
    bool colon = false;
    const size_t i = AfterOperator(e, &colon);
    if (i == std::string_view::npos) return std::nullopt;
    const std::string_view kind = KeywordKind(run);
    if (kind.empty()) return std::nullopt;
    bool quoted = false;
    const auto [vs, ve] = Value(i, !colon, &quoted);
    const std::string_view value = t_.substr(vs, ve - vs);
    if (value.empty() || IsPlaceholder(value) || t_.substr(vs).starts_with(kRedacted)) {
      return std::nullopt;
    }
    if (colon && !quoted) {
      const Classes c = ClassesOf(value);
      if (!(c.digit || c.symbol || (c.upper_after_first && c.lower) || value.size() >= 16)) {
        return std::nullopt;
      }
    }
    return Make(kind, vs, ve);
  }

  std::optional<SecretMatch> HighEntropy(size_t s, size_t e) const {
    const size_t n = t_.size();
    while (e < n && (IsRunChar(t_[e]) || t_[e] == '+' || t_[e] == '/')) ++e;
    while (e < n && t_[e] == '=' && !(e + 1 < n && IsRunChar(t_[e + 1]))) ++e;
    const std::string_view token = t_.substr(s, e - s);
    if (token.size() < 32) return std::nullopt;
    const Classes c = ClassesOf(token);
    // Generated tokens carry digits; paths and prose rarely carry several.
    const bool mixed = c.digits >= 3 || (c.digit && c.lower && c.upper);
    if (!mixed || ShannonEntropy(token) < 3.5) return std::nullopt;
    const size_t from = s > 64 ? s - 64 : 0;
    const std::string_view before = t_.substr(from, s - from);
    static constexpr std::string_view kWords[] = {
        "password", "passwd", "secret", "token", "key", "api", "bearer", "auth", "credential"};
    for (size_t p = 0; p < before.size(); ++p) {
      for (std::string_view w : kWords) {
        if (StartsWithIgnoreCase(before.substr(p), w)) return Make("high-entropy token", s, e);
      }
    }
    return std::nullopt;
  }

  std::string_view t_;
};

}  // namespace

std::optional<SecretMatch> FindSecret(std::string_view text) { return Scanner(text).Next(0); }

std::vector<SecretMatch> FindSecrets(std::string_view text) {
  std::vector<SecretMatch> out;
  Scanner scanner(text);
  size_t pos = 0;
  while (auto m = scanner.Next(pos)) {
    out.push_back(*m);
    pos = std::max(m->end, m->start + 1);
  }
  return out;
}

std::string RedactSecrets(std::string_view text, int* count) {
  const std::vector<SecretMatch> found = FindSecrets(text);
  if (count != nullptr) *count = static_cast<int>(found.size());
  if (found.empty()) return std::string(text);
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  for (const SecretMatch& m : found) {
    out.append(text.substr(pos, m.start - pos));
    out.append(kRedacted);
    pos = m.end;
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace mnemo::text
