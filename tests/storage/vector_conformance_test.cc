// The vector part of the storage contract (entry_store.h, "Vectors"): labels,
// vectors per signature, their change log, and reads by label. Run unchanged
// against every backend in kConformanceBackends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/stores.h"
#include "storage/test_values.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

EntryWrite Write(std::string key, std::string content, std::string ns = "global") {
  return EntryWrite{
      .ns = std::move(ns), .key = std::move(key), .content = std::move(content), .now = 1000};
}

std::vector<float> Vec(float a, float b, float c) { return {a, b, c}; }

std::vector<Label> LabelsOf(const std::vector<LabeledVector>& vectors) {
  std::vector<Label> out;
  for (const LabeledVector& v : vectors) out.push_back(v.label);
  return out;
}

std::vector<Label> LabelsOf(const std::vector<KeywordHit>& hits) {
  std::vector<Label> out;
  for (const KeywordHit& h : hits) out.push_back(h.label);
  return out;
}

std::vector<Label> LabelsOf(const std::vector<MissingVector>& missing) {
  std::vector<Label> out;
  for (const MissingVector& m : missing) out.push_back(m.label);
  return out;
}

class VectorConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr) << "cannot open backend " << GetParam();
  }

  UpsertResult Put(const EntryWrite& w) {
    auto r = stores_.entries->Upsert(w);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : UpsertResult{};
  }

  void PutVectors(std::string_view signature, std::vector<LabeledVector> vectors) {
    Status s = stores_.entries->PutVectors(signature, vectors);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }

  std::vector<LabeledVector> All(std::string_view signature) {
    std::vector<LabeledVector> out;
    Status s = stores_.entries->ForEachVector(signature, [&](const LabeledVector& v) {
      out.push_back(v);
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  std::vector<VectorChange> ChangesSince(std::string_view signature, int64_t seq,
                                         int limit = 1000) {
    auto r = stores_.entries->VectorChangesSince(signature, seq, limit);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<VectorChange>{};
  }

  int64_t Watermark(std::string_view signature) {
    auto r = stores_.entries->VectorWatermark(signature);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : -1;
  }

  std::vector<KeywordHit> Fetch(std::vector<Label> labels, const EntryFilter& filter = {},
                                std::string_view query = "") {
    auto r = stores_.entries->FetchByLabels(labels, filter, text::QueryTerms(query));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<KeywordHit>{};
  }

  // AcceptedLabels, checked against the labels FetchByLabels gives.
  std::vector<Label> Accepted(std::vector<Label> labels, const EntryFilter& filter = {}) {
    auto r = stores_.entries->AcceptedLabels(labels, filter);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {};
    EXPECT_EQ(*r, LabelsOf(Fetch(labels, filter)));
    return *r;
  }

  testing::TempDir dir_;
  Stores stores_;
};

TEST_P(VectorConformance, LabelsArePositiveDistinctAndStableAcrossUpserts) {
  const UpsertResult a = Put(Write("a", "alpha text"));
  const UpsertResult b = Put(Write("b", "beta text"));
  EXPECT_GT(a.label, 0);
  EXPECT_GT(b.label, 0);
  EXPECT_NE(a.label, b.label);
  EntryWrite rewrite = Write("a", "alpha rewritten");
  rewrite.tags = std::vector<std::string>{"t"};
  EXPECT_EQ(Put(rewrite).label, a.label);
  auto hits = stores_.entries->KeywordSearch({.terms = text::QueryTerms("alpha")});
  ASSERT_TRUE(hits.ok());
  EXPECT_THAT(LabelsOf(*hits), ElementsAre(a.label));
  EXPECT_THAT(LabelsOf(Fetch({b.label, a.label})), ElementsAre(b.label, a.label));
}

TEST_P(VectorConformance, LabelsOfDeletedEntriesAreNotReused) {
  Put(Write("a", "one"));
  const UpsertResult newest = Put(Write("b", "two"));
  ASSERT_TRUE(stores_.entries->Delete(newest.entry.id).ok());
  const UpsertResult next = Put(Write("c", "three"));
  EXPECT_GT(next.label, newest.label);
}

TEST_P(VectorConformance, TextChangedIsTrueForNewEntriesAndContentChangesOnly) {
  EXPECT_TRUE(Put(Write("k", "first")).text_changed);
  EntryWrite tags_only = Write("k", "first");
  tags_only.tags = std::vector<std::string>{"x"};
  tags_only.category = "daily";
  EXPECT_FALSE(Put(tags_only).text_changed);
  EXPECT_TRUE(Put(Write("k", "second")).text_changed);
}

TEST_P(VectorConformance, AContentChangeDeletesTheVectorsOfEverySignature) {
  const Label k = Put(Write("k", "first")).label;
  const Label other = Put(Write("other", "stays")).label;
  PutVectors("s1", {{k, Vec(1, 2, 3)}, {other, Vec(4, 5, 6)}});
  PutVectors("s2", {{k, {7, 8}}});
  const int64_t before_s1 = Watermark("s1");
  const int64_t before_s2 = Watermark("s2");

  EntryWrite tags_only = Write("k", "first");
  tags_only.tags = std::vector<std::string>{"x"};
  Put(tags_only);
  EXPECT_THAT(LabelsOf(All("s1")), ElementsAre(k, other));
  EXPECT_THAT(LabelsOf(All("s2")), ElementsAre(k));
  EXPECT_EQ(Watermark("s1"), before_s1);

  const UpsertResult rewritten = Put(Write("k", "second"));
  EXPECT_TRUE(rewritten.text_changed);
  EXPECT_THAT(LabelsOf(All("s1")), ElementsAre(other));
  EXPECT_THAT(All("s2"), IsEmpty());
  const auto s1 = ChangesSince("s1", before_s1);
  ASSERT_EQ(s1.size(), 1u);
  EXPECT_EQ(s1[0].label, k);
  EXPECT_THAT(s1[0].vector, IsEmpty());
  const auto s2 = ChangesSince("s2", before_s2);
  ASSERT_EQ(s2.size(), 1u);
  EXPECT_EQ(s2[0].label, k);
  EXPECT_THAT(s2[0].vector, IsEmpty());
}

TEST_P(VectorConformance, DeletingAnEntryDeletesAndLogsItsVectors) {
  const UpsertResult k = Put(Write("k", "text"));
  PutVectors("s", {{k.label, Vec(1, 0, 0)}});
  const int64_t before = Watermark("s");
  ASSERT_TRUE(stores_.entries->Delete(k.entry.id).ok());
  EXPECT_THAT(All("s"), IsEmpty());
  auto changes = ChangesSince("s", before);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].label, k.label);
  EXPECT_THAT(changes[0].vector, IsEmpty());
  EXPECT_GT(Watermark("s"), before);
}

