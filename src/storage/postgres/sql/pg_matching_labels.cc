#include "storage/postgres/sql/pg_matching_labels.h"

#include <string>

#include "storage/postgres/sql/pg_entry_sql.h"

namespace mnemo::storage::internal::pg {

PgStatement MatchingLabelsStatement(const EntryFilter& filter, int limit) {
  PgStatement st{.prepared = true};
  Params& p = st.params;
  if (filter.scope.all) {
    const std::string where = FilterSql(filter, p);
    p.Add(static_cast<int64_t>(limit));
    st.sql = "SELECT e.label FROM entries e WHERE " + where + " ORDER BY e.label LIMIT " + Last(p);
    return st;
  }
  // (owner = p OR public) as the disjoint (owner = p) and (public AND
  // owner <> p): the same rows, each branch on an index of its own.
  EntryFilter rest = filter;
  rest.scope = ReadScope{.all = true};
  p.Add(filter.scope.principal);
  const std::string principal = Last(p);
  const std::string where = FilterSql(rest, p);
  p.Add(static_cast<int64_t>(limit));
  const std::string n = Last(p);
  st.sql = "SELECT label FROM ((SELECT e.label FROM entries e WHERE e.owner = " + principal +
           " AND " + where + " ORDER BY e.label LIMIT " + n +
           ") UNION ALL (SELECT e.label FROM entries e WHERE e.visibility = 'public' AND e.owner "
           "<> " +
           principal + " AND " + where + " ORDER BY e.label LIMIT " + n +
           ")) s ORDER BY label LIMIT " + n;
  return st;
}

}  // namespace mnemo::storage::internal::pg
