// The document and segment-recap parts of the storage contract (document_store.h,
// documents.h, episodic.h), run unchanged against every backend in
// kConformanceBackends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/sha256.h"
#include "base/uuid.h"
#include "storage/backend_factory.h"
#include "storage/stores.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

DocumentRow Doc(std::string content, std::string search_text = "", TimeMs created_at = 1000,
                std::string owner = "local") {
  DocumentRow d;
  d.owner = std::move(owner);
  d.source = "test";
  d.search_text = search_text.empty() ? content : std::move(search_text);
  d.content = std::move(content);
  d.created_at = created_at;
  return d;
}

SegmentRow ClosedSegment(std::string session, std::string recap, TimeMs closed_at = 2000,
                         std::string owner = "local") {
  SegmentRow s;
  s.id = mnemo::internal::NewUuidV4();
  s.owner = std::move(owner);
  s.session_id = std::move(session);
  s.status = "closed";
  s.started_at = 1000;
  s.last_turn_at = 1000;
  s.closed_at = closed_at;
  s.recap = std::move(recap);
  s.recap_source = s.recap.empty() ? "" : "extractive";
  return s;
}

class DocumentConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  DocumentPut Put(const DocumentRow& row) {
    auto r = stores_.documents->PutDocument(row);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : DocumentPut{};
  }

  // The contents of the documents SearchDocuments returns for `q`.
  std::vector<std::string> Found(std::string_view q, DocumentQuery query = {}) {
    query.terms = text::QueryTerms(q);
    auto r = stores_.documents->SearchDocuments(query);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const DocumentHit& h : *r) out.push_back(h.row.content);
    }
    return out;
  }

  std::vector<std::string> Listed(std::optional<std::string> owner,
                                  std::optional<std::string> prefix, int limit, int64_t offset) {
    auto r = stores_.documents->ListDocuments(std::move(owner), std::move(prefix), limit, offset);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const DocumentRow& d : *r) out.push_back(d.content);
    }
    return out;
  }

  int64_t Frequency(std::string_view word) {
    const std::vector<std::string> terms = text::QueryTerms(word);
    EXPECT_EQ(terms.size(), 1u) << word;
    auto r = stores_.documents->DocumentFrequencies(terms);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->size() == 1 ? (*r)[0] : -1;
  }

  void PutSegment(const SegmentRow& s) {
    Status put = stores_.episodic->PutSegment(s);
    EXPECT_TRUE(put.ok()) << put.ToString();
  }

  // The recaps of the segments SearchSegments returns for `q`.
  std::vector<std::string> Recaps(std::string_view q, SegmentQuery query = {}) {
    query.terms = text::QueryTerms(q);
    auto r = stores_.episodic->SearchSegments(query);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const SegmentHit& h : *r) out.push_back(h.row.recap);
    }
    return out;
  }

  std::vector<SegmentVector> VectorsSince(std::string_view signature, int64_t after,
                                          int limit = 100) {
    auto r = stores_.episodic->SegmentVectorsSince(signature, after, limit);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<SegmentVector>{};
  }

  testing::TempDir dir_;
  Stores stores_;
};

// --- Documents.

