#include "storage/memory/memory_entry_store.h"

#include <algorithm>
#include <mutex>

#include "storage/rules/bm25.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {
namespace {

// List order of entry_store.h, made total by namespace and id.
bool ListBefore(const Entry& a, const Entry& b) {
  if (a.updated_at != b.updated_at) return a.updated_at > b.updated_at;
  return std::tie(a.key, a.owner, a.ns, a.id) < std::tie(b.key, b.owner, b.ns, b.id);
}

// Every token counts towards its frequency, as every FTS5 instance does.
void AddColumn(std::string_view text, int64_t& length,
               std::unordered_map<std::string, int64_t>& frequency) {
  length += IndexColumn(text, [&](const text::TokenView& t) { ++frequency[std::string(t.text)]; });
}

}  // namespace

MemoryState::Doc MemoryState::MakeDoc(Entry entry, const Doc* previous) {
  Doc doc;
  if (previous != nullptr && previous->entry.key == entry.key &&
      previous->entry.content == entry.content) {
    doc.length = previous->length;
    doc.frequency = previous->frequency;
  } else {
    AddColumn(entry.key, doc.length, doc.frequency);
    AddColumn(entry.content, doc.length, doc.frequency);
  }
  doc.entry = std::move(entry);
  return doc;
}

void MemoryState::CountChangeLocked(std::string_view ns) {
  if (ns.starts_with("tool-")) ++tool_rules_generation_;
  if (ns == kToolRegistryNamespace) ++tool_registry_generation_;
}

void MemoryState::Insert(Row row, Doc doc) {
  const Entry& e = doc.entry;
  CountChangeLocked(e.ns);
  by_id_[e.id] = row;
  by_address_[{e.owner, e.ns, e.key}] = row;
  by_name_[{e.ns, e.key}].insert(row);
  for (const auto& [token, count] : doc.frequency) postings_[token].insert(row);
  total_tokens_ += doc.length;
  docs_[row] = std::move(doc);
}

MemoryState::Doc MemoryState::Erase(Row row) {
  auto it = docs_.find(row);
  Doc doc = std::move(it->second);
  docs_.erase(it);
  CountChangeLocked(doc.entry.ns);
  const Entry& e = doc.entry;
  by_id_.erase(e.id);
  by_address_.erase({e.owner, e.ns, e.key});
  auto name = by_name_.find({e.ns, e.key});
  name->second.erase(row);
  if (name->second.empty()) by_name_.erase(name);
  for (const auto& [token, count] : doc.frequency) {
    auto posting = postings_.find(token);
    posting->second.erase(row);
    if (posting->second.empty()) postings_.erase(posting);
  }
  total_tokens_ -= doc.length;
  return doc;
}

Result<UpsertResult> MemoryState::ApplyLocked(const EntryWrite& write, std::vector<Undo>& undo) {
  MNEMO_RETURN_IF_ERROR(ValidateWrite(write));
  for (const SignedVector& v : write.vectors) {
    const LabeledVector one{.vector = v.vector};
    MNEMO_RETURN_IF_ERROR(
        CheckVectorDimensions(v.signature, std::span(&one, 1), StoredDimensionLocked(v.signature)));
  }
  auto found = by_address_.find({write.owner, write.ns, write.key});
  std::optional<Row> row;
  std::optional<Doc> before;
  if (found != by_address_.end()) {
    row = found->second;
    before = Erase(*row);
  }
  Entry merged = MergeWrite(write, before ? std::optional<Entry>(before->entry) : std::nullopt);
  if (by_id_.contains(merged.id)) {
    if (row) Insert(*row, std::move(*before));
    return Conflict("an entry with id " + merged.id + " already exists at another key");
  }
  const bool created = !row.has_value();
  const bool text_changed = created || before->entry.content != merged.content;
  if (created) row = next_row_++;
  Doc doc = MakeDoc(merged, before ? &*before : nullptr);
  doc.fingerprint = write.fingerprint;
  Insert(*row, std::move(doc));
  undo.push_back({*row, std::move(before), {}});
  // A new label has no vectors: labels are never reused.
  if (text_changed && !created) DropVectorsLocked(*row, &undo.back());
  if (text_changed) {
    for (const SignedVector& v : write.vectors) {
      PutVectorLocked(v.signature, *row, v.vector);
      undo.back().put.push_back(v.signature);
    }
  }
  return UpsertResult{
      .entry = std::move(merged), .created = created, .label = *row, .text_changed = text_changed};
}

