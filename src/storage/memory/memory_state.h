// The state of the in-memory backend (`in_memory`, memory_backend.h): every
// row of every store and its indexes, behind one lock, with the row
// primitives the stores share (an insert with its index rows, a deletion,
// the vector change log). Only the store classes read it (friends). Nothing
// is persisted. It keeps its own inverted index over the same tokens the
// SQLite FTS5 table indexes (key and content tokenised separately by
// text::Tokenize, document length counted like FTS5 counts it) and scores with
// bm25.h, so both backends return the same hits with the same scores.
// Labels are a counter, never reused. Vectors and their change log follow the
// same rules as the SQLite tables (vector_rules.h); the log's sequence
// numbers are shared by all signatures, like SQLite's AUTOINCREMENT.
//
// Thread-safety: a std::shared_mutex; reads share it, writes hold it alone.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "storage/admin_store.h"
#include "storage/context_event_store.h"
#include "storage/document_store.h"
#include "storage/entry_store.h"
#include "storage/episodic_store.h"
#include "storage/graph_store.h"
#include "storage/memory/text_index.h"
#include "storage/rules/bm25.h"
#include "storage/rules/vector_rules.h"

namespace mnemo::storage::internal {

class MemoryState {
 public:
  // `vector_log_limit`: changes kept per signature (vector_rules.h).
  explicit MemoryState(int64_t vector_log_limit = kDefaultVectorLogLimit)
      : trim_(vector_log_limit) {}
  MemoryState(const MemoryState&) = delete;
  MemoryState& operator=(const MemoryState&) = delete;

 private:
  friend class MemoryEntryStore;
  friend class MemoryEpisodicStore;
  friend class MemoryDocumentStore;
  friend class MemoryContextEventStore;
  friend class MemoryGraphStore;
  friend class MemoryAdminStore;
  friend class MemoryRestoreTarget;  // memory_restore.cc

  // PutSegment and CloseSegment with mu_ held exclusively.
  Status PutSegmentLocked(const SegmentRow& s);
  Result<bool> CloseSegmentLocked(std::string_view id, TimeMs closed_at);
  // Row inserts with mu_ held exclusively, as given (ids and seqs set),
  // with their index rows; shared by the public writes and Restore.
  void InsertTurnLocked(const TurnRow& row, std::string_view search_text);
  void InsertEventLocked(const EventRow& e);
  void InsertDocumentLocked(const DocumentRow& doc);
  void InsertContextEventLocked(const ContextEventRow& row);
  using Row = Label;
  using Address = std::tuple<std::string, std::string, std::string>;  // owner, ns, key
  using Name = std::pair<std::string, std::string>;                   // ns, key

  struct Doc {
    Entry entry;
    int64_t length = 0;                                  // tokens, as FTS5 counts them
    std::unordered_map<std::string, int64_t> frequency;  // token -> occurrences
    std::optional<std::string> fingerprint;              // EntryWrite::fingerprint
  };
  // What a write replaced, so a failed batch can be undone.
  struct Undo {
    Row row;
    std::optional<Doc> before;  // absent: the write created the row
    std::vector<std::pair<std::string, std::vector<float>>> vectors;  // dropped, by signature
    std::vector<std::string> put;  // signatures the write stored a vector of (EntryWrite::vectors)
  };
  // One row of a signature's change log; `present` as in vector_rules.h.
  struct LogRow {
    int64_t seq;
    Label label;
    int present;
  };
  // The vectors of one signature and their change log (oldest first).
  struct VectorSpace {
    std::map<Label, std::vector<float>> vectors;
    std::deque<LogRow> log;
  };
  // The query side of one keyword query: the terms' postings, scored per
  // document exactly as KeywordSearch scores them.
  class KeywordScorer {
   public:
    // BM25 statistics over the entries `scope` may read (issue 17: a
    // caller's scores never depend on others' private entries).
    KeywordScorer(const MemoryState& state, std::vector<std::string> terms, const ReadScope& scope);
    const std::set<Row>& candidates() const { return candidates_; }
    double Score(const Doc& doc);

   private:
    std::vector<std::string> terms_;
    Bm25Corpus corpus_;
    std::set<Row> candidates_;
    std::vector<Bm25Term> stats_;
    std::vector<int64_t> documents_with_term_;
  };

  static Doc MakeDoc(Entry entry, const Doc* previous);
  void Insert(Row row, Doc doc);
  // Advances the Generation counters `ns` belongs to.
  void CountChangeLocked(std::string_view ns);
  Doc Erase(Row row);
  Result<UpsertResult> ApplyLocked(const EntryWrite& write, std::vector<Undo>& undo);
  // Undoes `undo` and every change logged from `first_seq` on.
  void RollBackLocked(std::vector<Undo>& undo, int64_t first_seq);
  std::vector<const Entry*> MatchingLocked(const EntryFilter& filter) const;
  // Deletes every vector of `row` (logging each); returns how many. Kept in
  // `undo` when given, so a failed batch can put them back.
  int64_t DropVectorsLocked(Row row, Undo* undo);
  void LogLocked(VectorSpace& space, Label label, int present);
  // Trims the change logs when the policy says so (vector_rules.h).
  void LoggedLocked(int64_t changes);
  const VectorSpace* FindSpaceLocked(std::string_view signature) const;
  // The dimension of the stored vectors of `signature`; none when it has none.
  std::optional<size_t> StoredDimensionLocked(std::string_view signature) const;
  // Stores `vector` for `row` in the space of `signature` and logs it.
  void PutVectorLocked(std::string_view signature, Row row, std::vector<float> vector);