TEST_P(DocumentConformance, EveryFieldRoundTripsAndTheContentByteForByte) {
  // Invalid UTF-8 and a NUL byte: the content is stored as given.
  const std::string content("raw \xff\xfe tool output\0 with [tool] shell: ok\n", 41);
  DocumentRow d = Doc(content, "computation text of the output", 1700000000000);
  d.source = "agent://session/s1/segment/seg-1#seq0-7";
  d.meta = R"({"kind":"segment","turns":4})";
  d.summary = "A short summary.";
  d.tags = {"deploy", "billing"};
  d.entities = {"deploy.py", "alice@example.com"};
  d.content_hash = "not a hash";  // ignored: the store computes it
  DocumentPut put = Put(d);
  EXPECT_TRUE(put.created);
  EXPECT_FALSE(put.row.id.empty());
  EXPECT_EQ(put.row.content_hash, mnemo::internal::Sha256Hex(content));
  EXPECT_EQ(put.row.updated_at, 1700000000000);  // 0 became created_at
  auto got = stores_.documents->GetDocument(put.row.id, false);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  const DocumentRow& r = **got;
  EXPECT_EQ(r.id, put.row.id);
  EXPECT_EQ(r.owner, "local");
  EXPECT_EQ(r.source, d.source);
  EXPECT_EQ(r.meta, d.meta);
  EXPECT_EQ(r.content, content);
  EXPECT_EQ(r.content.size(), 41u);
  EXPECT_EQ(r.search_text, "computation text of the output");
  EXPECT_EQ(r.summary, d.summary);
  EXPECT_THAT(r.tags, ElementsAre("deploy", "billing"));
  EXPECT_THAT(r.entities, ElementsAre("deploy.py", "alice@example.com"));
  EXPECT_EQ(r.content_hash, put.row.content_hash);
  EXPECT_EQ(r.access_count, 0);
  EXPECT_EQ(r.created_at, 1700000000000);
  EXPECT_EQ(r.updated_at, 1700000000000);
  // A given id is kept.
  DocumentRow named = Doc("named");
  named.id = "doc-given-id";
  EXPECT_EQ(Put(named).row.id, "doc-given-id");
  auto missing = stores_.documents->GetDocument("no-such-id", false);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

// Issue 17: one owner's document scores use that owner's documents'
// statistics, so another principal's documents never move them.
TEST_P(DocumentConformance, DocumentScoresIgnoreOtherPrincipalsDocuments) {
  Put(Doc("quokka wombat habitat", "", 1000, "bob"));
  Put(Doc("wombat burrow notes here", "", 1001, "bob"));
  auto scores = [&] {
    std::vector<double> out;
    auto r = stores_.documents->SearchDocuments(
        {.terms = text::QueryTerms("quokka wombat"), .owner = std::string("bob")});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) {
      for (const DocumentHit& h : *r) out.push_back(h.score);
    }
    return out;
  };
  const std::vector<double> before = scores();
  ASSERT_EQ(before.size(), 2u);
  for (int i = 0; i < 10; ++i) {
    Put(Doc("quokka sighting " + std::to_string(i), "", 2000 + i, "alice"));
  }
  const std::vector<double> after = scores();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_DOUBLE_EQ(after[0], before[0]);
  EXPECT_DOUBLE_EQ(after[1], before[1]);
}

TEST_P(DocumentConformance, AnOwnersIdenticalContentIsStoredOnce) {
  DocumentRow first = Doc("the same evidence");
  first.source = "context:s1";
  DocumentPut a = Put(first);
  ASSERT_TRUE(a.created);
  DocumentRow again = Doc("the same evidence", "other search text", 5000);
  again.source = "context:s2";
  DocumentPut b = Put(again);
  EXPECT_FALSE(b.created);
  EXPECT_EQ(b.row.id, a.row.id);
  EXPECT_EQ(b.row.source, "context:s1");  // the existing row, untouched
  EXPECT_EQ(b.row.created_at, 1000);
  // Another owner's copy is its own document; one byte more is another one.
  EXPECT_TRUE(Put(Doc("the same evidence", "", 1000, "bob")).created);
  EXPECT_TRUE(Put(Doc("the same evidence ")).created);
  auto all = stores_.documents->CountDocuments(std::nullopt);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, 3);
  auto mine = stores_.documents->CountDocuments("local");
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(*mine, 2);
}

TEST_P(DocumentConformance, ConcurrentPutsOfOneContentCreateItOnce) {
  constexpr int kThreads = 8;
  constexpr int kEach = 10;
  std::atomic<int> created{0};
  std::vector<std::vector<std::string>> ids(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = stores_.documents->PutDocument(Doc("evidence number " + std::to_string(i)));
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        if (r->created) ++created;
        ids[static_cast<size_t>(t)].push_back(r->row.id);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(created.load(), kEach);
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(ids[static_cast<size_t>(t)], ids[0]);
  auto count = stores_.documents->CountDocuments(std::nullopt);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, kEach);
  EXPECT_EQ(Frequency("evidence"), kEach);
}

