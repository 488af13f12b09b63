#include "storage/postgres/node_keyword_index.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/rules/bm25.h"

namespace mnemo::storage::internal::pg {
namespace {

// The constants as the server's statement reads them: std::to_string's
// literals (AddTermScores), parsed back.
double AsLiteral(double v) { return std::strtod(std::to_string(v).c_str(), nullptr); }

uint32_t ReadU32(std::string_view s, size_t at) {
  uint32_t v = 0;
  for (size_t i = 0; i < 4; ++i) v = v << 8 | static_cast<unsigned char>(s[at + i]);
  return v;
}
uint16_t ReadU16(std::string_view s, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(s[at]) << 8 |
                               static_cast<unsigned char>(s[at + 1]));
}

// The lexemes of a binary tsvector (tsvectorsend: a count, then each
// lexeme NUL-terminated, its number of positions and the positions, all
// big-endian) with their position counts; false when it is malformed.
template <typename Fn>
bool ForEachLexeme(std::string_view tsv, Fn&& fn) {
  if (tsv.size() < 4) return false;
  const uint32_t count = ReadU32(tsv, 0);
  size_t at = 4;
  for (uint32_t i = 0; i < count; ++i) {
    const size_t end = tsv.find('\0', at);
    if (end == std::string_view::npos || end + 3 > tsv.size()) return false;
    const std::string_view lexeme = tsv.substr(at, end - at);
    const uint16_t positions = ReadU16(tsv, end + 1);
    at = end + 3 + 2 * static_cast<size_t>(positions);
    if (at > tsv.size()) return false;
    // A lexeme without positions counts once, as ts_rank_cd counts it.
    fn(lexeme, std::max<uint32_t>(positions, 1));
  }
  return true;
}

// Scratch of one search: a score per slot, reset by epoch.
struct Scratch {
  std::vector<double> sum;
  std::vector<uint32_t> seen;
  std::vector<uint32_t> touched;
  uint32_t epoch = 0;
};

// Keeps the best `k` of `ranked` and every other one tied with the k-th on
// score and updated_at, best first.
void KeepBest(std::vector<NodeKeywordCandidate>& ranked, size_t k) {
  auto better = [](const NodeKeywordCandidate& x, const NodeKeywordCandidate& y) {
    if (x.score != y.score) return x.score > y.score;
    if (x.updated_at != y.updated_at) return x.updated_at > y.updated_at;
    return x.label < y.label;
  };
  if (ranked.size() > k) {
    std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(k - 1),
                     ranked.end(), better);
    const NodeKeywordCandidate last = ranked[k - 1];
    const auto tied = std::partition(
        ranked.begin() + static_cast<std::ptrdiff_t>(k), ranked.end(),
        [&](const auto& c) { return c.score == last.score && c.updated_at == last.updated_at; });
    ranked.erase(tied, ranked.end());
  }
  std::sort(ranked.begin(), ranked.end(), better);
}

}  // namespace

void NodeKeywordIndex::AddToBucket(uint32_t bucket, int64_t docs, int64_t tokens) {
  if (buckets_.size() <= bucket) buckets_.resize(bucket + 1);
  buckets_[bucket].docs += docs;
  buckets_[bucket].tokens += tokens;
}

Status NodeKeywordIndex::Put(const NodeKeywordRow& row) {
  // Parsed once to check it before anything changes.
  if (!ForEachLexeme(row.tsv, [](std::string_view, uint32_t) {})) {
    return Internal("the keyword index of entry " + std::to_string(row.label) +
                    " is not a readable tsvector");
  }
  Remove(row.label);
  const auto slot = static_cast<uint32_t>(docs_.size());
  Doc doc{.label = row.label,
          .updated_at = row.updated_at,
          .length = row.doc_length,
          .bucket = row.is_public ? 0 : owners_.Intern(row.owner) + 1,
          .live = true,
          .archived = row.archived,
          .system = row.system};
  ForEachLexeme(row.tsv, [&](std::string_view lexeme, uint32_t tf) {
    const uint32_t id = terms_.Intern(lexeme);
    if (id == postings_.size()) postings_.emplace_back();
    postings_[id].push_back({slot, tf});
    ++doc.terms;
  });
  live_postings_ += doc.terms;
  AddToBucket(doc.bucket, 1, doc.length);
  docs_.push_back(doc);
  slot_of_[row.label] = slot;
  return Status::Ok();
}