TEST_P(VectorConformance, UpsertBatchDeletesVectorsPerWriteAndAFailedBatchKeepsThem) {
  const Label a = Put(Write("a", "one")).label;
  const Label b = Put(Write("b", "two")).label;
  PutVectors("s", {{a, Vec(1, 0, 0)}, {b, Vec(0, 1, 0)}});
  const int64_t before = Watermark("s");

  std::vector<EntryWrite> failing = {Write("a", "changed"), Write("", "empty key")};
  ASSERT_FALSE(stores_.entries->UpsertBatch(failing).ok());
  EXPECT_THAT(LabelsOf(All("s")), ElementsAre(a, b));
  EXPECT_EQ(Watermark("s"), before);
  EXPECT_THAT(ChangesSince("s", before), IsEmpty());

  std::vector<EntryWrite> batch = {Write("a", "changed"), Write("b", "two"), Write("c", "new")};
  auto created = stores_.entries->UpsertBatch(batch);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(*created, 1);
  EXPECT_THAT(LabelsOf(All("s")), ElementsAre(b));
  auto changes = ChangesSince("s", before);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].label, a);
}

TEST_P(VectorConformance, PutVectorsChecksDimensions) {
  const Label a = Put(Write("a", "one")).label;
  const Label b = Put(Write("b", "two")).label;
  Status mixed =
      stores_.entries->PutVectors("s", std::vector<LabeledVector>{{a, Vec(1, 2, 3)}, {b, {1, 2}}});
  EXPECT_EQ(mixed.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(mixed.message(), HasSubstr("expected 3"));
  EXPECT_THAT(mixed.message(), HasSubstr("got 2"));
  EXPECT_THAT(All("s"), IsEmpty());

  Status empty = stores_.entries->PutVectors("s", std::vector<LabeledVector>{{a, {}}});
  EXPECT_EQ(empty.code(), StatusCode::kInvalidArgument);

  PutVectors("s", {{a, Vec(1, 2, 3)}});
  Status other = stores_.entries->PutVectors("s", std::vector<LabeledVector>{{b, {1, 2, 3, 4}}});
  EXPECT_EQ(other.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(other.message(), HasSubstr("expected 3"));
  EXPECT_THAT(other.message(), HasSubstr("got 4"));
  // Another signature is another space, with its own dimension.
  PutVectors("t", {{b, {1, 2, 3, 4}}});
  EXPECT_TRUE(stores_.entries->PutVectors("s", std::vector<LabeledVector>{}).ok());

  // Once a signature has no vectors left, any dimension starts it again.
  Put(Write("a", "rewritten"));
  PutVectors("s", {{a, {1, 2}}});
  EXPECT_THAT(LabelsOf(All("s")), ElementsAre(a));
}

TEST_P(VectorConformance, PutVectorsReplacesAndSkipsLabelsThatDoNotExist) {
  const UpsertResult a = Put(Write("a", "one"));
  const UpsertResult gone = Put(Write("gone", "two"));
  ASSERT_TRUE(stores_.entries->Delete(gone.entry.id).ok());
  const int64_t before = Watermark("s");
  PutVectors("s", {{a.label, Vec(1, 2, 3)}, {gone.label, Vec(4, 5, 6)}, {999999, Vec(7, 8, 9)}});
  PutVectors("s", {{a.label, Vec(3, 2, 1)}});
  auto all = All("s");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].label, a.label);
  EXPECT_EQ(all[0].vector, Vec(3, 2, 1));
  // Only stored vectors are logged.
  EXPECT_EQ(ChangesSince("s", before).size(), 2u);
}