TEST_P(DocumentConformance, PutRejectsABlankOwnerAndAReusedId) {
  EXPECT_EQ(stores_.documents->PutDocument(Doc("x", "", 1000, "")).status().code(),
            StatusCode::kInvalidArgument);
  DocumentRow a = Doc("first content");
  a.id = "fixed";
  ASSERT_TRUE(Put(a).created);
  DocumentRow b = Doc("second content");
  b.id = "fixed";
  EXPECT_EQ(stores_.documents->PutDocument(b).status().code(), StatusCode::kConflict);
  EXPECT_THAT(Found("second"), IsEmpty());
  auto count = stores_.documents->CountDocuments(std::nullopt);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 1);
}

TEST_P(DocumentConformance, CountedReadsIncrementTheAccessCount) {
  const std::string id = Put(Doc("read me")).row.id;
  for (int expected = 1; expected <= 3; ++expected) {
    auto r = stores_.documents->GetDocument(id, true);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE(r->has_value());
    EXPECT_EQ((*r)->access_count, expected);
  }
  auto plain = stores_.documents->GetDocument(id, false);
  ASSERT_TRUE(plain.ok() && plain->has_value());
  EXPECT_EQ((*plain)->access_count, 3);  // an uncounted read counts nothing
  auto missing = stores_.documents->GetDocument("gone", true);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(DocumentConformance, ConcurrentCountedReadsLoseNoIncrement) {
  const std::string id = Put(Doc("popular")).row.id;
  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  std::vector<std::set<int64_t>> seen(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = stores_.documents->GetDocument(id, true);
        ASSERT_TRUE(r.ok() && r->has_value());
        seen[static_cast<size_t>(t)].insert((*r)->access_count);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& s : seen) all.insert(s.begin(), s.end());
  EXPECT_EQ(all.size(), static_cast<size_t>(kThreads * kEach));  // every value returned once
  auto r = stores_.documents->GetDocument(id, false);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->access_count, kThreads * kEach);
}

TEST_P(DocumentConformance, SearchReadsSearchTextSummaryAndTagsInEnglishAndChinese) {
  DocumentRow tool = Doc("raw tool output that is never indexed", "cleaned deployment notes");
  tool.summary = "rollout of the payments service";
  tool.tags = {"kubernetes"};
  Put(tool);
  Put(Doc("Please migrate the billing database"));
  Put(Doc("我们明天讨论数据库迁移的计划"));
  EXPECT_THAT(Found("deployment"), ElementsAre("raw tool output that is never indexed"));
  EXPECT_THAT(Found("payments"), ElementsAre("raw tool output that is never indexed"));
  EXPECT_THAT(Found("kubernetes"), ElementsAre("raw tool output that is never indexed"));
  EXPECT_THAT(Found("never indexed"), IsEmpty());
  EXPECT_THAT(Found("billing"), ElementsAre("Please migrate the billing database"));
  EXPECT_THAT(Found("数据库迁移"), ElementsAre("我们明天讨论数据库迁移的计划"));
  EXPECT_THAT(
      Found("database 数据库", {.limit = 10}),
      UnorderedElementsAre("Please migrate the billing database", "我们明天讨论数据库迁移的计划"));
}

TEST_P(DocumentConformance, SearchScoresAreNormalisedAndOrderedThenNewestFirst) {
  Put(Doc("alpha beta", "", 1000));
  Put(Doc("alpha", "", 2000));
  Put(Doc("alpha again", "alpha", 3000));
  Put(Doc("gamma", "", 4000));
  auto hits = stores_.documents->SearchDocuments({.terms = text::QueryTerms("alpha beta")});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 3u);
  EXPECT_EQ((*hits)[0].row.content, "alpha beta");
  EXPECT_GT((*hits)[0].score, (*hits)[1].score);
  EXPECT_LE((*hits)[0].score, 1.0);
  EXPECT_GT((*hits)[2].score, 0.0);
  // Equal scores: the newer first.
  EXPECT_EQ((*hits)[1].score, (*hits)[2].score);
  EXPECT_EQ((*hits)[1].row.content, "alpha again");
  EXPECT_EQ((*hits)[2].row.content, "alpha");
}