  mutable std::shared_mutex mu_;
  Row next_row_ = 1;
  std::map<Row, Doc> docs_;  // by label: vector paging walks it in order
  std::unordered_map<std::string, Row> by_id_;
  std::map<Address, Row> by_address_;
  std::map<Name, std::set<Row>> by_name_;
  std::unordered_map<std::string, std::unordered_set<Row>> postings_;
  int64_t total_tokens_ = 0;
  std::map<std::string, VectorSpace, std::less<>> spaces_;
  int64_t next_seq_ = 1;
  // EntryStore::Generation.
  int64_t tool_rules_generation_ = 0;
  int64_t tool_registry_generation_ = 0;
  std::optional<TimeMs> hygiene_last_run_;  // ClaimHygieneRun

  // Episodic turns (memory_episodic_store.cc), by id.
  struct TurnDoc {
    TurnRow row;
    int64_t length = 0;
    std::unordered_map<std::string, int64_t> frequency;
  };
  std::map<int64_t, TurnDoc> turns_;
  std::map<std::tuple<std::string, std::string, int64_t>, int64_t> turns_by_session_;
  std::unordered_map<std::string, std::unordered_set<int64_t>> turn_postings_;
  int64_t turn_tokens_ = 0;
  int64_t next_turn_id_ = 1;
  // AppendTurns with mu_ held exclusively (rows validated).
  std::vector<TurnRow> AppendTurnsLocked(std::span<const TurnWrite> rows);
  // The rows AppendTurnsLocked would store (ids and seqs set), storing none;
  // moved out of `rows` when `Write` is TurnWrite (RecordTurn's own), copied
  // when it is const TurnWrite.
  template <typename Write>
  std::vector<TurnRow> PlanTurnsLocked(std::span<Write> rows) const;
  // StepSegment with mu_ held exclusively.
  Result<SegmentChange> StepSegmentLocked(std::string_view owner, std::string_view session_id,
                                          const EpisodicStore::SegmentDecision& decide);
  // Turn claims (memory_turn_claims.cc) by (owner, session_id, turn_id).
  std::map<std::tuple<std::string, std::string, std::string>, TurnClaim> turn_claims_;
  // Rule captures by (owner, session_id, tool_name, rule_id).
  std::set<std::tuple<std::string, std::string, std::string, std::string>> rule_captures_;
  // Segments by id, and the id of each (owner, session)'s open segment.
  std::map<std::string, SegmentRow> segments_;
  std::map<std::pair<std::string, std::string>, std::string> open_segments_;
  // Events by row (insertion order), indexed like turns.
  struct EventDoc {
    EventRow row;
    int64_t length = 0;
    std::unordered_map<std::string, int64_t> frequency;
  };
  std::map<int64_t, EventDoc> events_;
  std::unordered_set<std::string> event_ids_;
  std::set<std::tuple<std::string, std::string, std::string>> event_texts_;  // owner, type, text
  std::unordered_map<std::string, std::unordered_set<int64_t>> event_postings_;
  int64_t event_tokens_ = 0;
  int64_t next_event_row_ = 1;
  // Facets by (facet_type, key, owner): Facets order.
  std::map<std::tuple<std::string, std::string, std::string>, FacetRow> facets_;
  // The recap index (memory_recaps.cc): every segment with a non-empty
  // recap, as a document of recap_index_ numbered by a row of its own.
  // Kept by SyncRecapLocked, which every write of a segment calls.
  void SyncRecapLocked(const SegmentRow& segment);
  TextIndex recap_index_;
  std::unordered_map<std::string, int64_t> recap_rows_;      // segment id -> row
  std::unordered_map<int64_t, std::string> recap_segments_;  // row -> segment id
  int64_t next_recap_row_ = 1;
  // Recap vectors by (signature, segment id), and the same by version.
  struct StoredSegmentVector {
    int64_t version = 0;
    std::vector<float> vector;
  };
  std::map<std::pair<std::string, std::string>, StoredSegmentVector> segment_vectors_;
  std::map<std::pair<std::string, int64_t>, std::string> segment_vector_versions_;
  int64_t segment_vector_version_ = 0;  // the last version handed out
  // Documents (memory_document_store.cc) by row, indexed like documents_fts.
  std::map<int64_t, DocumentRow> documents_;
  std::unordered_map<std::string, int64_t> document_rows_;                  // id -> row
  std::map<std::pair<std::string, std::string>, int64_t> document_hashes_;  // owner, content_hash
  TextIndex document_index_;
  int64_t next_document_row_ = 1;
  // Context events (memory_context_event_store.cc) by id, indexed like
  // context_events_fts; the next seq of each (owner, session) survives the
  // deletion of its events.
  std::map<int64_t, ContextEventRow> context_events_;
  std::map<std::tuple<std::string, std::string, int64_t>, int64_t> context_by_session_;
  std::map<std::pair<std::string, std::string>, int64_t> context_next_seq_;
  TextIndex context_index_;
  int64_t next_context_id_ = 1;
  // Removes context event `id` (present) and its index row.
  void EraseContextEventLocked(int64_t id);
  // Erasure parts (memory_episodic_store.cc, memory_document_store.cc): the turns,
  // segments with recaps and recap vectors, events and facet evidence of
  // `owner` (of one session when given), counted into `counts`; one
  // document with its index row (false: none with that id).
  void EraseEpisodicLocked(std::string_view owner, std::optional<std::string_view> session_id,
                           ErasureCounts& counts);
  bool DropDocumentLocked(std::string_view id);
  // The context events and seq counters of `owner` (of one session when
  // given); returns how many events (memory_admin_store.cc).
  int64_t EraseContextLocked(std::string_view owner, std::optional<std::string_view> session_id);
  // Triples (memory_graph_store.cc) by row, in insertion order.
  std::map<int64_t, TripleRow> triples_;
  int64_t next_triple_row_ = 1;
  VectorLogTrimPolicy trim_;
};

}  // namespace mnemo::storage::internal