void NodeKeywordIndex::Remove(Label label) {
  const auto it = slot_of_.find(label);
  if (it == slot_of_.end()) return;
  Doc& doc = docs_[it->second];
  doc.live = false;
  AddToBucket(doc.bucket, -1, -doc.length);
  live_postings_ -= doc.terms;
  dead_postings_ += doc.terms;
  slot_of_.erase(it);
  if (dead_postings_ > 4096 && dead_postings_ > live_postings_) Compact();
}

void NodeKeywordIndex::Compact() {
  std::vector<uint32_t> moved(docs_.size(), UINT32_MAX);
  std::vector<Doc> live;
  live.reserve(slot_of_.size());
  for (uint32_t slot = 0; slot < docs_.size(); ++slot) {
    if (!docs_[slot].live) continue;
    moved[slot] = static_cast<uint32_t>(live.size());
    slot_of_[docs_[slot].label] = moved[slot];
    live.push_back(docs_[slot]);
  }
  for (std::vector<Posting>& list : postings_) {
    size_t kept = 0;
    for (const Posting& p : list) {
      if (moved[p.slot] != UINT32_MAX) list[kept++] = {moved[p.slot], p.tf};
    }
    list.resize(kept);
    list.shrink_to_fit();
  }
  docs_ = std::move(live);
  dead_postings_ = 0;
}

NodeKeywordIndex::Weighing NodeKeywordIndex::Weigh(const std::vector<std::string>& terms,
                                                   const ReadScope& scope) const {
  Weighing out;
  // The scope's buckets: all, or the public one and the principal's.
  out.all = scope.all;
  const uint32_t owner = owners_.Find(scope.principal);
  out.own = scope.all ? 0 : (owner == mnemo::internal::StringIds::kNone ? UINT32_MAX : owner + 1);
  TermStats stats;
  for (uint32_t b = 0; b < buckets_.size(); ++b) {
    if (!out.InScope(b)) continue;
    stats.documents += buckets_[b].docs;
    stats.tokens += buckets_[b].tokens;
  }
  out.lists.assign(terms.size(), nullptr);
  stats.df.assign(terms.size(), 0);
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!SearchableTerm(terms[i])) continue;
    const uint32_t id = terms_.Find(terms[i]);
    if (id == mnemo::internal::StringIds::kNone) continue;
    out.lists[i] = &postings_[id];
    for (const Posting& p : *out.lists[i]) {
      const Doc& d = docs_[p.slot];
      if (d.live && out.InScope(d.bucket)) ++stats.df[i];
    }
  }
  StatsWeights w = WeighStats(stats);
  out.idf = std::move(w.idf);
  out.avgdl = w.avgdl;
  out.mass = w.mass;
  return out;
}

double NodeKeywordIndex::Part(const Weighing& w, size_t term, const Doc& doc, uint32_t tf) {
  static const double kK1 = AsLiteral(kBm25K1);
  static const double kB = AsLiteral(kBm25B);
  static const double kK1Plus1 = AsLiteral(kBm25K1 + 1);
  const double ratio = w.avgdl > 0 ? static_cast<double>(doc.length) / w.avgdl : 1.0;
  const double norm = kK1 * (1 - kB + kB * ratio);
  const auto f = static_cast<double>(tf);
  return w.idf[term] * f * kK1Plus1 / (f + norm);
}

