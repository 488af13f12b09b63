#include "text/phatic.h"

#include <unordered_set>

#include "text/pipeline/stemmer.h"
#include "text/pipeline/stopwords.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::text {
namespace {

// The words of small talk beyond the stop words, as written (folded): each
// is also matched by its stem. Chinese ones are the pipeline's bigrams.
constexpr std::string_view kPhaticWords[] = {
    // greetings and goodbyes
    "hi",
    "hello",
    "hey",
    "hiya",
    "howdy",
    "greetings",
    "welcome",
    "bye",
    "goodbye",
    "byebye",
    "farewell",
    "cheers",
    "morning",
    "afternoon",
    "evening",
    "night",
    "later",
    "soon",
    "care",
    "chat",
    "chatting",
    "talk",
    "talking",
    "talked",
    "nice",
    // thanks and their answers
    "thanks",
    "thank",
    "thx",
    "ty",
    "appreciate",
    "appreciated",
    "grateful",
    "problem",
    "problems",
    "worries",
    "worry",
    "mention",
    "pleasure",
    "anytime",
    "asking",
    "lot",
    // assent and reactions
    "ok",
    "okay",
    "yes",
    "yeah",
    "yep",
    "sure",
    "alright",
    "right",
    "fine",
    "great",
    "good",
    "cool",
    "awesome",
    "wonderful",
    "fantastic",
    "amazing",
    "lovely",
    "glad",
    "wow",
    "oh",
    "ah",
    "haha",
    "lol",
    "indeed",
    "absolutely",
    "definitely",
    "totally",
    "see",
    "sounds",
    "sound",
    // how are you / how can I help
    "doing",
    "help",
    "today",
    "day",
    "well",
    // Chinese (bigrams and single characters the pipeline emits)
    "你好",
    "您好",
    "谢谢",
    "谢你",
    "谢您",
    "感谢",
    "再见",
    "拜拜",
    "客气",
    "不客",
    "好的",
    "没事",
    "没问",
    "问题",
    // Arabic (the pipeline's form: bare alef)
    "مرحبا",
    "اهلا",
    "شكرا",
    "السلامه",
    "السلامة",
    "سلامه",
    "تمام",
    "حسنا",
    "صباح",
    "مساء",
    "الخير",
    "الف",
    "جزيلا",
};

struct PhaticSet {
  std::unordered_set<std::string> words;
  PhaticSet() {
    for (const std::string_view w : kPhaticWords) {
      words.emplace(w);
      words.insert(Stem(w));
    }
  }
};

const PhaticSet& Phatic() {
  static const PhaticSet kSet;
  return kSet;
}

}  // namespace

bool IsPhaticSentence(std::string_view sentence) {
  const PhaticSet& set = Phatic();
  bool any = false;
  bool content = false;
  Tokenize(sentence, [&](const TokenView& t) {
    if (content || t.colocated) return;
    any = true;
    if (IsStopWord(t.text)) return;
    if (set.words.contains(std::string(t.text))) return;
    content = true;
  });
  return any && !content;
}

std::string WithoutPhaticSentences(std::string_view text, const SentenceOptions& options) {
  std::string out;
  for (const std::string& sentence : SplitSentences(text, options)) {
    if (IsPhaticSentence(sentence)) continue;
    if (!out.empty()) out += ' ';
    out += sentence;
  }
  return out.empty() ? std::string(text) : out;
}

}  // namespace mnemo::text