void MemoryState::RollBackLocked(std::vector<Undo>& undo, int64_t first_seq) {
  for (auto it = undo.rbegin(); it != undo.rend(); ++it) {
    Erase(it->row);
    if (it->before) Insert(it->row, std::move(*it->before));
    for (const std::string& signature : it->put) spaces_[signature].vectors.erase(it->row);
    for (auto& [signature, vector] : it->vectors) {
      spaces_[signature].vectors[it->row] = std::move(vector);
    }
  }
  undo.clear();
  for (auto& [signature, space] : spaces_) {
    while (!space.log.empty() && space.log.back().seq >= first_seq) space.log.pop_back();
  }
  next_seq_ = first_seq;
}

Result<UpsertResult> MemoryEntryStore::Upsert(const EntryWrite& write) {
  std::unique_lock lock(state_->mu_);
  std::vector<Undo> undo;
  const int64_t first_seq = state_->next_seq_;
  MNEMO_ASSIGN_OR_RETURN(UpsertResult result, state_->ApplyLocked(write, undo));
  state_->LoggedLocked(state_->next_seq_ - first_seq);
  return result;
}

Result<int64_t> MemoryEntryStore::UpsertBatch(std::span<const EntryWrite> writes,
                                              std::vector<Label>* labels) {
  std::unique_lock lock(state_->mu_);
  std::vector<Undo> undo;
  const int64_t first_seq = state_->next_seq_;
  int64_t created = 0;
  for (const EntryWrite& write : writes) {
    Result<UpsertResult> r = state_->ApplyLocked(write, undo);
    if (!r.ok()) {
      state_->RollBackLocked(undo, first_seq);
      return r.status();
    }
    if (r->created) ++created;
    if (labels != nullptr) labels->push_back(r->label);
  }
  state_->LoggedLocked(state_->next_seq_ - first_seq);
  return created;
}

Result<std::vector<UpsertResult>> MemoryEntryStore::Mutate(const EntryGroup& group,
                                                           const MutateFn& decide) {
  std::unique_lock lock(state_->mu_);
  std::vector<Entry> current;
  auto first = state_->by_address_.lower_bound({group.owner, group.ns, group.key.value_or("")});
  for (auto it = first; it != state_->by_address_.end(); ++it) {
    const auto& [owner, ns, key] = it->first;
    if (owner != group.owner || ns != group.ns || (group.key && key != *group.key)) break;
    const Doc& doc = state_->docs_.at(it->second);
    if (group.fingerprint && doc.fingerprint && *doc.fingerprint != *group.fingerprint) continue;
    current.push_back(doc.entry);
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<EntryWrite> writes, decide(current));
  std::vector<Undo> undo;
  const int64_t first_seq = state_->next_seq_;
  std::vector<UpsertResult> results;
  for (const EntryWrite& write : writes) {
    Status valid = ValidateGroupWrite(group, write);
    Result<UpsertResult> r =
        valid.ok() ? state_->ApplyLocked(write, undo) : Result<UpsertResult>(valid);
    if (!r.ok()) {
      state_->RollBackLocked(undo, first_seq);
      return r.status();
    }
    results.push_back(std::move(*r));
  }
  state_->LoggedLocked(state_->next_seq_ - first_seq);
  return results;
}

Result<std::optional<Entry>> MemoryEntryStore::FindExact(std::string_view owner,
                                                         const Namespace& ns, const Key& key) {
  std::shared_lock lock(state_->mu_);
  auto it = state_->by_address_.find({std::string(owner), ns.str(), key.str()});
  if (it == state_->by_address_.end()) return std::optional<Entry>();
  return std::optional<Entry>(state_->docs_.at(it->second).entry);
}