TEST_P(VectorConformance, ForEachVectorVisitsEveryVectorInLabelOrderAndStopsAtAnError) {
  constexpr int kEntries = 2500;  // more than one page
  std::vector<EntryWrite> writes;
  for (int i = 0; i < kEntries; ++i) {
    writes.push_back(Write("k" + std::to_string(i), "text " + std::to_string(i)));
  }
  ASSERT_TRUE(stores_.entries->UpsertBatch(writes).ok());
  std::vector<Label> labels;
  auto missing = stores_.entries->MissingVectors("s", 0, kEntries);
  ASSERT_TRUE(missing.ok());
  ASSERT_EQ(missing->size(), static_cast<size_t>(kEntries));
  std::vector<LabeledVector> vectors;
  // Stored in reverse order; read back in label order.
  for (auto it = missing->rbegin(); it != missing->rend(); ++it) {
    vectors.push_back({it->label, Vec(static_cast<float>(it->label), 0.5f, -1)});
    labels.push_back(it->label);
  }
  PutVectors("s", vectors);
  std::sort(labels.begin(), labels.end());
  auto all = All("s");
  EXPECT_EQ(LabelsOf(all), labels);
  for (const LabeledVector& v : all)
    EXPECT_EQ(v.vector, Vec(static_cast<float>(v.label), 0.5f, -1));

  int seen = 0;
  Status s = stores_.entries->ForEachVector("s", [&](const LabeledVector&) {
    return ++seen == 3 ? Internal("stop here") : Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(seen, 3);

  // The callback may call back into the backend.
  int nested = 0;
  s = stores_.entries->ForEachVector("s", [&](const LabeledVector& v) {
    if (++nested > 2) return Status::Ok();
    auto again = stores_.entries->VectorsFor("s", std::vector<Label>{v.label});
    return again.ok() && again->size() == 1 ? Status::Ok() : Internal("nested read failed");
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_P(VectorConformance, VectorsForReturnsThePresentOnesInTheGivenOrder) {
  const Label a = Put(Write("a", "one")).label;
  const Label b = Put(Write("b", "two")).label;
  const Label c = Put(Write("c", "three")).label;
  PutVectors("s", {{a, Vec(1, 0, 0)}, {c, Vec(0, 0, 1)}});
  auto r = stores_.entries->VectorsFor("s", std::vector<Label>{c, b, a, 424242, c});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(LabelsOf(*r), ElementsAre(c, a));
  EXPECT_EQ((*r)[0].vector, Vec(0, 0, 1));
  auto none = stores_.entries->VectorsFor("other", std::vector<Label>{a});
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(*none, IsEmpty());
}

TEST_P(VectorConformance, MissingVectorsPagesOverEveryNamespaceAndArchivedEntries) {
  const Label a = Put(Write("a", "one")).label;
  const Label b = Put(Write("b", "two", "tool-send_email")).label;
  EntryWrite archived = Write("c", "three", "work");
  archived.archived = true;
  const Label c = Put(archived).label;
  const Label d = Put(Write("d", "four")).label;
  const Label e = Put(Write("e", "five")).label;
  PutVectors("s", {{d, Vec(1, 1, 1)}});
  auto count = stores_.entries->CountMissingVectors("s");
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 4);

  auto page = stores_.entries->MissingVectors("s", 0, 2);
  ASSERT_TRUE(page.ok());
  EXPECT_THAT(LabelsOf(*page), ElementsAre(a, b));
  EXPECT_EQ((*page)[1].key, "b");
  EXPECT_EQ((*page)[1].content, "two");
  page = stores_.entries->MissingVectors("s", (*page)[1].label, 2);
  ASSERT_TRUE(page.ok());
  EXPECT_THAT(LabelsOf(*page), ElementsAre(c, e));
  page = stores_.entries->MissingVectors("s", e, 2);
  ASSERT_TRUE(page.ok());
  EXPECT_THAT(*page, IsEmpty());

  auto other = stores_.entries->CountMissingVectors("other");
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(*other, 5);
}

TEST_P(VectorConformance, TheWatermarkGrowsAndChangesListPutsAndRemovalsInOrder) {
  EXPECT_EQ(Watermark("s"), 0);
  EXPECT_THAT(ChangesSince("s", 0), IsEmpty());
  const UpsertResult a = Put(Write("a", "one"));
  const UpsertResult b = Put(Write("b", "two"));
  PutVectors("s", {{a.label, Vec(1, 0, 0)}});
  const int64_t w1 = Watermark("s");
  EXPECT_GT(w1, 0);
  PutVectors("t", {{a.label, {5}}});
  EXPECT_EQ(Watermark("s"), w1) << "another signature's change";
  PutVectors("s", {{b.label, Vec(0, 1, 0)}});
  const int64_t w2 = Watermark("s");
  EXPECT_GT(w2, w1);
  ASSERT_TRUE(stores_.entries->Delete(b.entry.id).ok());
  PutVectors("s", {{a.label, Vec(0, 0, 2)}});
  const int64_t w3 = Watermark("s");
  EXPECT_GT(w3, w2);

  auto changes = ChangesSince("s", 0);
  ASSERT_EQ(changes.size(), 4u);
  EXPECT_EQ(changes[0].label, a.label);
  // A put reads the label's current vector (replaced since).
  EXPECT_EQ(changes[0].vector, Vec(0, 0, 2));
  EXPECT_EQ(changes[1].label, b.label);
  EXPECT_THAT(changes[1].vector, IsEmpty()) << "deleted since";
  EXPECT_EQ(changes[2].label, b.label);
  EXPECT_THAT(changes[2].vector, IsEmpty());
  EXPECT_EQ(changes[3].label, a.label);
  EXPECT_EQ(changes[3].vector, Vec(0, 0, 2));
  EXPECT_EQ(changes[0].seq, w1);
  EXPECT_EQ(changes[3].seq, w3);
  for (size_t i = 1; i < changes.size(); ++i) EXPECT_GT(changes[i].seq, changes[i - 1].seq);

  auto limited = ChangesSince("s", 0, 2);
  ASSERT_EQ(limited.size(), 2u);
  EXPECT_EQ(ChangesSince("s", limited[1].seq).size(), 2u);
  EXPECT_THAT(ChangesSince("s", w3), IsEmpty());
}

TEST_P(VectorConformance, AReaderBehindATrimmedLogIsToldToRebuild) {
  testing::TempDir dir;
  auto small = testing::MakeStores(GetParam(), dir, /*vector_log_limit=*/4);
  ASSERT_NE(small.entries, nullptr);
  auto r = small.entries->Upsert(Write("a", "one"));
  ASSERT_TRUE(r.ok());
  const Label a = r->label;
  // "t" starts late: its log was never trimmed, so a reader from 0 is fine
  // even though earlier sequence numbers belong to "s".
  std::vector<int64_t> seqs;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(
        small.entries
            ->PutVectors("s", std::vector<LabeledVector>{{a, Vec(static_cast<float>(i), 0, 0)}})
            .ok());
    auto w = small.entries->VectorWatermark("s");
    ASSERT_TRUE(w.ok());
    seqs.push_back(*w);
  }
  ASSERT_TRUE(small.entries->PutVectors("t", std::vector<LabeledVector>{{a, {1}}}).ok());
  auto from_zero = small.entries->VectorChangesSince("t", 0, 100);
  ASSERT_TRUE(from_zero.ok()) << from_zero.status().ToString();
  EXPECT_EQ(from_zero->size(), 1u);

  // The newest 4 changes of "s" are kept; a reader that saw the one before
  // them misses nothing, an older one must rebuild.
  auto kept = small.entries->VectorChangesSince("s", seqs[5], 100);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->size(), 4u);
  EXPECT_EQ(kept->front().seq, seqs[6]);
  for (int64_t behind : {int64_t{0}, seqs[0], seqs[4]}) {
    auto old = small.entries->VectorChangesSince("s", behind, 100);
    ASSERT_FALSE(old.ok()) << behind;
    EXPECT_EQ(old.status().code(), StatusCode::kNotFound);
    EXPECT_THAT(old.status().message(), HasSubstr("rebuild"));
  }
  auto w = small.entries->VectorWatermark("s");
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(*w, seqs[9]);
}

TEST_P(VectorConformance, FetchByLabelsFiltersScoresLikeKeywordSearchAndKeepsTheOrder) {
  const Label relay = Put(Write("smtp", "the smtp relay is smtp.example.com")).label;
  const Label notes = Put(Write("notes", "relay relay relay and a longer tail of words")).label;
  const Label other = Put(Write("other", "nothing to see")).label;
  const Label system = Put(Write("tool", "relay settings", "tool-send_email")).label;
  EntryWrite archived_write = Write("old", "an archived relay");
  archived_write.archived = true;
  const Label archived = Put(archived_write).label;
  EntryWrite daily_write = Write("daily", "relay daily note");
  daily_write.category = "daily";
  daily_write.tags = std::vector<std::string>{"ops"};
  const Label daily = Put(daily_write).label;
  EntryWrite private_write = Write("secret", "bob's relay");
  private_write.owner = "bob";
  const Label secret = Put(private_write).label;

  const std::vector<Label> order = {other, daily, system, 987654, notes, archived, secret, relay};
  auto hits = Fetch(order, {}, "smtp relay");
  EXPECT_THAT(LabelsOf(hits), ElementsAre(other, daily, notes, secret, relay));
  auto search = stores_.entries->KeywordSearch({.terms = text::QueryTerms("smtp relay")});
  ASSERT_TRUE(search.ok());
  ASSERT_FALSE(search->empty());
  for (const KeywordHit& hit : hits) {
    if (hit.label == other) {
      EXPECT_EQ(hit.keyword_score, 0.0);
      EXPECT_EQ(hit.entry.key, "other");
      continue;
    }
    bool found = false;
    for (const KeywordHit& s : *search) {
      if (s.label != hit.label) continue;
      found = true;
      EXPECT_EQ(hit.keyword_score, s.keyword_score) << hit.entry.key;  // exactly
      EXPECT_EQ(hit.entry.id, s.entry.id);
    }
    EXPECT_TRUE(found) << hit.entry.key;
    EXPECT_GT(hit.keyword_score, 0) << hit.entry.key;
  }

  EXPECT_THAT(LabelsOf(Fetch(order, {.include_archived = true})),
              ElementsAre(other, daily, notes, archived, secret, relay));
  EXPECT_THAT(LabelsOf(Fetch(order, {.ns = "tool-send_email"})), ElementsAre(system));
  EXPECT_THAT(LabelsOf(Fetch(order, {.category = "daily"})), ElementsAre(daily));
  EXPECT_THAT(LabelsOf(Fetch(order, {.tags = {"ops"}})), ElementsAre(daily));
  EXPECT_THAT(LabelsOf(Fetch(order, {.scope = {.all = false, .principal = "local"}})),
              ElementsAre(other, daily, notes, relay));
  EXPECT_THAT(Fetch({}), IsEmpty());
  // The same labels without reading the entries, for every filter above.
  EXPECT_THAT(Accepted(order), ElementsAre(other, daily, notes, secret, relay));
  EXPECT_THAT(Accepted(order, {.include_archived = true}),
              ElementsAre(other, daily, notes, archived, secret, relay));
  EXPECT_THAT(Accepted(order, {.ns = "tool-send_email"}), ElementsAre(system));
  EXPECT_THAT(Accepted(order, {.category = "daily"}), ElementsAre(daily));
  EXPECT_THAT(Accepted(order, {.tags = {"ops"}}), ElementsAre(daily));
  EXPECT_THAT(Accepted(order, {.scope = {.all = false, .principal = "local"}}),
              ElementsAre(other, daily, notes, relay));
  EXPECT_THAT(Accepted(order, {.scope = {.all = false, .principal = "bob"}}), ElementsAre(secret));
  EXPECT_THAT(Accepted({relay, relay, 987654}), ElementsAre(relay));
  EXPECT_THAT(Accepted({}), IsEmpty());
  auto no_terms = Fetch({relay, relay});
  ASSERT_EQ(no_terms.size(), 1u);
  EXPECT_EQ(no_terms[0].keyword_score, 0.0);
}

// One call for a hybrid search's rows and vectors (one round trip on a
// server): exactly what FetchByLabels and VectorsFor give, every filter and
// score included, also when the second statement runs after a failure-free
// first on the same connection again (prepared statements reused).
TEST_P(VectorConformance, FetchWithVectorsGivesWhatFetchByLabelsAndVectorsForGive) {
  const Label relay = Put(Write("smtp", "the smtp relay is smtp.example.com")).label;
  const Label notes = Put(Write("notes", "relay relay relay and a longer tail of words")).label;
  const Label other = Put(Write("other", "nothing to see")).label;
  EntryWrite archived_write = Write("old", "an archived relay");
  archived_write.archived = true;
  const Label archived = Put(archived_write).label;
  PutVectors("s", {{relay, Vec(1, 0, 0)}, {other, Vec(0, 1, 0)}, {archived, Vec(0, 0, 1)}});
  const std::vector<std::string> terms = text::QueryTerms("smtp relay");
  const std::vector<Label> rows = {other, 987654, archived, notes, relay};
  const std::vector<Label> vectors = {archived, notes, relay, other, 424242};
  for (int round = 0; round < 2; ++round) {
    for (const EntryFilter& filter : {EntryFilter{}, EntryFilter{.include_archived = true}}) {
      auto both = stores_.entries->FetchWithVectors(rows, filter, terms, "s", vectors,
                                                    /*with_watermark=*/round == 1);
      ASSERT_TRUE(both.ok()) << both.status().ToString();
      EXPECT_EQ(both->watermark.has_value(), round == 1);
      auto hits = stores_.entries->FetchByLabels(rows, filter, terms);
      auto alone = stores_.entries->VectorsFor("s", vectors);
      ASSERT_TRUE(hits.ok() && alone.ok());
      ASSERT_EQ(LabelsOf(both->hits), LabelsOf(*hits));
      for (size_t i = 0; i < hits->size(); ++i) {
        EXPECT_EQ(both->hits[i].keyword_score, (*hits)[i].keyword_score);  // exactly
        EXPECT_EQ(both->hits[i].entry.content, (*hits)[i].entry.content);
      }
      ASSERT_EQ(LabelsOf(both->vectors), LabelsOf(*alone));
      for (size_t i = 0; i < alone->size(); ++i) {
        EXPECT_EQ(both->vectors[i].vector, (*alone)[i].vector);
      }
    }
  }
  auto rows_only = stores_.entries->FetchWithVectors(rows, {}, terms, "s", {}, false);
  ASSERT_TRUE(rows_only.ok());
  EXPECT_THAT(LabelsOf(rows_only->hits), ElementsAre(other, notes, relay));
  EXPECT_THAT(rows_only->vectors, IsEmpty());
  auto vectors_only = stores_.entries->FetchWithVectors({}, {}, terms, "s", vectors, false);
  ASSERT_TRUE(vectors_only.ok());
  EXPECT_THAT(vectors_only->hits, IsEmpty());
  EXPECT_THAT(LabelsOf(vectors_only->vectors), ElementsAre(archived, relay, other));
  auto none = stores_.entries->FetchWithVectors({}, {}, terms, "s", {}, false);
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(none->hits, IsEmpty());
  EXPECT_THAT(none->vectors, IsEmpty());
  EXPECT_FALSE(none->watermark.has_value());
}

// A hybrid search checks its index against the change log's watermark read
// in its fetch (one round trip on a server): it is VectorWatermark's, with
// rows, with vectors or with neither, and it moves with every change.
TEST_P(VectorConformance, FetchWithVectorsReadsTheWatermarkVectorWatermarkReads) {
  const std::vector<std::string> terms = text::QueryTerms("relay");
  auto watermark = [&](std::span<const Label> rows, std::span<const Label> vectors) {
    auto fetched = stores_.entries->FetchWithVectors(rows, {}, terms, "s", vectors, true);
    EXPECT_TRUE(fetched.ok()) << fetched.status().ToString();
    EXPECT_TRUE(fetched.ok() && fetched->watermark.has_value());
    return fetched.ok() ? fetched->watermark.value_or(-1) : -1;
  };
  auto stored = [&] {
    auto w = stores_.entries->VectorWatermark("s");
    EXPECT_TRUE(w.ok());
    return w.ok() ? *w : -2;
  };
  EXPECT_EQ(watermark({}, {}), stored());
  const Label relay = Put(Write("smtp", "the smtp relay")).label;
  const Label other = Put(Write("other", "nothing to see")).label;
  PutVectors("s", {{relay, Vec(1, 0, 0)}});
  const int64_t first = stored();
  const std::vector<Label> both = {relay, other};
  EXPECT_EQ(watermark(both, both), first);
  EXPECT_EQ(watermark({}, both), first);
  EXPECT_EQ(watermark(both, {}), first);
  PutVectors("s", {{other, Vec(0, 1, 0)}});
  EXPECT_GT(stored(), first);
  EXPECT_EQ(watermark(both, both), stored());
  PutVectors("s", {{relay, Vec(0, 0, 1)}});
  EXPECT_EQ(watermark({}, {}), stored());
  auto elsewhere = stores_.entries->FetchWithVectors(both, {}, terms, "nowhere", both, true);
  ASSERT_TRUE(elsewhere.ok());
  EXPECT_EQ(elsewhere->watermark, stores_.entries->VectorWatermark("nowhere").value());
}

TEST_P(VectorConformance, MatchingLabelsApplyTheFilterInLabelOrderUpToTheLimit) {
  std::vector<Label> work;
  for (int i = 0; i < 5; ++i) {
    EntryWrite w = Write("w" + std::to_string(i), "text", "work");
    w.category = i % 2 == 0 ? "daily" : "core";
    work.push_back(Put(w).label);
    Put(Write("g" + std::to_string(i), "text"));
  }
  Put(Write("sys", "text", "tool_effectiveness"));
  auto all = stores_.entries->MatchingLabels({}, 100);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 10u);  // not the system namespace's entry
  EXPECT_TRUE(std::is_sorted(all->begin(), all->end()));
  auto in_work = stores_.entries->MatchingLabels({.ns = "work"}, 6);
  ASSERT_TRUE(in_work.ok());
  EXPECT_EQ(*in_work, work);
  auto daily = stores_.entries->MatchingLabels({.category = "daily", .ns = "work"}, 10);
  ASSERT_TRUE(daily.ok());
  EXPECT_THAT(*daily, ElementsAre(work[0], work[2], work[4]));
  auto limited = stores_.entries->MatchingLabels({.ns = "work"}, 2);
  ASSERT_TRUE(limited.ok());
  EXPECT_THAT(*limited, ElementsAre(work[0], work[1]));
  auto none = stores_.entries->MatchingLabels({.ns = "nowhere"}, 10);
  ASSERT_TRUE(none.ok());
  EXPECT_THAT(*none, IsEmpty());
}

// EntryWrite::vectors: an entry and the vectors of its text in one write.
TEST_P(VectorConformance, AWriteStoresTheVectorsOfItsTextWithIt) {
  EntryWrite w = Write("k", "first text");
  w.vectors = {{.signature = "s", .vector = Vec(1, 0, 0)},
               {.signature = "other", .vector = {0.5F, 0.5F}}};
  const UpsertResult first = Put(w);
  ASSERT_EQ(All("s").size(), 1u);
  EXPECT_EQ(All("s")[0].label, first.label);
  EXPECT_EQ(All("s")[0].vector, Vec(1, 0, 0));
  ASSERT_EQ(All("other").size(), 1u);
  // Logged as PutVectors logs them: another process's index follows.
  const std::vector<VectorChange> logged = ChangesSince("s", 0);
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(logged[0].label, first.label);
  EXPECT_EQ(logged[0].vector, Vec(1, 0, 0));
  // The same text again: its stored vectors stay, nothing is logged.
  const int64_t watermark = Watermark("s");
  w.vectors = {{.signature = "s", .vector = Vec(0, 0, 1)}};
  EXPECT_FALSE(Put(w).text_changed);
  EXPECT_EQ(All("s")[0].vector, Vec(1, 0, 0));
  EXPECT_EQ(All("other").size(), 1u);
  EXPECT_EQ(Watermark("s"), watermark);
  // A new text: its vectors replace every old one.
  w.content = "second text";
  w.vectors = {{.signature = "s", .vector = Vec(0, 1, 0)}};
  EXPECT_EQ(Put(w).label, first.label);
  ASSERT_EQ(All("s").size(), 1u);
  EXPECT_EQ(All("s")[0].vector, Vec(0, 1, 0));
  EXPECT_THAT(All("other"), IsEmpty());
  auto missing = stores_.entries->CountMissingVectors("s");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(*missing, 0);
}

TEST_P(VectorConformance, AWriteWhoseVectorBreaksTheRulesWritesNothing) {
  EntryWrite stored = Write("a", "alpha");
  stored.vectors = {{.signature = "s", .vector = Vec(1, 0, 0)}};
  Put(stored);
  EntryWrite wrong = Write("b", "beta");
  wrong.vectors = {{.signature = "s", .vector = {1.0F, 0.0F}}};  // "s" has 3 dimensions
  auto r = stores_.entries->Upsert(wrong);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("dimension"));
  auto gone = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("b"));
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());  // neither the entry nor its vector
  EntryWrite twice = Write("c", "gamma");
  twice.vectors = {{.signature = "t", .vector = Vec(1, 0, 0)},
                   {.signature = "t", .vector = Vec(0, 1, 0)}};
  r = stores_.entries->Upsert(twice);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("one vector per signature"));
  EXPECT_EQ(All("s").size(), 1u);
  EXPECT_THAT(All("t"), IsEmpty());
}

