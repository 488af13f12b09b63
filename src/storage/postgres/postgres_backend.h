// The PostgreSQL backend (`memory.backend = "postgres"`): every table of the
// engine in one schema of a PostgreSQL database (pg_schema.cc), reached
// through a pool of libpq connections (pg_connection.h). Several mnemo
// processes on several machines may share one schema and behave as one
// memory.
//
// Writes: one transaction each that first takes the schema's advisory lock,
// so writers of every process are serialised exactly like SQLite's single
// writer (read-modify-write steps such as Mutate and StepSegment see no
// interleaved write) and sequence values are handed out in commit order.
// Reads run on any pooled connection without the lock, or on a hot standby
// of `read_urls` that has replayed this process's last write
// (pg_read_router.h).
// Keyword search: pg_text.h (mnemo's tokens in a tsvector, GIN, BM25 of
// bm25.h). Vectors: bytea rows and a change log, like SQLite's; each process
// keeps its in-memory index and catches up from the log on every search
// (one indexed read when nothing changed), so another process's writes are
// visible at once. The server's `vector` extension is not used: Debian 12
// does not package it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "storage/postgres/pg_connection.h"
#include "storage/postgres/pg_read_router.h"
#include "storage/stores.h"
#include "storage/vector_rules.h"

namespace mnemo::storage::internal {

class PostgresBackend final : public EntryStore,
                              public EpisodicStore,
                              public DocumentStore,
                              public ContextEventStore,
                              public GraphStore,
                              public AdminStore {
 public:
  static Result<std::unique_ptr<PostgresBackend>> Open(
      const PostgresOptions& options, int64_t vector_log_limit = kDefaultVectorLogLimit);
  ~PostgresBackend() override;

  std::string_view name() const { return "postgres"; }
  int schema_version() const { return schema_version_; }
  std::string_view store_id() const override { return store_id_; }

  Result<UpsertResult> Upsert(const EntryWrite& write) override;
  Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes,
                              std::vector<Label>* labels = nullptr) override;
  Result<std::vector<UpsertResult>> Mutate(const EntryGroup& group,
                                           const MutateFn& decide) override;
  Result<std::optional<Entry>> FindExact(std::string_view owner, std::string_view ns,
                                         std::string_view key) override;
  Result<std::optional<Entry>> Resolve(std::string_view ns, std::string_view key,
                                       const ReadScope& scope) override;
  Result<bool> Delete(std::string_view id) override;
  Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                           int64_t useful_delta) override;
  Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) override;
  Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) override;
  // Keyword searches answered by their first, pruned try (pg_entry_search.h).
  int64_t keyword_pruned_searches() const { return pruned_searches_.load(); }
  Result<Stats> GetStats(const ReadScope& scope) override;
  // Episodic turns, segments, events and facets: *_episodic.cc.
  Result<std::vector<TurnRow>> AppendTurns(std::span<const TurnWrite> rows) override;
  Result<std::vector<TurnRow>> SessionTurns(std::string_view owner, std::string_view session_id,
                                            int64_t from_seq, int64_t to_seq) override;
  Result<std::vector<TurnHit>> SearchTurns(const TurnQuery& query) override;
  Result<std::vector<TurnRow>> TurnsAfter(int64_t after_id, int limit) override;
  Status ReplaceTurnSearchText(int64_t id, std::string_view search_text) override;
  Result<std::optional<SegmentRow>> OpenSegment(std::string_view owner,
                                                std::string_view session_id) override;
  Status PutSegment(const SegmentRow& s) override;
  Result<bool> CloseSegment(std::string_view id, TimeMs closed_at) override;
  Result<SegmentChange> StepSegment(std::string_view owner, std::string_view session_id,
                                    const SegmentDecision& decide) override;
  Result<std::optional<SegmentRow>> GetSegment(std::string_view id) override;
  Result<std::vector<SegmentRow>> Segments(bool all, std::string_view owner,
                                           std::optional<std::string_view> session_id) override;
  Result<std::vector<SegmentRow>> SegmentsNeedingRecap(int limit, int64_t max_attempts) override;
  // Idempotent turns and idle segments: postgres_turn_claims.cc.
  Result<TurnClaimOutcome> ClaimTurn(const TurnClaim& claim,
                                     std::span<const TurnWrite> rows) override;
  Result<RecordedTurn> RecordTurn(const std::optional<TurnClaim>& claim,
                                  std::span<const TurnWrite> rows,
                                  const TurnSegmentDecision& decide) override;
  Result<bool> FinishTurnClaim(const TurnKey& key, std::string_view result) override;
  Result<std::optional<TurnClaim>> GetTurnClaim(const TurnKey& key) override;
  Status AddRuleCapture(const RuleCapture& capture) override;
  Result<std::vector<RuleCapture>> RuleCaptures(std::string_view owner) override;
  Result<std::vector<SegmentRow>> IdleOpenSegments(TimeMs before, int limit) override;
  Result<int64_t> AddEvents(std::span<const EventRow> rows) override;
  Result<std::vector<EventHit>> SearchEvents(const EventQuery& query) override;
  Result<bool> CloseEvent(std::string_view id, TimeMs closed_at) override;
  Result<FacetRow> MergeFacet(const FacetRow& observation) override;
  Result<std::vector<FacetRow>> Facets(bool all, std::string_view owner) override;
  // Corrections (episodic_store.h), at the end of the episodic file.
  Result<std::optional<EventRow>> GetEvent(std::string_view id) override;
  Result<bool> ReplaceEvent(const EventRow& row) override;
  Result<bool> DeleteEvent(std::string_view id) override;
  Result<bool> DeleteFacet(std::string_view owner, std::string_view facet_type,
                           std::string_view key) override;
  // Segment recap search and recap vectors: *_recaps.cc.
  Result<std::vector<SegmentHit>> SearchSegments(const SegmentQuery& query) override;
  Status PutSegmentVector(std::string_view segment_id, std::string_view signature,
                          std::span<const float> vector) override;
  Result<std::vector<SegmentVector>> SegmentVectorsSince(std::string_view signature,
                                                         int64_t after_version, int limit) override;
  // Documents: *_documents.cc.
  Result<DocumentPut> PutDocument(const DocumentRow& row) override;
  Result<std::optional<DocumentRow>> GetDocument(std::string_view id, bool count_access) override;
  Result<std::vector<DocumentHit>> SearchDocuments(const DocumentQuery& query) override;
  Result<std::vector<DocumentRow>> ListDocuments(std::optional<std::string> owner,
                                                 std::optional<std::string> source_prefix,
                                                 int limit, int64_t offset) override;
  Result<bool> DeleteDocument(std::string_view id) override;
  Result<int64_t> CountDocuments(std::optional<std::string> owner) override;
  Result<std::vector<int64_t>> DocumentFrequencies(std::span<const std::string> terms) override;
  Status UpdateDocumentDerived(std::string_view id, std::string_view search_text,
                               std::string_view summary, std::span<const std::string> tags,
                               std::span<const std::string> entities, TimeMs updated_at) override;
  // Context events: *_context_events.cc.
  Result<ContextEventRow> AppendContextEvent(const ContextEventRow& row) override;
  Result<std::vector<ContextEventRow>> ContextEvents(std::string_view owner,
                                                     std::string_view session_id) override;
  Result<std::vector<ContextEventHit>> SearchContextEvents(const ContextEventQuery& query) override;
  Result<int64_t> DeleteContextEventsUpTo(std::string_view owner, std::string_view session_id,
                                          int64_t up_to_seq) override;
  Result<int64_t> DeleteContextEventsByIds(std::span<const int64_t> ids) override;
  // Graph: *_graph.cc.
  Result<TripleUpsert> UpsertTriple(const TripleRow& row, bool single_valued) override;
  Result<std::vector<TripleRow>> QueryTriples(const TripleQuery& query) override;
  Result<std::optional<TripleRow>> GetTriple(std::string_view id) override;
  Result<bool> DeleteTriple(std::string_view id) override;
  Result<bool> CloseTriple(std::string_view id, TimeMs at) override;
  Result<int64_t> Generation(Counter which) override;
  Result<HygieneCounts> ApplyHygiene(std::span<const std::string> ids,
                                     const HygieneFn& decide) override;
  Result<bool> ClaimHygieneRun(TimeMs now, TimeMs interval) override;
  Result<std::optional<TimeMs>> LastHygieneRun() override;
  Status ForEach(const ReadScope& scope, std::string_view ns_prefix,
                 const std::function<Status(const Entry&)>& fn) override;

  // Vectors and reads by label: sqlite_vectors.cc.
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
                                             std::span<const Label> vector_labels) override;
  Result<std::vector<Label>> AcceptedLabels(std::span<const Label> labels,
                                            const EntryFilter& filter) override;

  // Backup: postgres_restore.cc.
  Result<std::vector<ContextEventRow>> ContextEventsAfter(int64_t after_id, int limit) override;
  Result<std::vector<std::string>> VectorSignatures() override;
  Result<RestoreReport> Restore(const RestoreBatch& batch) override;
  Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) override;
  // Erasure: postgres_erasure.cc.
  Result<ErasureCounts> EraseSession(const SessionErasure& what) override;
  Result<ErasureCounts> ErasePrincipal(std::string_view owner) override;

 private:
  explicit PostgresBackend(int64_t vector_log_limit);

  // Runs `body` as one write transaction holding the schema's writer lock
  // (retried as pg::Pool::Transaction says).
  Status Write(std::string_view what, const std::function<Status(pg::PgConn&)>& body);
  // A connection for a read: the primary's pool or a standby's
  // (pg_read_router.h).
  Result<pg::Pool::Lease> Read();

  // Inside a write: the upsert of one entry.
  Result<UpsertResult> UpsertIn(pg::PgConn& conn, const EntryWrite& write);
  // Inside a write: the upserts of `writes` in order, as UpsertBatch, set-wise
  // (postgres_bulk_write.cc); the label of each write appended to `labels`.
  Result<int64_t> UpsertManyIn(pg::PgConn& conn, std::span<const EntryWrite> writes,
                               std::vector<Label>* labels);
  // Inside a write: deletes one entry (its keyword statistics and vectors).
  Status DropEntryIn(pg::PgConn& conn, Label label, int64_t doc_length);
  // Inside a write: deletes (and logs) every vector of `label`.
  Status DropVectorsIn(pg::PgConn& conn, Label label);
  // Inside a write: PutVectors.
  Status PutVectorsIn(pg::PgConn& conn, std::string_view signature,
                      std::span<const LabeledVector> vectors);
  // Inside a write: trims the vector change log when the policy says so.
  Status TrimVectorLogIn(pg::PgConn& conn);

  std::string schema_;
  int schema_version_ = 0;
  std::string store_id_;  // store_info.id
  std::unique_ptr<pg::Pool> pool_;
  std::unique_ptr<pg::ReadRouter> reads_;  // after pool_: it points into it
  // One write at a time from this process (the advisory lock orders the
  // processes); guards the members below.
  std::mutex writer_mu_;
  VectorLogTrimPolicy trim_;
  int64_t logged_changes_ = 0;  // vector changes logged by the current write
  std::atomic<int64_t> pruned_searches_{0};
};

}  // namespace mnemo::storage::internal
