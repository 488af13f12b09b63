// Erasure on PostgreSQL (admin_store.h "Erasure"): rows are deleted (never
// flagged) in one write, with the keyword statistics they counted in; their
// tsvector and GIN entries are the rows' own and go with them. Space is
// reclaimed by PostgreSQL's (auto)vacuum, not here (docs/storage.md).
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "storage/postgres/pg_connection.h"
#include "storage/postgres/pg_writes.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/postgres/stores/postgres_admin_store.h"
#include "storage/rules/erasure_rules.h"
#include "storage/rules/vector_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

// Which rows: one owner's ($1), and one session's ($2) when given.
struct Scope {
  std::string_view owner;
  std::optional<std::string_view> session_id;
  std::string Where(std::string_view prefix = "") const {
    std::string where = std::string(prefix) + "owner = $1";
    if (session_id) where += " AND " + std::string(prefix) + "session_id = $2";
    return where;
  }
  // Params hold pointers into themselves: bound in place, never copied.
  void Bind(Params& p) const {
    p.Add(owner);
    if (session_id) p.Add(*session_id);
  }
};

// Deletes the rows of `table` that `where` selects and takes them out of
// the table's keyword statistics (`stats`: its text_stats name, empty when
// it has none); returns how many.
Result<int64_t> DeleteCounted(PgConn& conn, std::string_view table, const std::string& where,
                              const Params& params, std::string_view stats) {
  const std::string what = "erase from " + std::string(table);
  MNEMO_ASSIGN_OR_RETURN(
      Rows gone, conn.Exec("WITH gone AS (DELETE FROM " + std::string(table) + " WHERE " + where +
                               " RETURNING " + (stats.empty() ? "0" : "doc_length") +
                               " AS n) SELECT count(*), COALESCE(sum(n), 0) FROM gone",
                           params, what));
  const int64_t deleted = gone.Int(0, 0);
  if (!stats.empty() && deleted > 0) {
    MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, stats, -deleted, -gone.Int(0, 1)));
  }
  return deleted;
}

Result<int64_t> DeleteScoped(PgConn& conn, std::string_view table, const std::string& where,
                             const Scope& scope, std::string_view stats) {
  Params p;
  scope.Bind(p);
  return DeleteCounted(conn, table, where, p, stats);
}

Status DropSegments(PgConn& conn, const Scope& scope, ErasureCounts& counts) {
  const std::string segments = "SELECT id FROM segments WHERE " + scope.Where();
  Params bound;
  scope.Bind(bound);
  MNEMO_ASSIGN_OR_RETURN(Rows ids, conn.Exec(segments, bound, "find the segments"));
  if (ids.empty()) return Status::Ok();
  std::set<std::string> erased;
  for (int i = 0; i < ids.size(); ++i) erased.emplace(ids.Text(i, 0));
  MNEMO_ASSIGN_OR_RETURN(
      counts.recaps, DeleteScoped(conn, "segment_recaps", "segment_id IN (" + segments + ")", scope,
                                  "segment_recaps"));
  MNEMO_ASSIGN_OR_RETURN(
      counts.recap_vectors,
      DeleteScoped(conn, "segment_vectors", "segment_id IN (" + segments + ")", scope, ""));
  MNEMO_ASSIGN_OR_RETURN(std::vector<FacetRow> facets, OwnerFacetsIn(conn, scope.owner));
  for (const FacetRow& f : facets) {
    bool changed = false;
    std::optional<FacetRow> kept = FacetAfterErasure(f, scope.session_id, erased, &changed);
    if (!changed) continue;
    if (kept) {
      MNEMO_RETURN_IF_ERROR(PutFacetIn(conn, *kept));
      ++counts.facets_reduced;
      continue;
    }
    MNEMO_RETURN_IF_ERROR(
        conn.Exec("DELETE FROM facets WHERE owner = $1 AND facet_type = $2 AND key = $3",
                  Params().Add(scope.owner).Add(f.facet_type).Add(f.key), "erase a facet")
            .status());
    ++counts.facets_removed;
  }
  MNEMO_ASSIGN_OR_RETURN(counts.segments, DeleteScoped(conn, "segments", scope.Where(), scope, ""));
  return Status::Ok();
}

