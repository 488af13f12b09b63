#include "context/graph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "context/documents.h"
#include "storage/memory/memory_backend.h"

namespace mnemo::context {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// "subject|predicate|object" of each triple, in order.
std::vector<std::string> Spo(const std::vector<ExtractedTriple>& triples) {
  std::vector<std::string> out;
  for (const ExtractedTriple& t : triples) {
    out.push_back(t.subject + "|" + t.predicate + "|" + t.object);
  }
  return out;
}

struct Case {
  const char* text;
  std::vector<std::string> expected;  // "subject|predicate|object"
};

const Case kCases[] = {
    // English, first person.
    {"I live in Berlin.", {"user|lives_in|Berlin"}},
    {"I moved to Lisbon last month.", {"user|lives_in|Lisbon"}},
    {"I'm based in Tokyo", {"user|lives_in|Tokyo"}},
    {"I work at Google as an engineer.", {"user|works_at|Google"}},
    {"I work for the BBC", {"user|works_at|BBC"}},
    {"My timezone is CET.", {"user|timezone|CET"}},
    {"My time zone is UTC+1", {"user|timezone|UTC+1"}},
    {"My name is Ana Lima.", {"user|name|Ana Lima"}},
    {"I prefer dark mode.", {"user|prefers|dark mode"}},
    {"I like to swim", {"user|likes|swim"}},
    {"I use Neovim and tmux every day.", {"user|uses|Neovim"}},
    {"I’m a data scientist.", {"user|is|data scientist"}},
    {"My name is Ana and I live in Porto.", {"user|name|Ana", "user|lives_in|Porto"}},
    // English, third person.
    {"Alice works for Acme Corp.", {"Alice|works_at|Acme Corp"}},
    {"By the way, Bob lives in Paris.", {"Bob|lives_in|Paris"}},
    {"Carol uses Emacs for everything.", {"Carol|uses|Emacs"}},
    {"PostgreSQL is a relational database.", {"PostgreSQL|is|relational database"}},
    {"Berlin is the capital of Germany.", {"Berlin|is|capital of Germany"}},
    {"Dave prefers tea over coffee.", {"Dave|prefers|tea"}},
    {"Erin is from Canada.", {"Erin|comes_from|Canada"}},
    // English, nothing to extract.
    {"Do you live in Berlin?", {}},
    {"I don't like tea.", {}},
    {"Alice no longer lives in Paris.", {}},
    {"It is raining again.", {}},
    {"The problem is that the build fails.", {}},
    {"They use Rust.", {}},
    {"Alice is not here.", {}},
    // Chinese.
    {"我住在北京。", {"user|lives_in|北京"}},
    {"我搬到了上海。", {"user|lives_in|上海"}},
    {"我在谷歌工作。", {"user|works_at|谷歌"}},
    {"我的时区是东八区", {"user|timezone|东八区"}},
    {"我叫小明。", {"user|name|小明"}},
    {"我喜欢咖啡。", {"user|likes|咖啡"}},
    {"我更喜欢绿茶。", {"user|prefers|绿茶"}},
    {"我用 Python 写代码。", {"user|uses|Python"}},
    {"张伟住在上海。", {"张伟|lives_in|上海"}},
    {"李娜使用Linux。", {"李娜|uses|Linux"}},
    {"我是一名工程师。", {"user|is|工程师"}},
    {"北京是中国的首都。", {"北京|is|中国的首都"}},
    {"我现在住在深圳。", {"user|lives_in|深圳"}},
    // Chinese, nothing to extract.
    {"你住在哪里？", {}},
    {"我不喜欢咖啡。", {}},
    {"他住在北京。", {}},
    {"这个功能很有用。", {}},
    {"但是这不是问题。", {}},
};

TEST(GraphExtraction, TableOfEnglishAndChineseSentences) {
  int checked = 0;
  for (const Case& c : kCases) {
    EXPECT_EQ(Spo(ExtractTriplesFromText(c.text)), c.expected) << "text: " << c.text;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST(GraphExtraction, ChineseAndEnglishShareOnePredicateVocabulary) {
  EXPECT_EQ(Spo(ExtractTriplesFromText("张伟住在上海。")),
            Spo(ExtractTriplesFromText("张伟 lives in 上海.")));
  EXPECT_THAT(Spo(ExtractTriplesFromText("Mnemo是一个记忆引擎。 Mnemo is a memory engine.")),
              ElementsAre("Mnemo|is|记忆引擎", "Mnemo|is|memory engine"));
}

TEST(GraphExtraction, HedgedSentencesHaveLowerConfidence) {
  std::vector<ExtractedTriple> plain = ExtractTriplesFromText("Bob uses Emacs.");
  std::vector<ExtractedTriple> hedged = ExtractTriplesFromText("I think Bob uses Emacs.");
  std::vector<ExtractedTriple> zh = ExtractTriplesFromText("我觉得张伟住在上海。");
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(hedged.size(), 1u);
  ASSERT_EQ(zh.size(), 1u);
  EXPECT_DOUBLE_EQ(plain[0].confidence, kTriplePlainConfidence);
  EXPECT_DOUBLE_EQ(hedged[0].confidence, kTripleHedgedConfidence);
  EXPECT_EQ(hedged[0].subject, "Bob");
  EXPECT_DOUBLE_EQ(zh[0].confidence, kTripleHedgedConfidence);
  EXPECT_EQ(zh[0].subject, "张伟");
}

TEST(GraphExtraction, KeepsTheSentenceAsProvenance) {
  std::vector<ExtractedTriple> t =
      ExtractTriplesFromText("Hello there.  I live in Berlin,  Germany. Bye!");
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].sentence, "I live in Berlin,  Germany.");
  EXPECT_EQ(t[0].object, "Berlin");
}

TEST(GraphExtraction, ALineMarkedNoMemoryYieldsNothing) {
  const ComputationLine lines[] = {
      {.text = "[tool] cmd_run: I live in Berlin and Alice uses Vim.",
       .may_produce_triples = false},
      {.text = "Carol lives in Oslo.", .may_produce_triples = false},
  };
  EXPECT_THAT(ExtractTriples(lines), IsEmpty());
  // The same lines, allowed, do produce triples (third person only: a tool
  // does not speak for the user).
  const ComputationLine allowed[] = {
      {.text = "[tool] cmd_run: I live in Berlin and Alice uses Vim."},
      {.text = "Carol lives in Oslo."},
  };
  EXPECT_THAT(Spo(ExtractTriples(allowed)), ElementsAre("Alice|uses|Vim", "Carol|lives_in|Oslo"));
}

TEST(GraphExtraction, FirstPersonOfTheAssistantIsNotTheUser) {
  EXPECT_THAT(Spo(ExtractTriplesFromText("user: I live in Berlin.\n"
                                         "assistant: I am a language model. I like tea.\n"
                                         "Paris is a city.\n"
                                         "user: 我喜欢咖啡。")),
              ElementsAre("user|lives_in|Berlin", "Paris|is|city", "user|likes|咖啡"));
}

TEST(GraphExtraction, RepeatedFactsAreKeptOnceWithTheLargerConfidence) {
  std::vector<ExtractedTriple> t =
      ExtractTriplesFromText("Maybe Bob uses Emacs.\nBob uses emacs.\nI live in Rome.");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].object, "Emacs");
  EXPECT_DOUBLE_EQ(t[0].confidence, kTriplePlainConfidence);
  EXPECT_EQ(t[1].object, "Rome");
}

