// Episodic turns, segments, events and profile facets in memory: the same
// sequences, scoring, rules and order as SQLite.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <tuple>
#include <type_traits>
#include <utility>

#include "storage/memory/memory_episodic_store.h"
#include "storage/rules/bm25.h"
#include "storage/rules/entry_rules.h"
#include "storage/rules/episodic_rules.h"
#include "storage/rules/erasure_rules.h"

namespace mnemo::storage::internal {
namespace {

using Postings = std::unordered_map<std::string, std::unordered_set<int64_t>>;

// Indexes `text` as document `id`, the way the contentless FTS5 tables do:
// fills the document's term frequencies and length and the postings.
template <typename Doc>
void IndexDoc(std::string_view text, int64_t id, Doc& doc, Postings& postings,
              int64_t& total_tokens) {
  doc.length =
      IndexColumn(text, [&](const text::TokenView& t) { ++doc.frequency[std::string(t.text)]; });
  for (const auto& [token, count] : doc.frequency) postings[token].insert(id);
  total_tokens += doc.length;
}

// Undoes IndexDoc of document `id`.
template <typename Doc>
void UnindexDoc(int64_t id, Doc& doc, Postings& postings, int64_t& total_tokens) {
  for (const auto& [token, count] : doc.frequency) {
    auto it = postings.find(token);
    if (it == postings.end()) continue;
    it->second.erase(id);
    if (it->second.empty()) postings.erase(it);
  }
  total_tokens -= doc.length;
  doc.frequency.clear();
  doc.length = 0;
}

// Every document of `docs` that contains one of `terms` (distinct) and
// passes `keep`, with the score mnemo_score gives it: the corpus is every
// document, as FTS5 counts it, or, when `counted` is a predicate over rows,
// the documents it holds for (the caller's own: issue 17, so one
// principal's scores never depend on another's rows).
template <typename Doc, typename Keep, typename Counted = std::nullptr_t>
std::vector<std::pair<const Doc*, double>> ScoreDocs(const std::vector<std::string>& terms,
                                                     const std::map<int64_t, Doc>& docs,
                                                     const Postings& postings, int64_t total_tokens,
                                                     Keep keep, Counted counted = nullptr) {
  constexpr bool kScoped = !std::is_same_v<Counted, std::nullptr_t>;
  Bm25Corpus corpus{static_cast<int64_t>(docs.size()), total_tokens};
  if constexpr (kScoped) {
    corpus = {};
    for (const auto& [id, doc] : docs) {
      if (!counted(doc.row)) continue;
      ++corpus.documents;
      corpus.total_tokens += doc.length;
    }
  }
  std::vector<int64_t> documents_with_term;
  std::set<int64_t> candidates;
  for (const std::string& t : terms) {
    auto it = postings.find(t);
    int64_t n_t = 0;
    if (it != postings.end()) {
      candidates.insert(it->second.begin(), it->second.end());
      n_t = static_cast<int64_t>(it->second.size());
      if constexpr (kScoped) {
        n_t = 0;
        for (int64_t id : it->second) n_t += counted(docs.at(id).row) ? 1 : 0;
      }
    }
    documents_with_term.push_back(n_t);
  }
  std::vector<Bm25Term> stats(terms.size());
  std::vector<std::pair<const Doc*, double>> scored;
  for (int64_t id : candidates) {
    const Doc& doc = docs.at(id);
    if (!keep(doc.row)) continue;
    for (size_t i = 0; i < terms.size(); ++i) {
      stats[i].documents_with_term = documents_with_term[i];
      auto f = doc.frequency.find(terms[i]);
      stats[i].frequency = f == doc.frequency.end() ? 0 : f->second;
    }
    scored.emplace_back(&doc, NormalisedBm25(corpus, doc.length, stats));
  }
  return scored;
}

template <typename T>
void Truncate(std::vector<T>& v, int limit) {
  if (v.size() > static_cast<size_t>(limit)) v.resize(static_cast<size_t>(limit));
}

}  // namespace

Result<std::vector<TurnRow>> MemoryEpisodicStore::AppendTurns(std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnWrites(rows));
  std::unique_lock lock(state_->mu_);
  return state_->AppendTurnsLocked(rows);
}

