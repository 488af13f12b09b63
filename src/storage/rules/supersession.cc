#include "storage/rules/supersession.h"

#include <string>

namespace mnemo::storage::internal {
namespace {

constexpr std::string_view kEnglishChange[] = {
    "actually",    "not anymore", "no longer",  "now",     "moved to",
    "switched to", "changed to",  "these days", "anymore", "relocated",
    "moved from",  "new job",     "started at", "joined",  "instead",
};
// Chinese and Arabic phrases: substrings (no spaces between Chinese words;
// Arabic ones carry their own prefixes).
constexpr std::string_view kOtherChange[] = {
    "现在", "不再", "搬到了", "搬到",   "换成",  "改成",  "已经换",
    "如今", "الآن", "لم أعد", "انتقلت", "حاليا", "حالياً", "لم يعد",
};

bool IsWordByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '\'';
}

bool HasWord(std::string_view lower, std::string_view phrase) {
  for (size_t pos = lower.find(phrase); pos != std::string_view::npos;
       pos = lower.find(phrase, pos + 1)) {
    const size_t end = pos + phrase.size();
    if ((pos == 0 || !IsWordByte(lower[pos - 1])) &&
        (end == lower.size() || !IsWordByte(lower[end]))) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool MarksChange(std::string_view sentence) {
  std::string lower(sentence);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  for (std::string_view p : kEnglishChange) {
    if (HasWord(lower, p)) return true;
  }
  for (std::string_view p : kOtherChange) {
    if (lower.find(p) != std::string::npos) return true;
  }
  return false;
}

bool Supersedes(const SlotStatement& current, const SlotStatement& incoming) {
  if (incoming.at < current.at) return false;
  // Compared with a small tolerance: 0.6 - 0.2 is 0.3999… in binary.
  if (incoming.confidence + 1e-9 >= current.confidence - kSupersedeMargin) return true;
  return MarksChange(incoming.sentence);
}

}  // namespace mnemo::storage::internal