Status DropEpisodic(PgConn& conn, const Scope& scope, ErasureCounts& counts) {
  MNEMO_ASSIGN_OR_RETURN(counts.turns, DeleteScoped(conn, "turns", scope.Where(), scope, "turns"));
  MNEMO_RETURN_IF_ERROR(DropSegments(conn, scope, counts));
  MNEMO_ASSIGN_OR_RETURN(counts.events,
                         DeleteScoped(conn, "events", scope.Where(), scope, "events"));
  MNEMO_ASSIGN_OR_RETURN(counts.context_events, DeleteScoped(conn, "context_events", scope.Where(),
                                                             scope, "context_events"));
  // A claim's stored result holds the captured rule texts: it goes too.
  MNEMO_RETURN_IF_ERROR(DeleteScoped(conn, "turn_claims", scope.Where(), scope, "").status());
  MNEMO_RETURN_IF_ERROR(DeleteScoped(conn, "rule_captures", scope.Where(), scope, "").status());
  return DeleteScoped(conn, "context_sessions", scope.Where(), scope, "").status();
}

// The owner's documents `ids` (an array) and the owner's triples from them.
Status DropDocuments(PgConn& conn, std::string_view owner, std::span<const std::string> ids,
                     ErasureCounts& counts) {
  Params p;
  p.Add(owner).AddTextArray(ids);
  MNEMO_ASSIGN_OR_RETURN(
      counts.documents,
      DeleteCounted(conn, "documents", "owner = $1 AND id = ANY($2::text[])", p, "documents"));
  MNEMO_ASSIGN_OR_RETURN(
      int64_t triples,
      DeleteCounted(conn, "triples", "owner = $1 AND source = ANY($2::text[])", p, ""));
  counts.triples += triples;
  return Status::Ok();
}

}  // namespace

PostgresAdminStore::PostgresAdminStore(std::shared_ptr<PostgresDatabase> db)
    : PostgresStore(std::move(db)) {}

Result<ErasureCounts> PostgresAdminStore::EraseSession(const SessionErasure& what) {
  MNEMO_RETURN_IF_ERROR(ValidateErasure(what.owner));
  const Scope scope{.owner = what.owner, .session_id = what.session_id.view()};
  ErasureCounts counts;
  MNEMO_RETURN_IF_ERROR(Write("erase a session", [&](PgConn& conn) -> Status {
    counts = {};
    MNEMO_RETURN_IF_ERROR(DropEpisodic(conn, scope, counts));
    return DropDocuments(conn, what.owner, what.document_ids, counts);
  }));
  return counts;
}

Result<ErasureCounts> PostgresAdminStore::ErasePrincipal(std::string_view owner) {
  MNEMO_RETURN_IF_ERROR(ValidateErasure(owner));
  const Scope scope{.owner = owner};
  ErasureCounts counts;
  MNEMO_RETURN_IF_ERROR(Write("erase a principal", [&](PgConn& conn) -> Status {
    counts = {};
    const std::string labels = "SELECT label FROM entries WHERE owner = $1";
    MNEMO_ASSIGN_OR_RETURN(
        Rows logged,
        conn.Exec("INSERT INTO vector_changes (signature, label, present) SELECT signature, "
                  "label, $2 FROM entry_vectors WHERE label IN (" +
                      labels + ") ORDER BY signature, label",
                  Params().Add(owner).Add(static_cast<int64_t>(kChangeRemoved)),
                  "log the removal of the entries' vectors"));
    counts.entry_vectors = logged.affected();
    db_->logged_changes() += counts.entry_vectors;
    MNEMO_RETURN_IF_ERROR(
        DeleteScoped(conn, "entry_vectors", "label IN (" + labels + ")", scope, "").status());
    MNEMO_ASSIGN_OR_RETURN(counts.entries,
                           DeleteScoped(conn, "entries", scope.Where(), scope, "entries"));
    MNEMO_RETURN_IF_ERROR(DropEpisodic(conn, scope, counts));
    MNEMO_ASSIGN_OR_RETURN(int64_t facets, DeleteScoped(conn, "facets", scope.Where(), scope, ""));
    counts.facets_removed += facets;
    MNEMO_ASSIGN_OR_RETURN(counts.documents,
                           DeleteScoped(conn, "documents", scope.Where(), scope, "documents"));
    MNEMO_ASSIGN_OR_RETURN(counts.triples, DeleteScoped(conn, "triples", scope.Where(), scope, ""));
    return Status::Ok();
  }));
  return counts;
}

}  // namespace mnemo::storage::internal
