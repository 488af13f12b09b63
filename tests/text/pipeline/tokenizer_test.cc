#include "text/pipeline/tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "text/match_util.h"
#include "text/pipeline/segmenter.h"

namespace mnemo::text {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsSupersetOf;
using ::testing::Not;
using text::testing::QueryMatchesText;

std::vector<TokenView> Collect(std::string_view text, std::vector<std::string>* storage) {
  std::vector<TokenView> out;
  storage->clear();
  storage->reserve(text.size() * 4 + 8);
  Tokenize(text, [&](const TokenView& t) {
    storage->emplace_back(t.text);
    out.push_back({storage->back(), t.start, t.end, t.colocated});
  });
  return out;
}

TEST(Tokenizer, DropsSpacesAndPunctuationAndLowerCases) {
  EXPECT_THAT(TokenizeToStrings("Hello, World!  (42)"), ElementsAre("hello", "world", "42"));
}

TEST(Tokenizer, ReportsByteOffsetsOfTheOriginalText) {
  std::vector<std::string> storage;
  const std::string text = "Straße 服务 ok";
  const auto tokens = Collect(text, &storage);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].text, "strass");
  EXPECT_EQ(text.substr(tokens[0].start, tokens[0].end - tokens[0].start), "Straße");
  EXPECT_EQ(text.substr(tokens[1].start, tokens[1].end - tokens[1].start), "服务");
  EXPECT_EQ(text.substr(tokens[2].start, tokens[2].end - tokens[2].start), "ok");
}

TEST(Tokenizer, StemsEnglishWords) {
  EXPECT_THAT(TokenizeToStrings("She emailed the reports"),
              ElementsAre("she", "email", "the", "report"));
  EXPECT_TRUE(QueryMatchesText("email report", "She emailed the reports"));
  EXPECT_TRUE(QueryMatchesText("emails", "I sent an email"));
}

TEST(Tokenizer, KeepsIdentifiersWholeAndEmitsTheirParts) {
  EXPECT_THAT(TokenizeToStrings("run deploy.py now"),
              ElementsAre("run", "deploy.py", "deploy", "py", "now"));
  EXPECT_THAT(TokenizeToStrings("send_email"), ElementsAre("send_email", "send", "email"));
  EXPECT_THAT(TokenizeToStrings("cat /etc/passwd"),
              ElementsAre("cat", "/etc/passwd", "etc", "passwd"));
  EXPECT_THAT(TokenizeToStrings("mail sarah@example.com."),
              ElementsAre("mail", "sarah@example.com", "sarah", "exampl", "com"));
  EXPECT_THAT(TokenizeToStrings("pi is 3.14"), ElementsAre("pi", "is", "3.14", "3", "14"));
  EXPECT_THAT(TokenizeToStrings("see https://x.com/a"),
              ElementsAre("see", "https://x.com/a", "https", "x", "com", "a"));
}

TEST(Tokenizer, MarksIdentifierPartsColocated) {
  std::vector<std::string> storage;
  const auto tokens = Collect("Deploy.PY", &storage);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[0].text, "deploy.py");  // whole: lower-cased, not stemmed
  EXPECT_FALSE(tokens[0].colocated);
  EXPECT_TRUE(tokens[1].colocated);
  EXPECT_TRUE(tokens[2].colocated);
  EXPECT_EQ(tokens[2].start, 7);
  EXPECT_EQ(tokens[2].end, 9);
  EXPECT_EQ(DocumentLength("Deploy.PY and send_email"), 3);
}

TEST(Tokenizer, TrimsSentencePunctuationAroundIdentifiers) {
  EXPECT_THAT(TokenizeToStrings("Open config.yaml."),
              ElementsAre("open", "config.yaml", "config", "yaml"));
  EXPECT_THAT(TokenizeToStrings("(v1.2.3)"), ElementsAre("v1.2.3", "v1", "2", "3"));
}

TEST(Tokenizer, IndexesChineseBigramsAndSingleCharacterWords) {
  const auto tokens = TokenizeToStrings("服务器上的 deploy.py");
  EXPECT_THAT(tokens, IsSupersetOf({"服务", "务器", "器上", "上的", "deploy.py", "deploy", "py"}));
  EXPECT_THAT(tokens, Not(Contains("服务器")));
  EXPECT_TRUE(QueryMatchesText("deploy.py", "服务器上的 deploy.py"));
  EXPECT_TRUE(QueryMatchesText("deploy", "服务器上的 deploy.py"));
  EXPECT_TRUE(QueryMatchesText("服务器", "服务器上的 deploy.py"));
  EXPECT_TRUE(QueryMatchesText("服务器上的", "服务器上的 deploy.py"));
}