TEST_P(DocumentConformance, SearchIsScopedToTheOwnerBeforeTheLimit) {
  for (int i = 0; i < 5; ++i) Put(Doc("shared words " + std::to_string(i), "shared words"));
  Put(Doc("shared words of bob", "shared words", 1000, "bob"));
  EXPECT_THAT(Found("shared words", {.owner = "bob", .limit = 1}),
              ElementsAre("shared words of bob"));
  EXPECT_EQ(Found("shared words", {.owner = "local", .limit = 100}).size(), 5u);
  EXPECT_EQ(Found("shared words", {.limit = 100}).size(), 6u);
  EXPECT_THAT(Found("shared words", {.owner = "carol"}), IsEmpty());
}

TEST_P(DocumentConformance, DeleteRemovesTheDocumentFromSearchListAndFrequencies) {
  const std::string id = Put(Doc("obsolete runbook for the cluster")).row.id;
  Put(Doc("current runbook"));
  EXPECT_EQ(Found("runbook", {.limit = 10}).size(), 2u);
  EXPECT_EQ(Frequency("runbook"), 2);
  auto deleted = stores_.documents->DeleteDocument(id);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(*deleted);
  EXPECT_THAT(Found("runbook", {.limit = 10}), ElementsAre("current runbook"));
  EXPECT_THAT(Found("cluster"), IsEmpty());
  EXPECT_EQ(Frequency("runbook"), 1);
  EXPECT_EQ(Frequency("cluster"), 0);
  EXPECT_THAT(Listed(std::nullopt, std::nullopt, 10, 0), ElementsAre("current runbook"));
  auto got = stores_.documents->GetDocument(id, true);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
  deleted = stores_.documents->DeleteDocument(id);
  ASSERT_TRUE(deleted.ok());
  EXPECT_FALSE(*deleted);
  // The content may be stored again, as a new document.
  DocumentPut again = Put(Doc("obsolete runbook for the cluster"));
  EXPECT_TRUE(again.created);
  EXPECT_NE(again.row.id, id);
  EXPECT_EQ(Found("cluster").size(), 1u);
}