std::vector<TurnRow> MemoryState::AppendTurnsLocked(std::span<const TurnWrite> rows) {
  std::vector<TurnRow> out = PlanTurnsLocked(rows);
  for (size_t i = 0; i < out.size(); ++i) InsertTurnLocked(out[i], rows[i].SearchText(out[i]));
  return out;
}

template <typename Write>
std::vector<TurnRow> MemoryState::PlanTurnsLocked(std::span<Write> rows) const {
  std::vector<TurnRow> out;
  if (rows.empty()) return out;
  const auto& first = rows[0].row;
  int64_t seq = 0;
  auto last = turns_by_session_.upper_bound({first.owner, first.session_id, INT64_MAX});
  if (last != turns_by_session_.begin()) {
    const auto& [owner, session, s] = std::prev(last)->first;
    if (owner == first.owner && session == first.session_id) seq = s + 1;
  }
  int64_t id = next_turn_id_;
  for (Write& w : rows) {
    TurnRow row = std::move(w.row);  // a copy when Write is const
    row.seq = seq++;
    row.id = id++;
    out.push_back(std::move(row));
  }
  return out;
}

template std::vector<TurnRow> MemoryState::PlanTurnsLocked(std::span<const TurnWrite> rows) const;
template std::vector<TurnRow> MemoryState::PlanTurnsLocked(std::span<TurnWrite> rows) const;

void MemoryState::InsertTurnLocked(const TurnRow& row, std::string_view search_text) {
  TurnDoc doc{.row = row};
  IndexDoc(search_text, row.id, doc, turn_postings_, turn_tokens_);
  turns_by_session_[{row.owner, row.session_id, row.seq}] = row.id;
  turns_.emplace(row.id, std::move(doc));
  next_turn_id_ = std::max(next_turn_id_, row.id + 1);
}

Result<std::vector<TurnRow>> MemoryEpisodicStore::SessionTurns(std::string_view owner,
                                                               const SessionId& session_id,
                                                               int64_t from_seq, int64_t to_seq) {
  std::shared_lock lock(state_->mu_);
  std::vector<TurnRow> rows;
  const std::string o(owner);
  const std::string s(session_id.view());
  for (auto it = state_->turns_by_session_.lower_bound({o, s, from_seq});
       it != state_->turns_by_session_.end(); ++it) {
    const auto& [row_owner, row_session, seq] = it->first;
    if (row_owner != o || row_session != s || seq > to_seq) break;
    rows.push_back(state_->turns_.at(it->second).row);
  }
  return rows;
}

Result<std::vector<TurnHit>> MemoryEpisodicStore::SearchTurns(const TurnQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<TurnHit>();
  std::shared_lock lock(state_->mu_);
  std::vector<TurnHit> hits;
  for (const auto& [doc, score] : ScoreDocs(
           terms, state_->turns_, state_->turn_postings_, state_->turn_tokens_,
           [&](const TurnRow& row) {
             return (query.all || row.owner == query.owner) &&
                    (!query.session_id || row.session_id == query.session_id->view()) &&
                    internal::TurnInWindow(query, row);
           },
           [&](const TurnRow& row) { return query.all || row.owner == query.owner; })) {
    int64_t matched = 0;
    for (const std::string& t : terms) matched += doc->frequency.contains(t) ? 1 : 0;
    hits.push_back({.row = doc->row, .score = score, .matched_terms = matched});
  }
  std::sort(hits.begin(), hits.end(), [](const TurnHit& a, const TurnHit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.row.timestamp_ms != b.row.timestamp_ms) return a.row.timestamp_ms > b.row.timestamp_ms;
    return a.row.id < b.row.id;
  });
  Truncate(hits, query.limit);
  return hits;
}