TEST(Tokenizer, FindsChineseWordsWhateverTheSegmentation) {
  const std::string text = "永远不要给 Sarah 发邮件";
  EXPECT_TRUE(QueryMatchesText("发邮件", text));
  EXPECT_TRUE(QueryMatchesText("邮件", text));
  EXPECT_TRUE(QueryMatchesText("Sarah", text));
  EXPECT_TRUE(QueryMatchesText("sarah 邮件", text));
  EXPECT_FALSE(QueryMatchesText("电话", text));
  const std::string news = "狙击手在阵地上成功阻击了敌人的进攻";
  EXPECT_TRUE(QueryMatchesText("阻击", news));
  EXPECT_TRUE(QueryMatchesText("进攻", news));
}

TEST(Tokenizer, SingleCjkCharacterRunIsOneToken) {
  std::vector<std::string> storage;
  const auto tokens = Collect("a 猫 b", &storage);
  ASSERT_EQ(tokens.size(), 3u);
  EXPECT_EQ(tokens[1].text, "猫");
  EXPECT_FALSE(tokens[1].colocated);
  EXPECT_TRUE(QueryMatchesText("猫", "我的猫"));
}

TEST(Tokenizer, ColocatesCjkSingleCharactersAndCountsOnlyBigrams) {
  std::vector<std::string> storage;
  const auto tokens = Collect("服务器上的", &storage);
  int plain = 0;
  for (const auto& t : tokens) {
    if (!t.colocated) {
      ++plain;
      EXPECT_EQ(t.end - t.start, 6);  // two 3-byte characters
    } else {
      EXPECT_EQ(t.end - t.start, 3);
    }
  }
  EXPECT_EQ(plain, 4);
  EXPECT_EQ(DocumentLength("服务器上的"), 4);
}

TEST(Tokenizer, HandlesJapaneseKanaAndKanji) {
  const std::string text = "東京タワーに行きました";
  EXPECT_THAT(TokenizeToStrings(text), IsSupersetOf({"東京", "タワ", "ワー"}));
  EXPECT_TRUE(QueryMatchesText("東京タワー", text));
}

TEST(Tokenizer, KeepsHangulAndThaiAsIcuWords) {
  EXPECT_THAT(TokenizeToStrings("한국어 공부"), ElementsAre("한국어", "공부"));
  const auto thai = TokenizeToStrings("ภาษาไทย");
  EXPECT_THAT(thai, ElementsAre("ภาษา", "ไทย"));
}

TEST(Tokenizer, StripsArabicArticlesAsColocatedForms) {
  const std::string text = "تسترجع الذكريات بالكلمات المفتاحية";
  EXPECT_THAT(TokenizeToStrings(text), ElementsAre("تسترجع", "الذكريات", "ذكريات", "بالكلمات",
                                                   "كلمات", "الكلمات", "المفتاحية", "مفتاحية"));
  EXPECT_EQ(DocumentLength(text), 4);
  for (const char* q :
       {"الذكريات", "ذكريات", "المفتاحية", "مفتاحية", "الكلمات", "كلمات", "بالكلمات"}) {
    EXPECT_TRUE(QueryMatchesText(q, text)) << q;
  }
}

TEST(Tokenizer, RemovesArabicDiacriticsTatweelAndHamzaForms) {
  // كَتَبَ with harakat, كتـــاب with tatweel, أحمد / إحمد / احمد.
  EXPECT_THAT(TokenizeToStrings("كَتَبَ"), ElementsAre("كتب"));
  EXPECT_THAT(TokenizeToStrings("كتـــاب"), ElementsAre("كتاب"));
  EXPECT_THAT(TokenizeToStrings("أحمد إحمد آحمد"), ElementsAre("احمد", "احمد", "احمد"));
  EXPECT_TRUE(QueryMatchesText("أحمد", "رسالة من احمد"));
}

TEST(Tokenizer, AppliesNfkcAndCaseFolding) {
  EXPECT_THAT(TokenizeToStrings("ＡＢＣ"), ElementsAre("abc"));
  EXPECT_THAT(TokenizeToStrings("ﬁle"), ElementsAre("file"));
  EXPECT_EQ(TokenizeToStrings("Straße"), TokenizeToStrings("STRASSE"));
  EXPECT_TRUE(QueryMatchesText("abc", "ＡＢＣ"));
  EXPECT_TRUE(QueryMatchesText("ΣΟΦΙΑ", "σοφια"));
}

