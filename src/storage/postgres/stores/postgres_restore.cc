// AdminStore::Restore on PostgreSQL: the one restore driver (RestoreRows,
// restore.h) inside one write (the writer lock held, one transaction),
// through the row writes the public methods use (PostgresDatabase's set-wise
// entry and vector writes, pg_writes.h), so index rows and keyword
// statistics are those a live write makes; ids given are kept when free and
// the sequences raised past them.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/postgres/pg_writes.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/postgres/stores/postgres_admin_store.h"
#include "storage/rules/graph_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

Result<bool> Exists(PgConn& conn, const std::string& sql, const Params& p) {
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn.Exec(sql, p, "check for a stored row"));
  return !rows.empty();
}

// Raises sequence `name` past MAX(id) of `table`.
Status RaiseSequence(PgConn& conn, const std::string& name, const std::string& table) {
  return conn
      .Exec("SELECT setval('" + name + "', GREATEST((SELECT last_value FROM " + name +
                "), (SELECT COALESCE(MAX(id), 1) FROM " + table + ")))",
            "raise the " + name + " sequence")
      .status();
}

// The texts of one kind of `batch`, tokenised before the writer lock is
// taken (which every writer waits for), found again by the row's address:
// RestoreRows hands the target the batch's own rows. Any other row is
// tokenised when asked.
template <typename Row>
class TextsOf {
 public:
  using TextOf = std::string_view (*)(const Row&);
  TextsOf(const std::vector<Row>& rows, TextOf text_of) : rows_(rows), text_of_(text_of) {
    texts_.reserve(rows.size());
    for (const Row& row : rows) texts_.push_back(pg::IndexText({text_of(row)}));
  }
  pg::IndexedText Of(const Row& row) const {
    const Row* first = rows_.data();
    if (std::less_equal<>()(first, &row) && std::less<>()(&row, first + rows_.size())) {
      return texts_[static_cast<size_t>(&row - first)];
    }
    return pg::IndexText({text_of_(row)});
  }

 private:
  const std::vector<Row>& rows_;
  const TextOf text_of_;
  std::vector<pg::IndexedText> texts_;
};

// The tokens of a batch's turns, events and context events.
struct RestoreTexts {
  explicit RestoreTexts(const RestoreBatch& batch)
      : turns(batch.turns,
              [](const TurnWrite& w) -> std::string_view { return w.SearchText(w.row); }),
        events(batch.events, [](const EventRow& e) -> std::string_view { return e.text; }),
        context_events(batch.context_events,
                       [](const ContextEventRow& c) -> std::string_view { return c.search_text; }) {
  }
  TextsOf<TurnWrite> turns;
  TextsOf<EventRow> events;
  TextsOf<ContextEventRow> context_events;
};

// The rows of a restore, inside the caller's write.
class PostgresRestoreTarget final : public RestoreTarget {
 public:
  PostgresRestoreTarget(PostgresDatabase& db, PgConn& conn, const RestoreTexts& texts)
      : db_(db), conn_(conn), texts_(texts) {}

  Result<int64_t> WriteEntries(std::span<const EntryWrite> entries,
                               std::vector<Label>& labels) override {
    return db_.UpsertManyIn(conn_, entries, &labels);
  }
  Status PutVectors(std::string_view signature, std::span<const LabeledVector> vectors) override {
    return db_.PutVectorsIn(conn_, signature, vectors);
  }