TEST_P(DocumentConformance, ListIsNewestFirstWithIdTiebreakAndPages) {
  for (const char* id : {"c", "a", "b"}) {
    DocumentRow d = Doc(std::string("same time ") + id, "", 5000);
    d.id = id;
    Put(d);
  }
  Put(Doc("oldest", "", 1000));
  Put(Doc("newest", "", 9000));
  EXPECT_THAT(Listed(std::nullopt, std::nullopt, 10, 0),
              ElementsAre("newest", "same time a", "same time b", "same time c", "oldest"));
  EXPECT_THAT(Listed(std::nullopt, std::nullopt, 2, 0), ElementsAre("newest", "same time a"));
  EXPECT_THAT(Listed(std::nullopt, std::nullopt, 2, 2), ElementsAre("same time b", "same time c"));
  EXPECT_THAT(Listed(std::nullopt, std::nullopt, 2, 4), ElementsAre("oldest"));
  EXPECT_THAT(Listed(std::nullopt, std::nullopt, 2, 5), IsEmpty());
  EXPECT_THAT(Listed(std::nullopt, std::nullopt, 0, 0), IsEmpty());
  EXPECT_EQ(stores_.documents->ListDocuments(std::nullopt, std::nullopt, 10, -1).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_P(DocumentConformance, ListFiltersByOwnerAndSourcePrefix) {
  auto put = [&](std::string content, std::string source, TimeMs at, std::string owner) {
    DocumentRow d = Doc(std::move(content), "", at, std::move(owner));
    d.source = std::move(source);
    Put(d);
  };
  put("seg a", "agent://session/s1/segment/a#seq0-3", 1000, "local");
  put("seg b", "agent://session/s1/segment/b#seq4-9", 2000, "local");
  put("other session", "agent://session/s2/segment/c#seq0-1", 3000, "local");
  put("context", "context:s1", 4000, "local");
  put("bob's", "agent://session/s1/segment/d#seq0-1", 5000, "bob");
  put("prefix bytes", "agent://session/s1%", 6000, "local");  // % is no wildcard
  EXPECT_THAT(Listed("local", "agent://session/s1/", 10, 0), ElementsAre("seg b", "seg a"));
  EXPECT_THAT(Listed(std::nullopt, "agent://session/s1/", 10, 0),
              ElementsAre("bob's", "seg b", "seg a"));
  EXPECT_THAT(Listed("local", "context:", 10, 0), ElementsAre("context"));
  EXPECT_THAT(Listed("bob", std::nullopt, 10, 0), ElementsAre("bob's"));
  EXPECT_THAT(Listed("local", "agent://session/s1%", 10, 0), ElementsAre("prefix bytes"));
  EXPECT_THAT(Listed("local", "agent://session/s_", 10, 0), IsEmpty());  // _ is no wildcard
  EXPECT_EQ(Listed("local", "", 10, 0).size(), 5u);
}

TEST_P(DocumentConformance, DocumentFrequenciesCountDocumentsNotOccurrences) {
  DocumentRow tagged = Doc("x", "deploy deploy deploy");
  tagged.tags = {"kubernetes"};
  Put(tagged);
  DocumentRow summarised = Doc("y", "deploy the service");
  summarised.summary = "kubernetes rollout";
  Put(summarised);
  Put(Doc("z", "unrelated words", 1000, "bob"));
  const std::vector<std::string> terms = {text::QueryTerms("deploy")[0],
                                          text::QueryTerms("kubernetes")[0],
                                          text::QueryTerms("unrelated")[0], "nosuchtoken"};
  auto df = stores_.documents->DocumentFrequencies(terms);
  ASSERT_TRUE(df.ok()) << df.status().ToString();
  EXPECT_THAT(*df, ElementsAre(2, 2, 1, 0));
  auto none = stores_.documents->DocumentFrequencies({});
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(*none, IsEmpty());
}

TEST_P(DocumentConformance, UpdateDerivedReplacesTheIndexButNotTheContent) {
  DocumentRow d = Doc("the raw content", "first computation text");
  d.summary = "old summary";
  d.tags = {"oldtag"};
  DocumentPut put = Put(d);
  const std::vector<std::string> tags = {"newtag"};
  const std::vector<std::string> entities = {"deploy.py"};
  Status updated = stores_.documents->UpdateDocumentDerived(put.row.id, "second computation text",
                                                            "fresh summary", tags, entities, 7000);
  ASSERT_TRUE(updated.ok()) << updated.ToString();
  EXPECT_THAT(Found("first"), IsEmpty());
  EXPECT_THAT(Found("oldtag"), IsEmpty());
  EXPECT_THAT(Found("old"), IsEmpty());
  EXPECT_THAT(Found("second"), ElementsAre("the raw content"));
  EXPECT_THAT(Found("newtag"), ElementsAre("the raw content"));
  EXPECT_THAT(Found("fresh"), ElementsAre("the raw content"));
  EXPECT_EQ(Frequency("first"), 0);
  EXPECT_EQ(Frequency("second"), 1);
  auto got = stores_.documents->GetDocument(put.row.id, false);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->content, "the raw content");
  EXPECT_EQ((*got)->content_hash, put.row.content_hash);
  EXPECT_EQ((*got)->search_text, "second computation text");
  EXPECT_EQ((*got)->summary, "fresh summary");
  EXPECT_THAT((*got)->tags, ElementsAre("newtag"));
  EXPECT_THAT((*got)->entities, ElementsAre("deploy.py"));
  EXPECT_EQ((*got)->created_at, 1000);
  EXPECT_EQ((*got)->updated_at, 7000);
  EXPECT_EQ(stores_.documents->UpdateDocumentDerived("missing", "a", "b", tags, entities, 1).code(),
            StatusCode::kNotFound);
  // Deleting after an update removes exactly what the update indexed.
  auto deleted = stores_.documents->DeleteDocument(put.row.id);
  ASSERT_TRUE(deleted.ok() && *deleted);
  EXPECT_THAT(Found("second newtag fresh"), IsEmpty());
  EXPECT_EQ(Frequency("second"), 0);
}

// --- Segment recaps.

TEST_P(DocumentConformance, RecapSearchFindsClosedSegmentsInEnglishAndChinese) {
  PutSegment(ClosedSegment("s1", "We chose PostgreSQL for the billing service."));
  PutSegment(ClosedSegment("s1", "我们决定下周迁移数据库。"));
  PutSegment(ClosedSegment("s2", ""));
  SegmentRow open = ClosedSegment("s3", "An open segment about billing.");
  open.status = "open";
  open.closed_at = 0;
  PutSegment(open);
  EXPECT_THAT(Recaps("billing"), ElementsAre("We chose PostgreSQL for the billing service."));
  EXPECT_THAT(Recaps("数据库"), ElementsAre("我们决定下周迁移数据库。"));
  EXPECT_THAT(Recaps(""), IsEmpty());
  // Once closed, the open segment's recap is found too.
  auto closed = stores_.episodic->CloseSegment(open.id, 3000);
  ASSERT_TRUE(closed.ok() && *closed);
  EXPECT_THAT(Recaps("billing", {.limit = 10}),
              UnorderedElementsAre("An open segment about billing.",
                                   "We chose PostgreSQL for the billing service."));
  auto hits = stores_.episodic->SearchSegments({.terms = text::QueryTerms("billing")});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 2u);
  for (const SegmentHit& h : *hits) {
    EXPECT_GT(h.score, 0.0);
    EXPECT_LE(h.score, 1.0);
    EXPECT_EQ(h.row.status, "closed");
  }
}