Result<std::vector<TurnRow>> MemoryEpisodicStore::TurnsAfter(int64_t after_id, int limit) {
  std::shared_lock lock(state_->mu_);
  std::vector<TurnRow> rows;
  for (auto it = state_->turns_.upper_bound(after_id);
       it != state_->turns_.end() && rows.size() < static_cast<size_t>(std::max(limit, 0)); ++it) {
    rows.push_back(it->second.row);
  }
  return rows;
}

Status MemoryEpisodicStore::ReplaceTurnSearchText(int64_t id, std::string_view search_text) {
  std::unique_lock lock(state_->mu_);
  auto it = state_->turns_.find(id);
  if (it == state_->turns_.end()) return NotFound("no turn " + std::to_string(id));
  UnindexDoc(id, it->second, state_->turn_postings_, state_->turn_tokens_);
  IndexDoc(search_text, id, it->second, state_->turn_postings_, state_->turn_tokens_);
  return Status::Ok();
}

Result<std::optional<SegmentRow>> MemoryEpisodicStore::OpenSegment(std::string_view owner,
                                                                   const SessionId& session_id) {
  std::shared_lock lock(state_->mu_);
  auto it = state_->open_segments_.find({std::string(owner), session_id.str()});
  if (it == state_->open_segments_.end()) return std::optional<SegmentRow>();
  return std::optional<SegmentRow>(state_->segments_.at(it->second));
}

Status MemoryEpisodicStore::PutSegment(const SegmentRow& seg) {
  std::unique_lock lock(state_->mu_);
  return state_->PutSegmentLocked(seg);
}

Status MemoryState::PutSegmentLocked(const SegmentRow& seg) {
  MNEMO_RETURN_IF_ERROR(ValidateSegment(seg));
  auto stored = segments_.find(seg.id);
  const std::pair<std::string, std::string> session{seg.owner, seg.session_id};
  auto open = open_segments_.find(session);
  MNEMO_RETURN_IF_ERROR(CheckSegmentPut(
      seg,
      stored == segments_.end() ? std::nullopt
                                : std::optional<std::string_view>(stored->second.status),
      open == open_segments_.end() ? std::nullopt : std::optional<std::string_view>(open->second)));
  if (stored != segments_.end() && stored->second.status == "open") {
    open_segments_.erase({stored->second.owner, stored->second.session_id});
  }
  if (seg.status == "open") open_segments_[session] = seg.id;
  SyncRecapLocked(seg);
  segments_[seg.id] = seg;
  return Status::Ok();
}

Result<bool> MemoryEpisodicStore::CloseSegment(std::string_view id, TimeMs closed_at) {
  std::unique_lock lock(state_->mu_);
  return state_->CloseSegmentLocked(id, closed_at);
}

Result<SegmentChange> MemoryEpisodicStore::StepSegment(std::string_view owner,
                                                       const SessionId& session_id,
                                                       const SegmentDecision& decide) {
  std::unique_lock lock(state_->mu_);
  return state_->StepSegmentLocked(owner, session_id.view(), decide);
}

Result<SegmentChange> MemoryState::StepSegmentLocked(std::string_view owner,
                                                     std::string_view session_id,
                                                     const EpisodicStore::SegmentDecision& decide) {
  SegmentView view;
  auto open = open_segments_.find({std::string(owner), std::string(session_id)});
  if (open != open_segments_.end()) view.open = segments_.at(open->second);
  for (const auto& [id, seg] : segments_) {
    if (seg.owner == owner && seg.session_id == session_id) {
      view.next_seq = std::max(view.next_seq, seg.last_seq + 1);
    }
  }
  MNEMO_ASSIGN_OR_RETURN(SegmentChange change, decide(view));
  change.close_open =
      change.close_open && view.open && *CloseSegmentLocked(view.open->id, change.closed_at);
  if (change.put) {
    if (Status put = PutSegmentLocked(*change.put); !put.ok()) {
      // All or nothing: undo the close.
      if (change.close_open) {
        segments_[view.open->id] = *view.open;
        open_segments_[{view.open->owner, view.open->session_id}] = view.open->id;
      }
      return put;
    }
  }
  return change;
}