TEST_P(VectorConformance, BatchesAndMutationsCarryTheirVectorsToo) {
  std::vector<EntryWrite> batch = {Write("a", "alpha"), Write("b", "beta"), Write("a", "alpha")};
  batch[0].vectors = {{.signature = "s", .vector = Vec(1, 0, 0)}};
  batch[1].vectors = {{.signature = "s", .vector = Vec(0, 1, 0)}};
  batch[2].vectors = {{.signature = "s", .vector = Vec(0, 0, 1)}};  // same text: not written
  std::vector<Label> labels;
  ASSERT_TRUE(stores_.entries->UpsertBatch(batch, &labels).ok());
  ASSERT_EQ(labels.size(), 3u);
  auto vectors = stores_.entries->VectorsFor("s", std::vector<Label>{labels[0], labels[1]});
  ASSERT_TRUE(vectors.ok());
  ASSERT_EQ(vectors->size(), 2u);
  EXPECT_EQ((*vectors)[0].vector, Vec(1, 0, 0));
  EXPECT_EQ((*vectors)[1].vector, Vec(0, 1, 0));
  auto mutated =
      stores_.entries->Mutate({.owner = "local", .ns = "global", .key = "b"},
                              [&](const std::vector<Entry>&) -> Result<std::vector<EntryWrite>> {
                                EntryWrite w = Write("b", "beta rewritten");
                                w.vectors = {{.signature = "s", .vector = Vec(1, 1, 0)}};
                                return std::vector<EntryWrite>{w};
                              });
  ASSERT_TRUE(mutated.ok()) << mutated.status().ToString();
  vectors = stores_.entries->VectorsFor("s", std::vector<Label>{labels[1]});
  ASSERT_TRUE(vectors.ok());
  ASSERT_EQ(vectors->size(), 1u);
  EXPECT_EQ((*vectors)[0].vector, Vec(1, 1, 0));
}

INSTANTIATE_TEST_SUITE_P(
    Backends, VectorConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo::storage