TEST_P(DocumentConformance, RecapSearchFiltersByOwnerAndSessionBeforeTheLimit) {
  for (int i = 0; i < 4; ++i)
    PutSegment(ClosedSegment("other", "deploy recap " + std::to_string(i)));
  PutSegment(ClosedSegment("mine", "deploy recap of mine"));
  PutSegment(ClosedSegment("mine", "deploy recap of bob", 2000, "bob"));
  EXPECT_THAT(Recaps("deploy", {.session_id = "mine", .limit = 5}),
              UnorderedElementsAre("deploy recap of mine", "deploy recap of bob"));
  EXPECT_THAT(Recaps("deploy", {.owner = "local", .session_id = "mine", .limit = 1}),
              ElementsAre("deploy recap of mine"));
  EXPECT_THAT(Recaps("deploy", {.owner = "bob", .limit = 1}), ElementsAre("deploy recap of bob"));
  EXPECT_EQ(Recaps("deploy", {.limit = 100}).size(), 6u);
  EXPECT_EQ(Recaps("deploy", {.limit = 3}).size(), 3u);
}

TEST_P(DocumentConformance, AReplacedRecapReplacesItsIndexRow) {
  SegmentRow s = ClosedSegment("s", "extractive recap mentioning kafka");
  PutSegment(s);
  EXPECT_EQ(Recaps("kafka").size(), 1u);
  // The re-summarise pass: the same segment, an LLM recap, one more attempt.
  s.recap = "LLM summary about rabbitmq";
  s.recap_source = "llm";
  s.recap_attempts = 1;
  PutSegment(s);
  EXPECT_THAT(Recaps("kafka"), IsEmpty());
  EXPECT_THAT(Recaps("rabbitmq"), ElementsAre("LLM summary about rabbitmq"));
  // A put that keeps the recap keeps its row; an emptied recap drops it.
  s.recap_attempts = 2;
  PutSegment(s);
  EXPECT_EQ(Recaps("rabbitmq").size(), 1u);
  s.recap = "";
  s.recap_source = "";
  PutSegment(s);
  EXPECT_THAT(Recaps("rabbitmq"), IsEmpty());
  s.recap = "kafka again";
  PutSegment(s);
  EXPECT_THAT(Recaps("kafka"), ElementsAre("kafka again"));
}