Result<bool> MemoryState::CloseSegmentLocked(std::string_view id, TimeMs closed_at) {
  auto it = segments_.find(std::string(id));
  if (it == segments_.end() || it->second.status != "open") return false;
  SegmentRow& seg = it->second;
  open_segments_.erase({seg.owner, seg.session_id});
  seg.status = "closed";
  seg.closed_at = closed_at;
  return true;
}

Result<std::optional<SegmentRow>> MemoryEpisodicStore::GetSegment(std::string_view id) {
  std::shared_lock lock(state_->mu_);
  auto it = state_->segments_.find(std::string(id));
  if (it == state_->segments_.end()) return std::optional<SegmentRow>();
  return std::optional<SegmentRow>(it->second);
}

Result<std::vector<SegmentRow>> MemoryEpisodicStore::Segments(
    bool all, std::string_view owner, const std::optional<SessionId>& session_id) {
  std::shared_lock lock(state_->mu_);
  std::vector<SegmentRow> out;
  for (const auto& [id, seg] : state_->segments_) {
    if (!all && seg.owner != owner) continue;
    if (session_id && seg.session_id != session_id->view()) continue;
    out.push_back(seg);
  }
  // state_->segments_ is in id order, so a stable sort by started_at gives (started_at, id).
  std::stable_sort(out.begin(), out.end(), [](const SegmentRow& a, const SegmentRow& b) {
    return a.started_at < b.started_at;
  });
  return out;
}

Result<std::vector<SegmentRow>> MemoryEpisodicStore::SegmentsNeedingRecap(int limit,
                                                                          int64_t max_attempts) {
  if (limit <= 0) return std::vector<SegmentRow>();
  std::shared_lock lock(state_->mu_);
  std::vector<SegmentRow> out;
  for (const auto& [id, seg] : state_->segments_) {
    if (seg.status == "closed" && seg.recap_source == "extractive" &&
        seg.recap_attempts < max_attempts) {
      out.push_back(seg);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const SegmentRow& a, const SegmentRow& b) {
    return a.closed_at < b.closed_at;
  });
  Truncate(out, limit);
  return out;
}

Result<int64_t> MemoryEpisodicStore::AddEvents(std::span<const EventRow> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateEvents(rows));
  std::unique_lock lock(state_->mu_);
  // Decide first, so a conflict adds nothing (SQLite: one transaction).
  std::vector<const EventRow*> added;
  std::set<std::tuple<std::string, std::string, std::string>> batch_texts;
  std::set<std::string> batch_ids;
  for (const EventRow& e : rows) {
    std::tuple<std::string, std::string, std::string> text{e.owner, e.type, e.text};
    if (state_->event_texts_.contains(text) || !batch_texts.insert(std::move(text)).second)
      continue;
    if (state_->event_ids_.contains(e.id) || !batch_ids.insert(e.id).second) {
      return Conflict("event id " + e.id + " is already used");
    }
    added.push_back(&e);
  }
  for (const EventRow* e : added) state_->InsertEventLocked(*e);
  return static_cast<int64_t>(added.size());
}

void MemoryState::InsertEventLocked(const EventRow& e) {
  const int64_t row = next_event_row_++;
  EventDoc doc{.row = e};
  IndexDoc(e.text, row, doc, event_postings_, event_tokens_);
  event_ids_.insert(e.id);
  event_texts_.emplace(e.owner, e.type, e.text);
  events_.emplace(row, std::move(doc));
}