Result<std::optional<Entry>> MemoryEntryStore::Resolve(const Namespace& ns, const Key& key,
                                                       const ReadScope& scope) {
  std::shared_lock lock(state_->mu_);
  auto it = state_->by_name_.find({ns.str(), key.str()});
  if (it == state_->by_name_.end()) return std::optional<Entry>();
  const Entry* best = nullptr;
  // Own entry first, then the most recently updated; owner breaks ties.
  auto rank = [&](const Entry& e) {
    return std::make_tuple(e.owner == scope.principal, e.updated_at);
  };
  for (Row row : it->second) {
    const Entry& e = state_->docs_.at(row).entry;
    if (!VisibleIn(scope, e)) continue;
    if (best == nullptr || rank(e) > rank(*best) ||
        (rank(e) == rank(*best) && e.owner < best->owner)) {
      best = &e;
    }
  }
  if (best == nullptr) return std::optional<Entry>();
  return std::optional<Entry>(*best);
}

Result<bool> MemoryEntryStore::Delete(std::string_view id) {
  std::unique_lock lock(state_->mu_);
  auto it = state_->by_id_.find(std::string(id));
  if (it == state_->by_id_.end()) return false;
  const Row row = it->second;
  state_->Erase(row);
  state_->LoggedLocked(state_->DropVectorsLocked(row, nullptr));
  return true;
}

Result<HygieneCounts> MemoryEntryStore::ApplyHygiene(std::span<const std::string> ids,
                                                     const HygieneFn& decide) {
  std::unique_lock lock(state_->mu_);
  HygieneCounts counts;
  int64_t logged = 0;
  for (const std::string& id : ids) {
    auto it = state_->by_id_.find(id);
    if (it == state_->by_id_.end()) continue;
    const Row row = it->second;
    Entry& e = state_->docs_.at(row).entry;
    switch (decide(e)) {
      case HygieneAction::kKeep: break;
      case HygieneAction::kArchive:
        if (e.archived) break;
        e.archived = true;
        ++counts.archived;
        break;
      case HygieneAction::kDelete:
        state_->Erase(row);
        logged += state_->DropVectorsLocked(row, nullptr);
        ++counts.deleted;
        break;
    }
  }
  state_->LoggedLocked(logged);
  return counts;
}

Result<std::optional<TimeMs>> MemoryEntryStore::LastHygieneRun() {
  std::unique_lock lock(state_->mu_);
  return state_->hygiene_last_run_;
}

Result<bool> MemoryEntryStore::ClaimHygieneRun(TimeMs now, TimeMs interval) {
  std::unique_lock lock(state_->mu_);
  if (state_->hygiene_last_run_ && now - *state_->hygiene_last_run_ < interval) return false;
  state_->hygiene_last_run_ = now;
  return true;
}

Result<std::optional<Entry>> MemoryEntryStore::AddCounters(std::string_view id,
                                                           int64_t access_delta,
                                                           int64_t useful_delta) {
  std::unique_lock lock(state_->mu_);
  auto it = state_->by_id_.find(std::string(id));
  if (it == state_->by_id_.end()) return std::optional<Entry>();
  Entry& e = state_->docs_.at(it->second).entry;
  e.access_count += access_delta;
  e.useful_count += useful_delta;
  return std::optional<Entry>(e);
}

std::vector<const Entry*> MemoryState::MatchingLocked(const EntryFilter& filter) const {
  std::vector<const Entry*> out;
  for (const auto& [row, doc] : docs_) {
    if (MatchesFilter(filter, doc.entry)) out.push_back(&doc.entry);
  }
  return out;
}

Result<std::vector<Entry>> MemoryEntryStore::List(const EntryFilter& filter, int limit,
                                                  int64_t offset) {
  if (offset < 0) return InvalidArgument("offset must be >= 0", "offset");
  std::shared_lock lock(state_->mu_);
  std::vector<const Entry*> matching = state_->MatchingLocked(filter);
  std::sort(matching.begin(), matching.end(),
            [](const Entry* a, const Entry* b) { return ListBefore(*a, *b); });
  std::vector<Entry> out;
  for (int64_t i = offset;
       i < static_cast<int64_t>(matching.size()) && static_cast<int64_t>(out.size()) < limit; ++i) {
    out.push_back(*matching[i]);
  }
  return out;
}