TEST_P(DocumentConformance, RecapVectorsAreReadBackByVersion) {
  SegmentRow a = ClosedSegment("s1", "recap a");
  SegmentRow b = ClosedSegment("s2", "recap b", 2000, "bob");
  PutSegment(a);
  PutSegment(b);
  const std::vector<float> va = {1.0F, 0.0F, 0.5F};
  const std::vector<float> vb = {0.0F, 1.0F, -0.5F};
  ASSERT_TRUE(stores_.episodic->PutSegmentVector(a.id, "hash-v1-3", va).ok());
  ASSERT_TRUE(stores_.episodic->PutSegmentVector(b.id, "hash-v1-3", vb).ok());
  ASSERT_TRUE(
      stores_.episodic->PutSegmentVector(a.id, "other:2", std::vector<float>{2.0F, 3.0F}).ok());
  std::vector<SegmentVector> all = VectorsSince("hash-v1-3", 0);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].segment_id, a.id);
  EXPECT_EQ(all[0].owner, "local");
  EXPECT_EQ(all[0].session_id, "s1");
  EXPECT_EQ(all[0].vector, va);
  EXPECT_EQ(all[1].segment_id, b.id);
  EXPECT_EQ(all[1].owner, "bob");
  EXPECT_EQ(all[1].session_id, "s2");
  EXPECT_EQ(all[1].vector, vb);
  EXPECT_LT(all[0].version, all[1].version);
  EXPECT_GT(all[0].version, 0);
  // Caught up: nothing after the last version; the limit pages.
  EXPECT_THAT(VectorsSince("hash-v1-3", all[1].version), IsEmpty());
  std::vector<SegmentVector> first = VectorsSince("hash-v1-3", 0, 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].segment_id, a.id);
  std::vector<SegmentVector> rest = VectorsSince("hash-v1-3", first[0].version, 1);
  ASSERT_EQ(rest.size(), 1u);
  EXPECT_EQ(rest[0].segment_id, b.id);
  // A replacement gets a newer version and is all a caught-up reader sees.
  const int64_t seen = all[1].version;
  const std::vector<float> va2 = {0.25F, 0.25F, 0.25F};
  ASSERT_TRUE(stores_.episodic->PutSegmentVector(a.id, "hash-v1-3", va2).ok());
  std::vector<SegmentVector> later = VectorsSince("hash-v1-3", seen);
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].segment_id, a.id);
  EXPECT_EQ(later[0].vector, va2);
  EXPECT_GT(later[0].version, seen);
  // The replaced version is gone: one vector per (segment, signature).
  all = VectorsSince("hash-v1-3", 0);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].segment_id, b.id);
  EXPECT_EQ(all[1].segment_id, a.id);
  std::vector<SegmentVector> other = VectorsSince("other:2", 0);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].vector, (std::vector<float>{2.0F, 3.0F}));
  EXPECT_THAT(VectorsSince("unknown", 0), IsEmpty());
  EXPECT_THAT(VectorsSince("hash-v1-3", 0, 0), IsEmpty());
}