std::vector<NodeKeywordCandidate> NodeKeywordIndex::Rank(const std::vector<std::string>& terms,
                                                         const ReadScope& scope,
                                                         bool include_archived, int limit) const {
  std::vector<NodeKeywordCandidate> out;
  if (limit <= 0) return out;
  const Weighing w = Weigh(terms, scope);
  if (!(w.mass > 0)) return out;
  thread_local Scratch scratch;
  if (scratch.sum.size() < docs_.size()) {
    scratch.sum.resize(docs_.size());
    scratch.seen.resize(docs_.size(), 0);
  }
  if (++scratch.epoch == 0) {
    std::fill(scratch.seen.begin(), scratch.seen.end(), 0);
    scratch.epoch = 1;
  }
  scratch.touched.clear();
  // Each term's part added in the order of the terms, as the statement sums
  // them (a term the row lacks adds 0.0 there: the same bits).
  for (size_t i = 0; i < terms.size(); ++i) {
    if (w.lists[i] == nullptr) continue;
    for (const Posting& p : *w.lists[i]) {
      const Doc& d = docs_[p.slot];
      if (!d.live || d.system || (d.archived && !include_archived) || !w.InScope(d.bucket)) {
        continue;
      }
      const double part = Part(w, i, d, p.tf);
      if (scratch.seen[p.slot] != scratch.epoch) {
        scratch.seen[p.slot] = scratch.epoch;
        scratch.sum[p.slot] = part;
        scratch.touched.push_back(p.slot);
      } else {
        scratch.sum[p.slot] += part;
      }
    }
  }
  out.reserve(scratch.touched.size());
  for (const uint32_t slot : scratch.touched) {
    out.push_back({.label = docs_[slot].label,
                   .score = std::min(1.0, scratch.sum[slot] / w.mass),
                   .updated_at = docs_[slot].updated_at});
  }
  KeepBest(out, static_cast<size_t>(limit));
  return out;
}

std::vector<double> NodeKeywordIndex::Score(const std::vector<std::string>& terms,
                                            const ReadScope& scope,
                                            std::span<const Label> labels) const {
  std::vector<double> out(labels.size(), 0.0);
  const Weighing w = Weigh(terms, scope);
  if (!(w.mass > 0)) return out;
  for (size_t at = 0; at < labels.size(); ++at) {
    const auto it = slot_of_.find(labels[at]);
    if (it == slot_of_.end()) continue;
    const uint32_t slot = it->second;
    // A term's postings are in slot order (Put appends, Compact keeps it).
    std::optional<double> sum;
    for (size_t i = 0; i < terms.size(); ++i) {
      if (w.lists[i] == nullptr) continue;
      const auto p = std::lower_bound(w.lists[i]->begin(), w.lists[i]->end(), slot,
                                      [](const Posting& x, uint32_t s) { return x.slot < s; });
      if (p == w.lists[i]->end() || p->slot != slot) continue;
      const double part = Part(w, i, docs_[slot], p->tf);
      sum = sum ? *sum + part : part;
    }
    if (sum) out[at] = std::min(1.0, *sum / w.mass);
  }
  return out;
}

void NodeKeywordIndex::ShrinkToFit() {
  docs_.shrink_to_fit();
  postings_.shrink_to_fit();
  for (std::vector<Posting>& list : postings_) list.shrink_to_fit();
  terms_.ShrinkToFit();
  owners_.ShrinkToFit();
}

size_t NodeKeywordIndex::MemoryBytes() const {
  size_t bytes = docs_.capacity() * sizeof(Doc) +
                 postings_.capacity() * sizeof(std::vector<Posting>) +
                 buckets_.capacity() * sizeof(Bucket);
  for (const auto& list : postings_) bytes += list.capacity() * sizeof(Posting);
  // A node of the map: the pair, the next pointer and the cached hash.
  bytes += slot_of_.size() * (sizeof(std::pair<Label, uint32_t>) + 2 * sizeof(void*)) +
           slot_of_.bucket_count() * sizeof(void*);
  for (const auto* ids : {&terms_, &owners_}) {
    for (uint32_t i = 0; i < ids->size(); ++i) bytes += ids->at(i).size() + 12;
  }
  return bytes;
}

}  // namespace mnemo::storage::internal::pg