TEST(GraphExtraction, LongTextIsLinearAndLongClausesAreSkipped) {
  std::string hostile;
  for (int i = 0; i < 100000; ++i) hostile += "在是用";
  EXPECT_THAT(ExtractTriplesFromText(hostile), IsEmpty());
  std::string many;
  for (int i = 0; i < 20000; ++i) many += "Bob uses Vim. ";
  std::vector<ExtractedTriple> t = ExtractTriplesFromText(many);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].object, "Vim");
}

TEST(GraphExtraction, SingleValuedPredicates) {
  EXPECT_TRUE(IsSingleValued("lives_in"));
  EXPECT_TRUE(IsSingleValued("works_at"));
  EXPECT_TRUE(IsSingleValued("timezone"));
  EXPECT_TRUE(IsSingleValued("name"));
  EXPECT_FALSE(IsSingleValued("likes"));
  // The profile's single-valued slots (issue 44): one manager, partner, diet.
  for (std::string_view p :
       {"manager", "boss", "employer", "partner", "wife", "husband", "diet", "comes_from"}) {
    EXPECT_TRUE(IsSingleValued(p)) << p;
  }
  EXPECT_FALSE(IsSingleValued("has"));
  EXPECT_FALSE(IsSingleValued("uses"));
}

TEST(GraphStore, LaterStatementsSupersedeEarlierOnes) {
  auto backend = std::make_unique<storage::internal::MemoryBackend>();
  std::vector<ExtractedTriple> t =
      ExtractTriplesFromText("user: I live in Berlin.\nuser: I moved to Lisbon. I like tea.");
  auto created = StoreTriples(backend->graph(), "alice", "doc-1", 1000, t);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(*created, 3);
  auto current = backend->graph().QueryTriples({.predicate = "lives_in"});
  ASSERT_TRUE(current.ok());
  ASSERT_EQ(current->size(), 1u);
  EXPECT_EQ((*current)[0].object, "Lisbon");
  EXPECT_EQ((*current)[0].owner, "alice");
  EXPECT_EQ((*current)[0].source, "doc-1");
  EXPECT_EQ((*current)[0].sentence, "I moved to Lisbon.");
  auto all = backend->graph().QueryTriples({.predicate = "lives_in", .include_history = true});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[1].object, "Berlin");
  EXPECT_EQ((*all)[1].valid_to, 1000);
}

