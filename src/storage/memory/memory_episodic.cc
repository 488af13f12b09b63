// Episodic turns in memory: the same sequence, scoring and order as SQLite.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <tuple>

#include "storage/bm25.h"
#include "storage/entry_rules.h"
#include "storage/episodic_rules.h"
#include "storage/memory/memory_backend.h"

namespace mnemo::storage::internal {

Result<std::vector<TurnRow>> MemoryBackend::AppendTurns(std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnWrites(rows));
  std::vector<TurnRow> out;
  if (rows.empty()) return out;
  std::unique_lock lock(mu_);
  const auto& first = rows[0].row;
  int64_t seq = 0;
  auto last = turns_by_session_.upper_bound({first.owner, first.session_id, INT64_MAX});
  if (last != turns_by_session_.begin()) {
    const auto& [owner, session, s] = std::prev(last)->first;
    if (owner == first.owner && session == first.session_id) seq = s + 1;
  }
  for (const TurnWrite& w : rows) {
    TurnDoc doc{.row = w.row};
    doc.row.seq = seq++;
    doc.row.id = next_turn_id_++;
    doc.length = IndexColumn(
        w.search_text, [&](const text::TokenView& t) { ++doc.frequency[std::string(t.text)]; });
    for (const auto& [token, count] : doc.frequency) turn_postings_[token].insert(doc.row.id);
    turn_tokens_ += doc.length;
    turns_by_session_[{doc.row.owner, doc.row.session_id, doc.row.seq}] = doc.row.id;
    out.push_back(doc.row);
    turns_.emplace(doc.row.id, std::move(doc));
  }
  return out;
}

Result<std::vector<TurnRow>> MemoryBackend::SessionTurns(std::string_view owner,
                                                         std::string_view session_id,
                                                         int64_t from_seq, int64_t to_seq) {
  std::shared_lock lock(mu_);
  std::vector<TurnRow> rows;
  const std::string o(owner);
  const std::string s(session_id);
  for (auto it = turns_by_session_.lower_bound({o, s, from_seq}); it != turns_by_session_.end();
       ++it) {
    const auto& [row_owner, row_session, seq] = it->first;
    if (row_owner != o || row_session != s || seq > to_seq) break;
    rows.push_back(turns_.at(it->second).row);
  }
  return rows;
}

Result<std::vector<TurnHit>> MemoryBackend::SearchTurns(const TurnQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<TurnHit>();
  std::shared_lock lock(mu_);
  const Bm25Corpus corpus{static_cast<int64_t>(turns_.size()), turn_tokens_};
  std::vector<const std::unordered_set<int64_t>*> postings;
  std::set<int64_t> candidates;
  for (const std::string& t : terms) {
    auto it = turn_postings_.find(t);
    postings.push_back(it == turn_postings_.end() ? nullptr : &it->second);
    if (it != turn_postings_.end()) candidates.insert(it->second.begin(), it->second.end());
  }
  std::vector<Bm25Term> stats(terms.size());
  std::vector<TurnHit> hits;
  for (int64_t id : candidates) {
    const TurnDoc& doc = turns_.at(id);
    if (!query.all && doc.row.owner != query.owner) continue;
    if (query.session_id && doc.row.session_id != *query.session_id) continue;
    for (size_t i = 0; i < terms.size(); ++i) {
      stats[i].documents_with_term = postings[i] ? static_cast<int64_t>(postings[i]->size()) : 0;
      auto f = doc.frequency.find(terms[i]);
      stats[i].frequency = f == doc.frequency.end() ? 0 : f->second;
    }
    hits.push_back({.row = doc.row, .score = NormalisedBm25(corpus, doc.length, stats)});
  }
  std::sort(hits.begin(), hits.end(), [](const TurnHit& a, const TurnHit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.row.timestamp_ms != b.row.timestamp_ms) return a.row.timestamp_ms > b.row.timestamp_ms;
    return a.row.id < b.row.id;
  });
  if (hits.size() > static_cast<size_t>(query.limit)) hits.resize(static_cast<size_t>(query.limit));
  return hits;
}

}  // namespace mnemo::storage::internal
