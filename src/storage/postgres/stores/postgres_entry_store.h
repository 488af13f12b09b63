// The PostgreSQL entry store: rows of table entries with their keyword
// index (pg_text.h: mnemo's tokens in a tsvector, GIN, BM25 of bm25.h;
// the statement in pg_entry_search.h), labels from the sequence `labels`,
// and vectors in entry_vectors with their change log in vector_changes,
// like SQLite's. Each process keeps its in-memory vector index and catches
// up from the log on every search (one indexed read when nothing changed),
// so another process's writes are visible at once. The server's `vector`
// extension is not used: Debian 12 does not package it.
// Files: postgres_entry_store.cc (writes, reads, hygiene), postgres_vectors.cc
// (vectors and reads by label); batches are written set-wise by
// ../postgres_bulk_write.cc.
#pragma once

#include <atomic>
#include <memory>

#include "storage/entry_store.h"
#include "storage/postgres/postgres_database.h"
#include "storage/postgres/sql/pg_keyword_stats.h"

namespace mnemo::storage::internal {

class PostgresEntryStore final : public EntryStore, private PostgresStore {
 public:
  explicit PostgresEntryStore(std::shared_ptr<PostgresDatabase> db);

  std::string_view store_id() const override { return db_->store_id(); }
  Result<UpsertResult> Upsert(const EntryWrite& write) override;
  Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes,
                              std::vector<Label>* labels = nullptr) override;
  Result<std::vector<UpsertResult>> Mutate(const EntryGroup& group,
                                           const MutateFn& decide) override;
  Result<std::optional<Entry>> FindExact(std::string_view owner, const Namespace& ns,
                                         const Key& key) override;
  Result<std::optional<Entry>> Resolve(const Namespace& ns, const Key& key,
                                       const ReadScope& scope) override;
  Result<bool> Delete(std::string_view id) override;
  Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                           int64_t useful_delta) override;
  Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) override;
  Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) override;
  Result<Stats> GetStats(const ReadScope& scope) override;
  Result<int64_t> Generation(Counter which) override;
  Result<HygieneCounts> ApplyHygiene(std::span<const std::string> ids,
                                     const HygieneFn& decide) override;
  Result<bool> ClaimHygieneRun(TimeMs now, TimeMs interval) override;
  Result<std::optional<TimeMs>> LastHygieneRun() override;
  Status ForEach(const ReadScope& scope, std::string_view ns_prefix,
                 const std::function<Status(const Entry&)>& fn) override;
  Status PutVectors(std::string_view signature, std::span<const LabeledVector> vectors) override;
  Status ForEachVector(std::string_view signature,
                       const std::function<Status(const LabeledVector&)>& fn) override;
  Result<std::vector<LabeledVector>> VectorsFor(std::string_view signature,
                                                std::span<const Label> labels) override;
  Result<std::vector<MissingVector>> MissingVectors(std::string_view signature, Label after_label,
                                                    int limit) override;
  Result<int64_t> CountMissingVectors(std::string_view signature) override;
  Result<int64_t> VectorWatermark(std::string_view signature) override;
  Result<std::vector<VectorChange>> VectorChangesSince(std::string_view signature, int64_t seq,
                                                       int limit) override;
  Result<int64_t> CountVectors(std::string_view signature) override;
  Result<std::vector<KeywordHit>> FetchByLabels(std::span<const Label> labels,
                                                const EntryFilter& filter,
                                                const std::vector<std::string>& terms) override;
  Result<FetchedCandidates> FetchWithVectors(std::span<const Label> labels,
                                             const EntryFilter& filter,
                                             const std::vector<std::string>& terms,
                                             std::string_view signature,
                                             std::span<const Label> vector_labels,
                                             bool with_watermark) override;
  Result<std::vector<Label>> AcceptedLabels(std::span<const Label> labels,
                                            const EntryFilter& filter) override;
  Result<std::vector<std::string>> VectorSignatures() override;
  Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) override;
  // Keyword searches answered by their first, pruned try (pg_entry_search.h).
  int64_t keyword_pruned_searches() const { return pruned_searches_.load(); }
  // Reads of the keyword statistics a search did not find cached at the
  // store's generation (pg_keyword_stats.h).
  int64_t keyword_stats_reads() const { return db_->keyword_stats().reads(); }
  // The keyword statistics the searches weigh with: the database's
  // (PostgresDatabase::keyword_stats).
  pg::KeywordStatsCache& keyword_stats() { return db_->keyword_stats(); }
  // The node's keyword index (pg_node_search.h): nullptr when the searches
  // are scored by the server.
  pg::NodeKeywords* node_keywords() { return db_->node_keywords(); }

 private:
  // Inside a write: the upsert of one entry.
  Result<UpsertResult> UpsertIn(pg::PgConn& conn, const EntryWrite& write);
  // Inside a write: deletes one entry (its keyword statistics and vectors).
  Status DropEntryIn(pg::PgConn& conn, Label label, int64_t doc_length);

  std::atomic<int64_t> pruned_searches_{0};
};

}  // namespace mnemo::storage::internal