TEST_P(DocumentConformance, PutSegmentVectorRejectsBadInput) {
  SegmentRow a = ClosedSegment("s1", "recap a");
  PutSegment(a);
  const std::vector<float> v3 = {1.0F, 2.0F, 3.0F};
  EXPECT_EQ(stores_.episodic->PutSegmentVector("no-such-segment", "sig", v3).code(),
            StatusCode::kNotFound);
  EXPECT_EQ(stores_.episodic->PutSegmentVector(a.id, "", v3).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(stores_.episodic->PutSegmentVector(a.id, "sig", std::vector<float>{}).code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(stores_.episodic->PutSegmentVector(a.id, "sig", v3).ok());
  SegmentRow b = ClosedSegment("s2", "recap b");
  PutSegment(b);
  EXPECT_EQ(stores_.episodic->PutSegmentVector(b.id, "sig", std::vector<float>{1.0F, 2.0F}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(VectorsSince("sig", 0).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, DocumentConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

// Documents, recaps and turns share one score: the in-memory indexes score
// exactly as documents_fts and segment_recaps_fts with mnemo_score, and a
// text scores the same as a document, a recap or a turn.
TEST(DocumentScores, AreEqualOnEveryBackendAndOnTheScaleOfTurns) {
  const char* texts[] = {"I prefer dark mode in every editor", "I prefer tea",
                         "We decided to ship on Friday", "dark roast coffee, dark chocolate",
                         "我喜欢深色模式"};
  const std::vector<std::string> terms = text::QueryTerms("dark prefer mode 深色");
  std::vector<std::vector<double>> scores;
  for (const char* name : testing::kConformanceBackends) {
    testing::TempDir dir;
    auto backend = testing::MakeStores(name, dir);
    ASSERT_NE(backend.entries, nullptr);
    for (const char* t : texts) {
      ASSERT_TRUE(backend.documents->PutDocument(Doc(t)).ok());
      ASSERT_TRUE(backend.episodic->PutSegment(ClosedSegment("s", t)).ok());
      TurnWrite w;
      w.row.session_id = "s";
      w.row.role = "user";
      w.row.content = t;
      w.search_text = t;
      ASSERT_TRUE(backend.episodic->AppendTurns(std::vector<TurnWrite>{w}).ok());
    }
    auto docs = backend.documents->SearchDocuments({.terms = terms});
    auto recaps = backend.episodic->SearchSegments({.terms = terms});
    auto turns = backend.episodic->SearchTurns({.terms = terms});
    ASSERT_TRUE(docs.ok() && recaps.ok() && turns.ok());
    std::vector<double> d;
    std::vector<double> r;
    std::vector<double> t;
    for (const DocumentHit& h : *docs) d.push_back(h.score);
    for (const SegmentHit& h : *recaps) r.push_back(h.score);
    for (const TurnHit& h : *turns) t.push_back(h.score);
    ASSERT_EQ(d.size(), 4u);
    EXPECT_EQ(d, t) << name;
    EXPECT_EQ(r, t) << name;
    scores.push_back(d);
  }
  for (size_t i = 1; i < scores.size(); ++i) EXPECT_EQ(scores[i], scores[0]);
}

// Two SQLite backends on one file stand for two processes: their writers
// are separate connections, serialised only by SQLite's own lock.
TEST(SqliteDocuments, TwoWritersOfOneFileStoreAContentOnceAndShareVersions) {
  testing::TempDir dir;
  auto first = testing::MakeStores("sqlite", dir);
  auto second = testing::MakeStores("sqlite", dir);
  ASSERT_NE(first.entries, nullptr);
  ASSERT_NE(second.entries, nullptr);
  SegmentRow s = ClosedSegment("s", "recap");
  ASSERT_TRUE(first.episodic->PutSegment(s).ok());
  constexpr int kEach = 30;
  std::atomic<int> created{0};
  auto work = [&](const Stores& b) {
    for (int i = 0; i < kEach; ++i) {
      auto r = b.documents->PutDocument(Doc("shared evidence " + std::to_string(i)));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (r->created) ++created;
      ASSERT_TRUE(
          b.episodic->PutSegmentVector(s.id, "sig", std::vector<float>{static_cast<float>(i), 1.0F})
              .ok());
    }
  };
  std::thread t1(work, std::cref(first));
  std::thread t2(work, std::cref(second));
  t1.join();
  t2.join();
  EXPECT_EQ(created.load(), kEach);
  auto count = second.documents->CountDocuments(std::nullopt);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, kEach);
  // Every write got its own version: the last one is 2 × kEach.
  auto v = first.episodic->SegmentVectorsSince("sig", 0, 10);
  ASSERT_TRUE(v.ok());
  ASSERT_EQ(v->size(), 1u);
  EXPECT_EQ((*v)[0].version, 2 * kEach);
  // A write by one is read after the other's last seen version.
  ASSERT_TRUE(second.episodic->PutSegmentVector(s.id, "sig", std::vector<float>{7.0F, 7.0F}).ok());
  auto after = first.episodic->SegmentVectorsSince("sig", 2 * kEach, 10);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].vector, (std::vector<float>{7.0F, 7.0F}));
}

TEST(SqliteDocuments, DocumentsAndRecapsSurviveReopening) {
  testing::TempDir dir;
  std::string id;
  {
    auto b = testing::MakeStores("sqlite", dir);
    ASSERT_NE(b.entries, nullptr);
    auto put = b.documents->PutDocument(Doc("persisted evidence"));
    ASSERT_TRUE(put.ok());
    id = put->row.id;
    ASSERT_TRUE(b.episodic->PutSegment(ClosedSegment("s", "persisted recap")).ok());
  }
  auto b = testing::MakeStores("sqlite", dir);
  ASSERT_NE(b.entries, nullptr);
  auto docs = b.documents->SearchDocuments({.terms = text::QueryTerms("evidence")});
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 1u);
  EXPECT_EQ((*docs)[0].row.id, id);
  auto recaps = b.episodic->SearchSegments({.terms = text::QueryTerms("recap")});
  ASSERT_TRUE(recaps.ok());
  EXPECT_EQ(recaps->size(), 1u);
  auto again = b.documents->PutDocument(Doc("persisted evidence"));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
}

}  // namespace
}  // namespace mnemo::storage