Result<std::vector<EventHit>> MemoryEpisodicStore::SearchEvents(const EventQuery& query) {
  if (query.limit <= 0) return std::vector<EventHit>();
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  auto keep = [&](const EventRow& row) {
    return (!query.type || row.type == *query.type) && (query.all || row.owner == query.owner);
  };
  std::shared_lock lock(state_->mu_);
  std::vector<EventHit> hits;
  if (terms.empty()) {
    for (const auto& [row, doc] : state_->events_) {
      if (keep(doc.row)) hits.push_back({.row = doc.row});
    }
  } else {
    for (const auto& [doc, score] :
         ScoreDocs(terms, state_->events_, state_->event_postings_, state_->event_tokens_, keep)) {
      hits.push_back({.row = doc->row, .score = score});
    }
  }
  std::sort(hits.begin(), hits.end(), [](const EventHit& a, const EventHit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.row.created_at != b.row.created_at) return a.row.created_at > b.row.created_at;
    return a.row.id < b.row.id;
  });
  Truncate(hits, query.limit);
  return hits;
}

Result<bool> MemoryEpisodicStore::CloseEvent(std::string_view id, TimeMs closed_at) {
  if (closed_at <= 0) return InvalidArgument("closed_at must be positive", "closed_at");
  std::unique_lock lock(state_->mu_);
  for (auto& [row, doc] : state_->events_) {
    if (doc.row.id != id) continue;
    if (doc.row.closed_at != 0) return false;
    doc.row.closed_at = closed_at;
    return true;
  }
  return NotFound("no event " + std::string(id));
}

Result<FacetRow> MemoryEpisodicStore::MergeFacet(const FacetRow& observation) {
  MNEMO_RETURN_IF_ERROR(ValidateFacet(observation));
  std::unique_lock lock(state_->mu_);
  const std::tuple<std::string, std::string, std::string> address{
      observation.facet_type, observation.key, observation.owner};
  auto it = state_->facets_.find(address);
  FacetRow merged = MergeFacetRow(
      it == state_->facets_.end() ? std::nullopt : std::optional<FacetRow>(it->second),
      observation);
  state_->facets_[address] = merged;
  return merged;
}

Result<std::vector<FacetRow>> MemoryEpisodicStore::Facets(bool all, std::string_view owner) {
  std::shared_lock lock(state_->mu_);
  std::vector<FacetRow> out;
  for (const auto& [address, facet] : state_->facets_) {
    if (all || facet.owner == owner) out.push_back(facet);
  }
  return out;
}

void MemoryState::EraseEpisodicLocked(std::string_view owner,
                                      std::optional<std::string_view> session_id,
                                      ErasureCounts& counts) {
  auto in_scope = [&](const std::string& o, const std::string& s) {
    return o == owner && (!session_id || s == *session_id);
  };
  // A claim's stored result holds the captured rule texts: it goes too.
  std::erase_if(turn_claims_, [&](const auto& claim) {
    return in_scope(std::get<0>(claim.first), std::get<1>(claim.first));
  });
  std::erase_if(rule_captures_, [&](const auto& capture) {
    return in_scope(std::get<0>(capture), std::get<1>(capture));
  });
  for (auto it = turns_.begin(); it != turns_.end();) {
    TurnRow& row = it->second.row;
    if (!in_scope(row.owner, row.session_id)) {
      ++it;
      continue;
    }
    UnindexDoc(it->first, it->second, turn_postings_, turn_tokens_);
    turns_by_session_.erase({row.owner, row.session_id, row.seq});
    it = turns_.erase(it);
    ++counts.turns;
  }
  std::set<std::string> erased;
  for (const auto& [id, segment] : segments_) {
    if (in_scope(segment.owner, segment.session_id)) erased.insert(id);
  }
  for (const std::string& id : erased) {
    SegmentRow& segment = segments_.at(id);
    if (recap_rows_.contains(id)) ++counts.recaps;
    SegmentRow cleared = segment;
    cleared.recap.clear();
    SyncRecapLocked(cleared);
    open_segments_.erase({segment.owner, segment.session_id});
    segments_.erase(id);
    ++counts.segments;
  }
  for (auto it = segment_vectors_.begin(); it != segment_vectors_.end();) {
    if (!erased.contains(it->first.second)) {
      ++it;
      continue;
    }
    segment_vector_versions_.erase({it->first.first, it->second.version});
    it = segment_vectors_.erase(it);
    ++counts.recap_vectors;
  }
  for (auto it = events_.begin(); it != events_.end();) {
    EventRow& row = it->second.row;
    if (!in_scope(row.owner, row.session_id)) {
      ++it;
      continue;
    }
    UnindexDoc(it->first, it->second, event_postings_, event_tokens_);
    event_ids_.erase(row.id);
    event_texts_.erase({row.owner, row.type, row.text});
    it = events_.erase(it);
    ++counts.events;
  }
  for (auto it = facets_.begin(); it != facets_.end();) {
    if (it->second.owner != owner) {
      ++it;
      continue;
    }
    bool changed = false;
    std::optional<FacetRow> kept = FacetAfterErasure(it->second, session_id, erased, &changed);
    if (!changed) {
      ++it;
    } else if (kept) {
      it->second = std::move(*kept);
      ++counts.facets_reduced;
      ++it;
    } else {
      it = facets_.erase(it);
      ++counts.facets_removed;
    }
  }
}