TEST(GraphStore, ANewDocumentIsDistilledOnce) {
  auto backend = std::make_unique<storage::internal::MemoryBackend>();
  NewDocument doc{.owner = "local",
                  .source = "test",
                  .content = "I live in Berlin.",
                  .computation_text = "I live in Berlin.",
                  .now = 1000};
  auto first = StoreDocument(backend->documents(), backend->graph(), doc);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto rows = backend->graph().QueryTriples({});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].source, first->row.id);
  // Newer evidence moves the user; putting the old document again changes nothing.
  doc.content = doc.computation_text = "I moved to Lisbon.";
  doc.now = 2000;
  ASSERT_TRUE(StoreDocument(backend->documents(), backend->graph(), doc).ok());
  doc.content = doc.computation_text = "I live in Berlin.";
  doc.now = 3000;
  auto again = StoreDocument(backend->documents(), backend->graph(), doc);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  auto current = backend->graph().QueryTriples({.predicate = "lives_in"});
  ASSERT_TRUE(current.ok());
  ASSERT_EQ(current->size(), 1u);
  EXPECT_EQ((*current)[0].object, "Lisbon");
}

TEST(GraphStore, NoMemoryOutputLeftOutOfTheComputationTextGivesNoTriple) {
  auto backend = std::make_unique<storage::internal::MemoryBackend>();
  // The raw content holds the tool output; the computation text does not.
  auto put = StoreDocument(backend->documents(), backend->graph(),
                           {.content = "user: hi\n[tool] cmd_run: Alice lives in Oslo.",
                            .computation_text = "user: hi",
                            .now = 1000});
  ASSERT_TRUE(put.ok());
  auto rows = backend->graph().QueryTriples({.include_history = true});
  ASSERT_TRUE(rows.ok());
  EXPECT_THAT(*rows, IsEmpty());
}

}  // namespace
}  // namespace mnemo::context
