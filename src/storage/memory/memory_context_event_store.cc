// Context events in memory: the semantics, scores and order of the SQLite
// table `context_events` and its index `context_events_fts`.
#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <utility>

#include "storage/memory/memory_context_event_store.h"
#include "storage/rules/context_event_rules.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {

Result<ContextEventRow> MemoryContextEventStore::AppendContextEvent(const ContextEventRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateContextEvent(row));
  ContextEventRow out = row;
  std::unique_lock lock(state_->mu_);
  out.seq = state_->context_next_seq_[{out.owner, out.session_id}];
  out.id = state_->next_context_id_;
  state_->InsertContextEventLocked(out);
  return out;
}

void MemoryState::InsertContextEventLocked(const ContextEventRow& row) {
  context_index_.Add(row.id, {row.search_text});
  context_by_session_[{row.owner, row.session_id, row.seq}] = row.id;
  context_events_[row.id] = row;
  int64_t& next = context_next_seq_[{row.owner, row.session_id}];
  next = std::max(next, row.seq + 1);
  next_context_id_ = std::max(next_context_id_, row.id + 1);
}

Result<std::vector<ContextEventRow>> MemoryContextEventStore::ContextEventsAfter(int64_t after_id,
                                                                                 int limit) {
  std::shared_lock lock(state_->mu_);
  std::vector<ContextEventRow> out;
  for (auto it = state_->context_events_.upper_bound(after_id);
       it != state_->context_events_.end() && std::cmp_less(out.size(), limit); ++it) {
    out.push_back(it->second);
  }
  return out;
}

Result<std::vector<ContextEventRow>> MemoryContextEventStore::ContextEvents(
    std::string_view owner, const SessionId& session) {
  const std::string_view session_id = session.view();
  std::shared_lock lock(state_->mu_);
  std::vector<ContextEventRow> out;
  const std::string o(owner);
  const std::string s(session_id);
  for (auto it = state_->context_by_session_.lower_bound({o, s, INT64_MIN});
       it != state_->context_by_session_.end() && std::get<0>(it->first) == o &&
       std::get<1>(it->first) == s;
       ++it) {
    out.push_back(state_->context_events_.at(it->second));
  }
  return out;
}

Result<std::vector<ContextEventHit>> MemoryContextEventStore::SearchContextEvents(
    const ContextEventQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<ContextEventHit>();
  std::shared_lock lock(state_->mu_);
  std::vector<ContextEventHit> hits;
  for (const auto& [id, score] : state_->context_index_.Score(terms, [&](int64_t id) {
         const ContextEventRow& r = state_->context_events_.at(id);
         return (query.all || r.owner == query.owner) &&
                (!query.session_id || r.session_id == query.session_id->view());
       })) {
    hits.push_back({.row = state_->context_events_.at(id), .score = score});
  }
  std::sort(hits.begin(), hits.end(), [](const ContextEventHit& a, const ContextEventHit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.row.seq != b.row.seq) return a.row.seq > b.row.seq;
    return a.row.id < b.row.id;
  });
  if (hits.size() > static_cast<size_t>(query.limit)) hits.resize(static_cast<size_t>(query.limit));
  return hits;
}

void MemoryState::EraseContextEventLocked(int64_t id) {
  const ContextEventRow& r = context_events_.at(id);
  context_index_.Remove(id);
  context_by_session_.erase({r.owner, r.session_id, r.seq});
  context_events_.erase(id);
}

Result<int64_t> MemoryContextEventStore::DeleteContextEventsUpTo(std::string_view owner,
                                                                 const SessionId& session,
                                                                 int64_t up_to_seq) {
  const std::string_view session_id = session.view();
  std::unique_lock lock(state_->mu_);
  const std::string o(owner);
  const std::string s(session_id);
  std::vector<int64_t> doomed;
  for (auto it = state_->context_by_session_.lower_bound({o, s, INT64_MIN});
       it != state_->context_by_session_.end() && std::get<0>(it->first) == o &&
       std::get<1>(it->first) == s && std::get<2>(it->first) <= up_to_seq;
       ++it) {
    doomed.push_back(it->second);
  }
  for (const int64_t id : doomed) state_->EraseContextEventLocked(id);
  return static_cast<int64_t>(doomed.size());
}

Result<int64_t> MemoryContextEventStore::DeleteContextEventsByIds(std::span<const int64_t> ids) {
  std::unique_lock lock(state_->mu_);
  int64_t deleted = 0;
  for (const int64_t id : ids) {
    if (!state_->context_events_.contains(id)) continue;
    state_->EraseContextEventLocked(id);
    ++deleted;
  }
  return deleted;
}

}  // namespace mnemo::storage::internal