TEST(Tokenizer, SurvivesInvalidUtf8) {
  EXPECT_THAT(TokenizeToStrings("bad \xFF\xFE bytes"), ElementsAre("bad", "byte"));
  EXPECT_THAT(TokenizeToStrings("ab\xC0\xAF"
                                "cd"),
              ElementsAre("ab", "cd"));
  EXPECT_THAT(TokenizeToStrings("服\xE5\x8A"), ElementsAre("服"));
  EXPECT_TRUE(TokenizeToStrings("\x80\x80\x80").empty());
  std::string noise;
  for (int i = 0; i < 4096; ++i) noise.push_back(static_cast<char>((i * 131 + 7) & 0xFF));
  std::vector<std::string> storage;
  for (const auto& t : Collect(noise, &storage)) {
    EXPECT_FALSE(t.text.empty());
    EXPECT_LE(t.start, t.end);
    EXPECT_LE(t.end, static_cast<int32_t>(noise.size()));
  }
}

TEST(Tokenizer, HandlesEmptyAndSeparatorOnlyInput) {
  EXPECT_TRUE(TokenizeToStrings("").empty());
  EXPECT_TRUE(TokenizeToStrings(" \n\t.,;!? -- ...").empty());
  EXPECT_EQ(DocumentLength(""), 0);
}

TEST(Tokenizer, BoundsPathologicallyLongWords) {
  const std::string word(100000, 'x');
  const auto tokens = TokenizeToStrings(word);
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_LE(tokens[0].size(), 256u);
}

TEST(Tokenizer, FirstTokenIsNeverColocated) {
  std::vector<std::string> storage;
  for (const char* text : {"a.b", "بالكلمات", "上的", "x"}) {
    const auto tokens = Collect(text, &storage);
    ASSERT_FALSE(tokens.empty()) << text;
    EXPECT_FALSE(tokens[0].colocated) << text;
  }
}

TEST(Tokenizer, IsReentrantFromTheSink) {
  std::vector<std::string> inner;
  Tokenize("outer words", [&](const TokenView&) {
    for (auto& s : TokenizeToStrings("inner 服务器")) inner.push_back(s);
  });
  EXPECT_EQ(inner.size(), 2u * TokenizeToStrings("inner 服务器").size());
}

using text::testing::OwnedToken;

std::vector<OwnedToken> Tokens(std::string_view text, CjkSingles singles) {
  std::vector<OwnedToken> out;
  Tokenize(
      text, [&](const TokenView& t) { out.emplace_back(t); }, singles);
  return out;
}

bool IsCjkSingle(const OwnedToken& t) { return t.colocated && IsCjkCharacter(t.text); }

// kSkip emits exactly kEmit's tokens less the colocated single CJK
// characters, in text that mixes CJK with everything ICU could join to it
// (combining marks, ZWJ, '_' and other ExtendNumLet beside Katakana),
// punctuation, digits, Latin, Arabic, Hangul and four-byte Han.
TEST(Tokenizer, SkippingCjkSinglesChangesNothingElse) {
  const std::vector<std::string> pieces = {"数据库",
                                           "服务器",
                                           "的",
                                           "每天",
                                           "凌晨",
                                           "备份",
                                           "カタカナ",
                                           "ﾃｽﾄ",
                                           "ひらがな",
                                           "𠀋𠀌",
                                           "々",
                                           "〇",
                                           "ー",
                                           "abc",
                                           "Deploy",
                                           "x_y",
                                           "_",
                                           "‿",
                                           "＿",
                                           "2024",
                                           "3.14",
                                           "年",
                                           "。",
                                           "，",
                                           "、",
                                           "：",
                                           " ",
                                           " ",
                                           "\n",
                                           "-",
                                           ".",
                                           "'",
                                           "@",
                                           "é",
                                           "e\xCC\x81",
                                           "\xE3\x82\x99",
                                           "\xE2\x80\x8D",
                                           "\xE2\x80\x8B",
                                           "\xC2\xAD",
                                           "بالكلمات",
                                           "한국어",
                                           "😀",
                                           "deploy.py",
                                           "send_email"};
  uint32_t seed = 12345;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  int checked = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int n = 1 + static_cast<int>(next() % 8);
    for (int i = 0; i < n; ++i) text += pieces[next() % pieces.size()];
    std::vector<OwnedToken> full = Tokens(text, CjkSingles::kEmit);
    std::erase_if(full, IsCjkSingle);
    const std::vector<OwnedToken> skipped = Tokens(text, CjkSingles::kSkip);
    ASSERT_EQ(skipped, full) << text;
    ++checked;
  }
  EXPECT_EQ(checked, 20000);
}