MemoryState::KeywordScorer::KeywordScorer(const MemoryState& state, std::vector<std::string> terms,
                                          const ReadScope& scope)
    : terms_(std::move(terms)),
      corpus_{static_cast<int64_t>(state.docs_.size()), state.total_tokens_},
      stats_(terms_.size()) {
  for (const std::string& t : terms_) {
    auto it = state.postings_.find(t);
    if (it != state.postings_.end()) candidates_.insert(it->second.begin(), it->second.end());
    int64_t n_t = it == state.postings_.end() ? 0 : static_cast<int64_t>(it->second.size());
    if (!scope.all && it != state.postings_.end()) {
      n_t = 0;
      for (Row row : it->second) n_t += VisibleIn(scope, state.docs_.at(row).entry) ? 1 : 0;
    }
    documents_with_term_.push_back(n_t);
  }
  if (!scope.all) {
    corpus_ = {};
    for (const auto& [row, doc] : state.docs_) {
      if (!VisibleIn(scope, doc.entry)) continue;
      ++corpus_.documents;
      corpus_.total_tokens += doc.length;
    }
  }
}

double MemoryState::KeywordScorer::Score(const Doc& doc) {
  for (size_t i = 0; i < terms_.size(); ++i) {
    stats_[i].documents_with_term = documents_with_term_[i];
    auto f = doc.frequency.find(terms_[i]);
    stats_[i].frequency = f == doc.frequency.end() ? 0 : f->second;
  }
  return NormalisedBm25(corpus_, doc.length, stats_);
}

Result<std::vector<KeywordHit>> MemoryEntryStore::KeywordSearch(const KeywordQuery& query) {
  std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<KeywordHit>();
  std::shared_lock lock(state_->mu_);
  KeywordScorer scorer(*state_, std::move(terms), query.filter.scope);
  struct Scored {
    double score;
    const Entry* entry;
    Row row;
  };
  std::vector<Scored> scored;
  for (Row row : scorer.candidates()) {
    const Doc& doc = state_->docs_.at(row);
    if (!MatchesFilter(query.filter, doc.entry)) continue;
    scored.push_back({scorer.Score(doc), &doc.entry, row});
  }
  // Score, then updated_at, then key; owner, namespace and id make it total.
  auto before = [](const Scored& a, const Scored& b) {
    if (a.score != b.score) return a.score > b.score;
    return ListBefore(*a.entry, *b.entry);
  };
  const size_t n = std::min(scored.size(), static_cast<size_t>(query.limit));
  std::partial_sort(scored.begin(), scored.begin() + static_cast<std::ptrdiff_t>(n), scored.end(),
                    before);
  std::vector<KeywordHit> hits;
  for (size_t i = 0; i < n; ++i) {
    hits.push_back(
        {.entry = *scored[i].entry, .keyword_score = scored[i].score, .label = scored[i].row});
  }
  return hits;
}

Result<Stats> MemoryEntryStore::GetStats(const ReadScope& scope) {
  std::shared_lock lock(state_->mu_);
  Stats stats;
  std::map<std::string, int64_t> by_category;
  std::map<std::string, int64_t> by_namespace;
  for (const auto& [row, doc] : state_->docs_) {
    if (!VisibleIn(scope, doc.entry)) continue;
    ++stats.entries;
    if (doc.entry.archived) ++stats.archived;
    ++by_category[doc.entry.category];
    ++by_namespace[doc.entry.ns];
  }
  stats.by_category.assign(by_category.begin(), by_category.end());
  stats.by_namespace.assign(by_namespace.begin(), by_namespace.end());
  stats.backend = "in_memory";
  stats.schema_version = 0;  // nothing persisted, no schema to version
  return stats;
}

Result<int64_t> MemoryEntryStore::Generation(Counter which) {
  std::shared_lock lock(state_->mu_);
  return which == Counter::kToolRules ? state_->tool_rules_generation_
                                      : state_->tool_registry_generation_;
}

Status MemoryEntryStore::ForEach(const ReadScope& scope, std::string_view ns_prefix,
                                 const std::function<Status(const Entry&)>& fn) {
  std::vector<Entry> entries;
  {
    std::shared_lock lock(state_->mu_);
    for (const auto& [address, row] : state_->by_address_) {
      const Entry& e = state_->docs_.at(row).entry;
      if (VisibleIn(scope, e) && e.ns.starts_with(ns_prefix)) entries.push_back(e);
    }
  }
  // Copied out so that `fn` may call back into the backend.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.ns, a.key, a.owner) < std::tie(b.ns, b.key, b.owner);
  });
  for (const Entry& e : entries) MNEMO_RETURN_IF_ERROR(fn(e));
  return Status::Ok();
}

}  // namespace mnemo::storage::internal