// --- Corrections (episodic_store.h).

Result<std::optional<EventRow>> MemoryEpisodicStore::GetEvent(std::string_view id) {
  std::shared_lock lock(state_->mu_);
  for (const auto& [row, doc] : state_->events_) {
    if (doc.row.id == id) return std::optional<EventRow>(doc.row);
  }
  return std::optional<EventRow>();
}

Result<bool> MemoryEpisodicStore::ReplaceEvent(const EventRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateEvents(std::span<const EventRow>(&row, 1)));
  std::unique_lock lock(state_->mu_);
  auto it = std::find_if(state_->events_.begin(), state_->events_.end(),
                         [&](const auto& e) { return e.second.row.id == row.id; });
  if (it == state_->events_.end()) return false;
  EventRow updated = it->second.row;
  if (state_->event_texts_.contains({updated.owner, row.type, row.text}) &&
      !(updated.type == row.type && updated.text == row.text)) {
    return Conflict("another event already says this: delete one of the two instead");
  }
  UnindexDoc(it->first, it->second, state_->event_postings_, state_->event_tokens_);
  state_->event_texts_.erase({updated.owner, updated.type, updated.text});
  updated.type = row.type;
  updated.text = row.text;
  updated.confidence = row.confidence;
  EventDoc doc{.row = updated};
  IndexDoc(updated.text, it->first, doc, state_->event_postings_, state_->event_tokens_);
  state_->event_texts_.emplace(updated.owner, updated.type, updated.text);
  it->second = std::move(doc);
  return true;
}

Result<bool> MemoryEpisodicStore::DeleteEvent(std::string_view id) {
  std::unique_lock lock(state_->mu_);
  auto it = std::find_if(state_->events_.begin(), state_->events_.end(),
                         [&](const auto& e) { return e.second.row.id == id; });
  if (it == state_->events_.end()) return false;
  const EventRow& row = it->second.row;
  UnindexDoc(it->first, it->second, state_->event_postings_, state_->event_tokens_);
  state_->event_texts_.erase({row.owner, row.type, row.text});
  state_->event_ids_.erase(row.id);
  state_->events_.erase(it);
  return true;
}

Result<bool> MemoryEpisodicStore::DeleteFacet(std::string_view owner, std::string_view facet_type,
                                              std::string_view key) {
  std::unique_lock lock(state_->mu_);
  return state_->facets_.erase({std::string(facet_type), std::string(key), std::string(owner)}) > 0;
}

}  // namespace mnemo::storage::internal