  Result<bool> HasTurn(const TurnRow& row) override {
    return Exists(conn_, "SELECT 1 FROM turns WHERE owner = $1 AND session_id = $2 AND seq = $3",
                  Params().Add(row.owner).Add(row.session_id).Add(row.seq));
  }
  Result<bool> HasSegment(const SegmentRow& seg) override {
    return Exists(conn_,
                  "SELECT 1 FROM segments WHERE id = $1 OR ($2 = 'open' AND owner = $3 AND "
                  "session_id = $4 AND status = 'open')",
                  Params().Add(seg.id).Add(seg.status).Add(seg.owner).Add(seg.session_id));
  }
  Result<bool> HasEvent(const EventRow& e) override {
    // md5 first: the unique index is on md5(text) (AddEventIn).
    return Exists(conn_,
                  "SELECT 1 FROM events WHERE id = $1 OR (owner = $2 AND type = $3 AND "
                  "md5(text) = md5($4) AND text = $4)",
                  Params().Add(e.id).Add(e.owner).Add(e.type).Add(e.text));
  }
  Result<bool> HasFacet(const FacetRow& f) override {
    return Exists(conn_, "SELECT 1 FROM facets WHERE owner = $1 AND facet_type = $2 AND key = $3",
                  Params().Add(f.owner).Add(f.facet_type).Add(f.key));
  }
  Result<bool> HasDocument(const DocumentRow& doc) override {
    return Exists(conn_,
                  "SELECT 1 FROM documents WHERE id = $1 OR (owner = $2 AND content_hash = $3)",
                  Params().Add(doc.id).Add(doc.owner).Add(doc.content_hash));
  }
  Result<bool> HasContextEvent(const ContextEventRow& row) override {
    return Exists(conn_,
                  "SELECT 1 FROM context_events WHERE owner = $1 AND session_id = $2 AND "
                  "seq = $3",
                  Params().Add(row.owner).Add(row.session_id).Add(row.seq));
  }
  Result<bool> HasTriple(const TripleRow& t) override {
    return Exists(conn_,
                  "SELECT 1 FROM triples WHERE id = $1 OR ($2 AND valid_to IS NULL AND owner = $3 "
                  "AND subject_key = $4 AND predicate = $5 AND object_key = $6)",
                  Params()
                      .Add(t.id)
                      .Add(t.valid_to == 0)
                      .Add(t.owner)
                      .Add(TripleTermKey(t.subject))
                      .Add(t.predicate)
                      .Add(TripleTermKey(t.object)));
  }

  Status InsertTurn(const TurnWrite& w) override {
    TurnRow row = w.row;
    MNEMO_ASSIGN_OR_RETURN(
        bool taken, Exists(conn_, "SELECT 1 FROM turns WHERE id = $1", Params().Add(row.id)));
    if (taken) row.id = 0;  // the next of turn_ids
    const pg::IndexedText text = texts_.turns.Of(w);
    MNEMO_RETURN_IF_ERROR(InsertTurnIn(conn_, row, w.SearchText(row), text).status());
    return pg::AddTextStats(conn_, "turns", 1, text.length);
  }
  Status InsertSegment(const SegmentRow& row) override { return PutSegmentIn(conn_, row); }
  Status InsertEvent(const EventRow& row) override {
    const pg::IndexedText text = texts_.events.Of(row);
    MNEMO_ASSIGN_OR_RETURN(const bool added, AddEventIn(conn_, row, text));
    if (!added) return Status::Ok();
    return pg::AddTextStats(conn_, "events", 1, text.length);
  }
  Status InsertFacet(const FacetRow& row) override { return PutFacetIn(conn_, row); }
  Status InsertDocument(const DocumentRow& row) override { return InsertDocumentIn(conn_, row); }
  Status InsertContextEvent(const ContextEventRow& given) override {
    ContextEventRow row = given;
    MNEMO_ASSIGN_OR_RETURN(bool taken, Exists(conn_, "SELECT 1 FROM context_events WHERE id = $1",
                                              Params().Add(row.id)));
    if (taken) row.id = 0;
    MNEMO_RETURN_IF_ERROR(
        InsertContextEventIn(conn_, row, texts_.context_events.Of(given)).status());
    return conn_
        .Exec(
            "INSERT INTO context_sessions (owner, session_id, next_seq) VALUES ($1, $2, "
            "$3) ON CONFLICT (owner, session_id) DO UPDATE SET next_seq = "
            "GREATEST(context_sessions.next_seq, excluded.next_seq)",
            Params().Add(row.owner).Add(row.session_id).Add(row.seq + 1),
            "raise the session's next sequence number")
        .status();
  }
  Status InsertTriple(const TripleRow& row) override { return internal::InsertTriple(conn_, row); }

 private:
  PostgresDatabase& db_;
  PgConn& conn_;
  const RestoreTexts& texts_;
};

}  // namespace

Result<RestoreReport> PostgresAdminStore::Restore(const RestoreBatch& batch) {
  MNEMO_RETURN_IF_ERROR(ValidateRestoreBatch(batch));
  const RestoreTexts texts(batch);  // before the writer lock, which every writer waits for
  RestoreReport report;
  MNEMO_RETURN_IF_ERROR(Write("restore a backup", [&](PgConn& conn) -> Status {
    PostgresRestoreTarget target(*db_, conn, texts);
    MNEMO_ASSIGN_OR_RETURN(report, RestoreRows(batch, target));
    MNEMO_RETURN_IF_ERROR(RaiseSequence(conn, "turn_ids", "turns"));
    return RaiseSequence(conn, "context_event_ids", "context_events");
  }));
  return report;
}

}  // namespace mnemo::storage::internal