TEST(Tokenizer, SkippingCjkSinglesStillGivesBigramsAndOneCharacterRuns) {
  std::vector<std::string> skipped;
  Tokenize(
      "数据库 年", [&](const TokenView& t) { skipped.emplace_back(t.text); }, CjkSingles::kSkip);
  EXPECT_THAT(skipped, ElementsAre("数据", "据库", "年"));
  EXPECT_THAT(TokenizeToStrings("数据库 年"), Contains("库"));
}

std::vector<OwnedToken> GatedTokens(std::string_view text, const std::vector<std::string>& terms,
                                    bool gated) {
  const TermGate gate(terms);
  std::vector<OwnedToken> out;
  Tokenize(
      text,
      [&](const TokenView& t) {
        if (std::find(terms.begin(), terms.end(), t.text) != terms.end()) out.emplace_back(t);
      },
      CjkSingles::kEmit, gated ? &gate : nullptr);
  return out;
}

TEST(Tokenizer, AGateLeavesOutTheWordsNoTermCanComeFrom) {
  std::vector<std::string> all;
  const TermGate gate({"deploy", "x"});
  Tokenize(
      "Deploying servers nightly, deploy.py", [&](const TokenView& t) { all.emplace_back(t.text); },
      CjkSingles::kEmit, &gate);
  // "servers", "nightly" and "py" are neither folded nor stemmed; the whole
  // identifier starts with 'd' and may be a term.
  EXPECT_THAT(all, ElementsAre("deploy", "deploy.py", "deploy"));
  EXPECT_FALSE(gate.MayBecomeTerm("Server"));
  EXPECT_TRUE(gate.MayBecomeTerm("Deploys"));
  EXPECT_FALSE(gate.MayBecomeTerm("dep"));  // shorter than every term starting with 'd'
  EXPECT_TRUE(gate.MayBecomeTerm("X"));
}

// With a gate, the tokens equal to a term are the same (text, offsets,
// colocated flag) as without it, whatever the terms: stemming's exceptions,
// case, identifiers and their parts, words folded by NFKC, Arabic and CJK.
TEST(Tokenizer, AGateKeepsEveryTokenThatIsATerm) {
  const std::vector<std::string> pieces = {
      "Dying",      "lying",        "tying",      "skies",  "skis",      "idly",     "gently",
      "ugly",       "early",        "only",       "singly", "news",      "howe",     "atlas",
      "Generously", "communism",    "arsenal",    "hoping", "agreed",    "happily",  "crying",
      "Deploying",  "deploys",      "relational", "yelled", "Yesterday", "players",  "cries",
      "deploy.py",  "Send_Email",   "a@b.com",    "3.14",   "2024",      "x1y2",     "ß",
      "Straße",     "ＤＥＰＬＯＹ", "café",       "naïve",  "é",         "بالكلمات", "数据库",
      "年",         "한국어",       "e\xCC\x81",  "'",      "-",         ".",        " ",
      " ",          "\n",           "I",          "a",      "by",        "the"};
  uint32_t seed = 4242;
  auto next = [&] {
    seed = seed * 1103515245u + 12345u;
    return (seed >> 16) & 0x7fff;
  };
  int checked = 0;
  for (int round = 0; round < 5000; ++round) {
    std::string text;
    const int n = 1 + static_cast<int>(next() % 10);
    for (int i = 0; i < n; ++i) {
      if (i > 0 && next() % 2 == 0) text += ' ';
      text += pieces[next() % pieces.size()];
    }
    // Terms: some of the text's own tokens, and words it may not hold.
    std::vector<std::string> terms;
    for (const OwnedToken& t : Tokens(text, CjkSingles::kEmit)) {
      if (next() % 3 == 0) terms.push_back(t.text);
    }
    for (const char* other : {"die", "sky", "gentl", "generous", "d", "deploy", "stra"}) {
      if (next() % 4 == 0) terms.emplace_back(other);
    }
    ASSERT_EQ(GatedTokens(text, terms, true), GatedTokens(text, terms, false)) << text;
    ++checked;
  }
  EXPECT_EQ(checked, 5000);
}

}  // namespace
}  // namespace mnemo::text
