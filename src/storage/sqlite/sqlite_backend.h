// The SQLite backend (default): one database file in WAL mode, one writer
// connection guarded by a mutex and a pool of reader connections, so reads
// run concurrently with the writer. Every write is one BEGIN IMMEDIATE
// transaction; UpsertBatch is one transaction for the whole batch. Keyword
// search runs on the contentless FTS5 table entries_fts (tokenizer `mnemo`,
// rank function mnemo_score) with every filter in the same statement.
// Labels are rowids; vectors live in entry_vectors with their change log in
// vector_changes (sqlite_vectors.cc). Schema: migrations.cc.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/sqlite/connection.h"
#include "storage/stores.h"
#include "storage/vector_rules.h"

namespace mnemo::storage::internal {

class Checkpointer;
class EntryTokenPipeline;
class ScoreStatsMemo;
class TokenizedTexts;

// How a connection is opened: kWriter and kReader on a database that takes
// writes; kReadOnly and kImmutable on one that does not
// (Connection::OpenReadOnly).
enum class OpenMode { kWriter, kReader, kReadOnly, kImmutable };

// A write's texts tokenized ahead of the writer (entry_tokens.h): its key is
// text `key` of `texts`, its content text key + 1.
struct PreparedTokens {
  const TokenizedTexts* texts = nullptr;
  size_t key = 0;
};

class SqliteBackend final : public EntryStore,
                            public EpisodicStore,
                            public DocumentStore,
                            public ContextEventStore,
                            public GraphStore,
                            public AdminStore {
 public:
  // `vector_log_limit`: changes kept per signature (vector_rules.h).
  static Result<std::unique_ptr<SqliteBackend>> Open(
      const SqliteOptions& options, int64_t vector_log_limit = kDefaultVectorLogLimit);
  ~SqliteBackend() override;

  std::string_view name() const { return "sqlite"; }
  std::string_view store_id() const override { return store_id_; }
  int schema_version() const { return schema_version_; }

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
  // sqlite_keyword_search.cc.
  Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) override;
  // How the keyword searches that tried to prune (fts_rank.h, PrunedMatch)
  // went since the open: answered by the first try, by the second, or run
  // again in full.
  struct KeywordPruneCounts {
    int64_t first = 0;
    int64_t second = 0;
    int64_t full = 0;
  };
  KeywordPruneCounts keyword_prune_counts() const;
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
  // Idempotent turns and idle segments: sqlite_turn_claims.cc.
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
  // Read without the write lock.
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
  Result<std::vector<Label>> AcceptedLabels(std::span<const Label> labels,
                                            const EntryFilter& filter) override;

