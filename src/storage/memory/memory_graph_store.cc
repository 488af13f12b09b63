// The graph in memory: the semantics and order of the SQLite table `triples`.
#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "storage/memory/memory_graph_store.h"
#include "storage/rules/graph_rules.h"

namespace mnemo::storage::internal {

Result<TripleUpsert> MemoryGraphStore::UpsertTriple(const TripleRow& row, bool single_valued) {
  MNEMO_ASSIGN_OR_RETURN(TripleRow incoming, NewTripleRow(row));
  const std::string subject_key = TripleTermKey(incoming.subject);
  std::unique_lock lock(state_->mu_);
  std::vector<TripleRow*> found;
  for (auto& [r, t] : state_->triples_) {
    if (t.id == incoming.id) return Conflict("triple id " + incoming.id + " is already used");
    if (t.owner == incoming.owner && t.predicate == incoming.predicate &&
        TripleTermKey(t.subject) == subject_key) {
      found.push_back(&t);
    }
  }
  // SQLite's order: by id.
  std::sort(found.begin(), found.end(),
            [](const TripleRow* a, const TripleRow* b) { return a->id < b->id; });
  std::vector<TripleRow> existing;
  existing.reserve(found.size());
  for (const TripleRow* t : found) existing.push_back(*t);
  const TripleUpsertPlan plan = PlanTripleUpsert(existing, incoming, single_valued);
  TripleUpsert out;
  if (plan.refresh) {
    TripleRow& same = *found[*plan.refresh];
    same.confidence = std::max(same.confidence, incoming.confidence);
    out.row = same;
  } else {
    incoming.valid_to = plan.insert_valid_to;
    state_->triples_[state_->next_triple_row_++] = incoming;
    out.row = incoming;
    out.created = true;
  }
  for (const size_t i : plan.supersede) {
    found[i]->valid_to = SupersededAt(*found[i], incoming);
    out.superseded.push_back(found[i]->id);
  }
  for (const size_t i : plan.trim) found[i]->valid_to = incoming.valid_from;
  return out;
}

Result<std::vector<TripleRow>> MemoryGraphStore::QueryTriples(const TripleQuery& query) {
  std::vector<TripleRow> out;
  if (query.limit <= 0) return out;
  const TripleQuery q = NormalizedQuery(query);
  std::shared_lock lock(state_->mu_);
  for (const auto& [r, t] : state_->triples_) {
    if (q.owner && t.owner != *q.owner) continue;
    if (q.as_of) {
      if (t.valid_from > *q.as_of || (t.valid_to != 0 && t.valid_to <= *q.as_of)) continue;
    } else if (!q.include_history && t.valid_to != 0) {
      continue;
    }
    if (q.predicate && t.predicate != *q.predicate) continue;
    if (q.subject && TripleTermKey(t.subject) != *q.subject) continue;
    if (q.object && TripleTermKey(t.object) != *q.object) continue;
    out.push_back(t);
  }
  std::sort(out.begin(), out.end(), TripleOrder);
  if (out.size() > static_cast<size_t>(q.limit)) out.resize(static_cast<size_t>(q.limit));
  return out;
}

Result<std::optional<TripleRow>> MemoryGraphStore::GetTriple(std::string_view id) {
  std::shared_lock lock(state_->mu_);
  for (const auto& [row, t] : state_->triples_) {
    if (t.id == id) return std::optional<TripleRow>(t);
  }
  return std::optional<TripleRow>();
}

Result<bool> MemoryGraphStore::DeleteTriple(std::string_view id) {
  std::unique_lock lock(state_->mu_);
  return std::erase_if(state_->triples_, [&](const auto& entry) { return entry.second.id == id; }) >
         0;
}

Result<bool> MemoryGraphStore::CloseTriple(std::string_view id, TimeMs at) {
  std::unique_lock lock(state_->mu_);
  for (auto& [row, t] : state_->triples_) {
    if (t.id != id || t.valid_to != 0) continue;
    t.valid_to = ClosedAt(t, at);
    return true;
  }
  return false;
}

}  // namespace mnemo::storage::internal
