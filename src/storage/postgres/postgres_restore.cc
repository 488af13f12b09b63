// The backup block of Backend on PostgreSQL: Restore as one write (the
// writer lock held, one transaction), through the row writes the public
// methods use (pg_writes.h); ids given are kept and the sequences raised
// past them.
#include <map>
#include <string>
#include <vector>

#include "storage/postgres/pg_writes.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/rules/document_rules.h"
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

}  // namespace

Result<std::vector<std::string>> PostgresBackend::VectorSignatures() {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->Exec("SELECT DISTINCT signature FROM entry_vectors ORDER BY "
                                    "signature",
                                    "list the vector signatures"));
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.emplace_back(rows.Text(i, 0));
  return out;
}

Result<RestoreReport> PostgresBackend::Restore(const RestoreBatch& batch) {
  MNEMO_RETURN_IF_ERROR(ValidateRestoreBatch(batch));
  // Tokenised before the writer lock is taken, which every writer waits for.
  std::vector<pg::IndexedText> turn_texts;
  for (const TurnWrite& w : batch.turns) turn_texts.push_back(pg::IndexText({w.search_text}));
  std::vector<pg::IndexedText> event_texts;
  for (const EventRow& e : batch.events) event_texts.push_back(pg::IndexText({e.text}));
  std::vector<pg::IndexedText> context_texts;
  for (const ContextEventRow& c : batch.context_events) {
    context_texts.push_back(pg::IndexText({c.search_text}));
  }
  RestoreReport report;
  MNEMO_RETURN_IF_ERROR(Write("restore a backup", [&](PgConn& conn) -> Status {
    report = {};
    std::vector<Label> labels;
    MNEMO_ASSIGN_OR_RETURN(report.entries_created, UpsertManyIn(conn, batch.entries, &labels));
    std::map<std::string, std::vector<LabeledVector>> by_signature;
    for (const RestoreVector& v : batch.vectors) {
      by_signature[v.signature].push_back({labels[v.entry], v.vector});
    }
    for (const auto& [signature, vectors] : by_signature) {
      MNEMO_RETURN_IF_ERROR(PutVectorsIn(conn, signature, vectors));
    }

    int64_t turn_rows = 0;
    int64_t turn_tokens = 0;
    for (size_t i = 0; i < batch.turns.size(); ++i) {
      TurnRow row = batch.turns[i].row;
      MNEMO_ASSIGN_OR_RETURN(bool stored,
                             Exists(conn,
                                    "SELECT 1 FROM turns WHERE owner = $1 AND session_id = $2 AND "
                                    "seq = $3",
                                    Params().Add(row.owner).Add(row.session_id).Add(row.seq)));
      if (stored) {
        ++report.skipped;
        continue;
      }
      MNEMO_ASSIGN_OR_RETURN(
          bool taken, Exists(conn, "SELECT 1 FROM turns WHERE id = $1", Params().Add(row.id)));
      if (taken) row.id = 0;
      MNEMO_RETURN_IF_ERROR(
          InsertTurnIn(conn, row, batch.turns[i].search_text, turn_texts[i]).status());
      ++turn_rows;
      turn_tokens += turn_texts[i].length;
    }
    MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, "turns", turn_rows, turn_tokens));
    MNEMO_RETURN_IF_ERROR(RaiseSequence(conn, "turn_ids", "turns"));

    for (const SegmentRow& seg : batch.segments) {
      MNEMO_ASSIGN_OR_RETURN(
          bool stored,
          Exists(conn,
                 "SELECT 1 FROM segments WHERE id = $1 OR ($2 = 'open' AND owner = $3 AND "
                 "session_id = $4 AND status = 'open')",
                 Params().Add(seg.id).Add(seg.status).Add(seg.owner).Add(seg.session_id)));
      if (stored) {
        ++report.skipped;
        continue;
      }
      MNEMO_RETURN_IF_ERROR(PutSegmentIn(conn, seg));
    }

    int64_t event_rows = 0;
    int64_t event_tokens = 0;
    for (size_t i = 0; i < batch.events.size(); ++i) {
      const EventRow& e = batch.events[i];
      MNEMO_ASSIGN_OR_RETURN(
          bool taken, Exists(conn, "SELECT 1 FROM events WHERE id = $1", Params().Add(e.id)));
      bool added = false;
      if (!taken) {
        MNEMO_ASSIGN_OR_RETURN(added, AddEventIn(conn, e, event_texts[i]));
      }
      if (!added) {
        ++report.skipped;
        continue;
      }
      ++event_rows;
      event_tokens += event_texts[i].length;
    }
    MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, "events", event_rows, event_tokens));

    for (const FacetRow& f : batch.facets) {
      MNEMO_ASSIGN_OR_RETURN(
          bool stored,
          Exists(conn, "SELECT 1 FROM facets WHERE owner = $1 AND facet_type = $2 AND key = $3",
                 Params().Add(f.owner).Add(f.facet_type).Add(f.key)));
      if (stored) {
        ++report.skipped;
        continue;
      }
      MNEMO_RETURN_IF_ERROR(PutFacetIn(conn, f));
    }

    for (const DocumentRow& given : batch.documents) {
      DocumentRow doc = given;
      doc.content_hash = ContentHash(doc.content);
      MNEMO_ASSIGN_OR_RETURN(
          bool stored,
          Exists(conn,
                 "SELECT 1 FROM documents WHERE id = $1 OR (owner = $2 AND content_hash = $3)",
                 Params().Add(doc.id).Add(doc.owner).Add(doc.content_hash)));
      if (stored) {
        ++report.skipped;
        ++report.documents_skipped;
        continue;
      }
      MNEMO_RETURN_IF_ERROR(InsertDocumentIn(conn, doc));
    }

    for (size_t i = 0; i < batch.context_events.size(); ++i) {
      ContextEventRow row = batch.context_events[i];
      MNEMO_ASSIGN_OR_RETURN(
          bool stored, Exists(conn,
                              "SELECT 1 FROM context_events WHERE owner = $1 AND session_id = "
                              "$2 AND seq = $3",
                              Params().Add(row.owner).Add(row.session_id).Add(row.seq)));
      if (stored) {
        ++report.skipped;
        continue;
      }
      MNEMO_ASSIGN_OR_RETURN(bool taken, Exists(conn, "SELECT 1 FROM context_events WHERE id = $1",
                                                Params().Add(row.id)));
      if (taken) row.id = 0;
      MNEMO_RETURN_IF_ERROR(InsertContextEventIn(conn, row, context_texts[i]).status());
      MNEMO_RETURN_IF_ERROR(
          conn.Exec("INSERT INTO context_sessions (owner, session_id, next_seq) VALUES ($1, $2, "
                    "$3) ON CONFLICT (owner, session_id) DO UPDATE SET next_seq = "
                    "GREATEST(context_sessions.next_seq, excluded.next_seq)",
                    Params().Add(row.owner).Add(row.session_id).Add(row.seq + 1),
                    "raise the session's next sequence number")
              .status());
    }
    MNEMO_RETURN_IF_ERROR(RaiseSequence(conn, "context_event_ids", "context_events"));

    for (const TripleRow& t : batch.triples) {
      MNEMO_ASSIGN_OR_RETURN(
          bool stored,
          Exists(conn,
                 "SELECT 1 FROM triples WHERE id = $1 OR ($2 AND valid_to IS NULL AND owner = $3 "
                 "AND subject_key = $4 AND predicate = $5 AND object_key = $6)",
                 Params()
                     .Add(t.id)
                     .Add(t.valid_to == 0)
                     .Add(t.owner)
                     .Add(TripleTermKey(t.subject))
                     .Add(t.predicate)
                     .Add(TripleTermKey(t.object))));
      if (stored) {
        ++report.skipped;
        ++report.triples_skipped;
        continue;
      }
      MNEMO_RETURN_IF_ERROR(InsertTriple(conn, t));
    }
    return Status::Ok();
  }));
  return report;
}

}  // namespace mnemo::storage::internal