  // Backup: sqlite_restore.cc (ContextEventsAfter: *_context_events.cc;
  // VectorSignatures: *_vectors.cc).
  Result<std::vector<ContextEventRow>> ContextEventsAfter(int64_t after_id, int limit) override;
  Result<std::vector<std::string>> VectorSignatures() override;
  Result<RestoreReport> Restore(const RestoreBatch& batch) override;
  Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) override;
  // Erasure: sqlite_erasure.cc.
  Result<ErasureCounts> EraseSession(const SessionErasure& what) override;
  Result<ErasureCounts> ErasePrincipal(std::string_view owner) override;
  Status CompactEntryIndex() override;
  Status CheckIntegrity(std::chrono::milliseconds budget) override;  // sqlite_integrity.cc

 private:
  // A reader connection borrowed from the pool; returned when destroyed.
  class ReaderLease {
   public:
    ReaderLease(SqliteBackend* owner, std::unique_ptr<Connection> conn)
        : owner_(owner), conn_(std::move(conn)) {}
    ReaderLease(ReaderLease&&) = default;
    ~ReaderLease();
    Connection& operator*() { return *conn_; }
    Connection* operator->() { return conn_.get(); }
    // This connection's keyword statistics (fts_rank.h), validated in the
    // caller's read transaction.
    Result<ScoreStatsMemo*> ValidMemo();

   private:
    SqliteBackend* owner_;
    std::unique_ptr<Connection> conn_;
  };

  explicit SqliteBackend(int64_t vector_log_limit);
  // The open of a database on a file system that takes no writes (`why`
  // names the cause): every connection read-only, no migration, no
  // checkpoints; Transaction::Begin refuses naming `why`.
  Status OpenReadOnly(const SqliteOptions& options, const std::string& why);
  // After writer_ is open: reads the store id and opens the reader pool in
  // `mode`, each refusing writes with `refusal` when it is not empty.
  Status OpenReaders(const SqliteOptions& options, OpenMode mode, const std::string& refusal);
  ReaderLease AcquireReader();
  // A text-index write WriteEntriesLocked holds back until the entry rows of
  // its chunk are written (see FlushDeferredIndex in sqlite_backend.cc).
  struct DeferredIndex {
    int64_t rowid = 0;
    std::optional<Entry> old;  // the text to remove first, if any
    Entry entry;               // the text to index
    PreparedTokens tokens;     // when set, the row already holds its length
  };
  // Writes one entry; its text index row now, or onto `deferred` when given.
  // A deferred entry's doc_length is left for FlushDeferredIndex to set
  // unless `tokens` are those of its key and content.
  Result<UpsertResult> UpsertLocked(const EntryWrite& write,
                                    std::vector<DeferredIndex>* deferred = nullptr,
                                    PreparedTokens tokens = {});
  // Runs the deferred index writes in order, then stores the length of each
  // row that does not hold it yet.
  Status FlushDeferredIndex(std::vector<DeferredIndex>& deferred);
  // Writes `writes` in order inside the caller's write transaction, chunk by
  // chunk (the entry rows, then their text-index rows) with the tokens
  // `tokens` prepared for them; appends each write's label to `labels` when
  // given and returns how many entries were created.
  Result<int64_t> WriteEntriesLocked(std::span<const EntryWrite> writes, EntryTokenPipeline& tokens,
                                     std::vector<Label>* labels);
  // AppendTurns inside the caller's write transaction (rows validated).
  Result<std::vector<TurnRow>> AppendTurnsLocked(std::span<const TurnWrite> rows);

  // Writer side of the vectors, inside the caller's transaction: deletes (and
  // logs) every vector of `label`; trims the change log when the policy says
  // so (call before committing a write that logged changes).
  Status DropVectorsLocked(Label label);
  // Deletes one entry row with its keyword row (the indexed key and
  // content) and its vectors, inside the caller's write transaction.
  Status DropEntryLocked(int64_t rowid, std::string_view key, std::string_view content);
  Status TrimVectorLogLocked();
  // PutVectors inside the caller's write transaction (no trim).
  Status PutVectorsLocked(std::string_view signature, std::span<const LabeledVector> vectors);

  int schema_version_ = 0;
  std::string store_id_;  // store_info.id (schema v11)
  std::mutex writer_mu_;
  // Shared by every connection below (DamageLatch): set, writes are refused.
  std::shared_ptr<DamageLatch> damage_ = std::make_shared<DamageLatch>();
  std::unique_ptr<Connection> writer_;
  // Guarded by writer_mu_. The next label is at least this, so a label freed
  // by deleting the newest entry is not handed out again while open.
  Label next_label_ = 1;
  // Guarded by writer_mu_. Set by WriteEntriesLocked once its transaction
  // has allocated a label: the write lock keeps other writers out until the
  // commit, so every later new row takes next_label_ without reading
  // MAX(rowid) again.
  bool labels_known_ = false;
  int64_t next_turn_id_ = 1;  // turn ids are never reused while open (like labels)
  VectorLogTrimPolicy trim_;
  int64_t logged_changes_ = 0;   // since the last trim check
  int64_t prune_from_rows_ = 0;  // SqliteOptions::prune_keyword_search_from_rows
  std::atomic<int64_t> pruned_first_{0};
  std::atomic<int64_t> pruned_second_{0};
  std::atomic<int64_t> pruned_full_{0};
  // One per reader connection, made at the open and only read after it.
  std::unordered_map<const Connection*, std::unique_ptr<ScoreStatsMemo>> memos_;
  std::mutex readers_mu_;
  std::condition_variable readers_cv_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
  // Declared after writer_: stopped (and its hook removed) before the
  // writer closes.
  std::unique_ptr<Checkpointer> checkpointer_;
};

}  // namespace mnemo::storage::internal
