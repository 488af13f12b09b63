#include "text/stemmer.h"

#include <gtest/gtest.h>

#include <utility>

namespace mnemo::text {
namespace {

// Pairs from Porter's published vocabulary / output files.
TEST(Stemmer, MatchesPorterVocabulary) {
  const std::pair<const char*, const char*> kPairs[] = {
      {"caresses", "caress"},
      {"ponies", "poni"},
      {"ties", "ti"},
      {"caress", "caress"},
      {"cats", "cat"},
      {"feed", "feed"},
      {"agreed", "agre"},
      {"plastered", "plaster"},
      {"bled", "bled"},
      {"motoring", "motor"},
      {"sing", "sing"},
      {"conflated", "conflat"},
      {"troubled", "troubl"},
      {"sized", "size"},
      {"hopping", "hop"},
      {"tanned", "tan"},
      {"falling", "fall"},
      {"hissing", "hiss"},
      {"fizzed", "fizz"},
      {"failing", "fail"},
      {"filing", "file"},
      {"happy", "happi"},
      {"sky", "sky"},
      {"relational", "relat"},
      {"conditional", "condit"},
      {"rational", "ration"},
      {"valenci", "valenc"},
      {"digitizer", "digit"},
      {"conformabli", "conform"},
      {"radicalli", "radic"},
      {"differentli", "differ"},
      {"vileli", "vile"},
      {"analogousli", "analog"},
      {"vietnamization", "vietnam"},
      {"predication", "predic"},
      {"operator", "oper"},
      {"feudalism", "feudal"},
      {"decisiveness", "decis"},
      {"hopefulness", "hope"},
      {"callousness", "callous"},
      {"formaliti", "formal"},
      {"sensitiviti", "sensit"},
      {"sensibiliti", "sensibl"},
      {"triplicate", "triplic"},
      {"formative", "form"},
      {"formalize", "formal"},
      {"electriciti", "electr"},
      {"electrical", "electr"},
      {"hopeful", "hope"},
      {"goodness", "good"},
      {"revival", "reviv"},
      {"allowance", "allow"},
      {"inference", "infer"},
      {"airliner", "airlin"},
      {"adjustable", "adjust"},
      {"defensible", "defens"},
      {"irritant", "irrit"},
      {"replacement", "replac"},
      {"adjustment", "adjust"},
      {"dependent", "depend"},
      {"adoption", "adopt"},
      {"homologou", "homolog"},
      {"communism", "commun"},
      {"activate", "activ"},
      {"angulariti", "angular"},
      {"homologous", "homolog"},
      {"effective", "effect"},
      {"bowdlerize", "bowdler"},
      {"probate", "probat"},
      {"rate", "rate"},
      {"cease", "ceas"},
      {"controll", "control"},
      {"roll", "roll"},
      {"generalization", "gener"},
      {"running", "run"},
      {"emails", "email"},
      {"emailed", "email"},
      {"reports", "report"},
      {"kubernetes", "kubernet"},
  };
  for (const auto& [word, stem] : kPairs) EXPECT_EQ(Stem(word), stem) << word;
}

TEST(Stemmer, LeavesShortAndNonLetterWordsAlone) {
  EXPECT_EQ(Stem("is"), "is");
  EXPECT_EQ(Stem("as"), "as");
  EXPECT_EQ(Stem("abc123"), "abc123");
  EXPECT_EQ(Stem("Running"), "Running");  // callers fold case first
  EXPECT_EQ(Stem(""), "");
  const std::string long_word(80, 's');
  EXPECT_EQ(Stem(long_word), long_word);
}

}  // namespace
}  // namespace mnemo::text
