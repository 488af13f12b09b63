#include "storage/memory/text_index.h"

#include <algorithm>
#include <set>

#include "storage/rules/bm25.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {

void TextIndex::Add(int64_t id, std::initializer_list<std::string_view> columns) {
  Doc& doc = docs_[id];
  for (std::string_view text : columns) {
    doc.length +=
        IndexColumn(text, [&](const text::TokenView& t) { ++doc.frequency[std::string(t.text)]; });
  }
  for (const auto& [token, count] : doc.frequency) postings_[token].insert(id);
  total_tokens_ += doc.length;
}

void TextIndex::Remove(int64_t id) {
  auto it = docs_.find(id);
  if (it == docs_.end()) return;
  for (const auto& [token, count] : it->second.frequency) {
    auto posting = postings_.find(token);
    posting->second.erase(id);
    if (posting->second.empty()) postings_.erase(posting);
  }
  total_tokens_ -= it->second.length;
  docs_.erase(it);
}

std::vector<std::pair<int64_t, double>> TextIndex::Score(
    const std::vector<std::string>& terms, const std::function<bool(int64_t)>& keep,
    const std::function<bool(int64_t)>& counted) const {
  Bm25Corpus corpus{static_cast<int64_t>(docs_.size()), total_tokens_};
  if (counted) {
    corpus = {};
    for (const auto& [id, doc] : docs_) {
      if (!counted(id)) continue;
      ++corpus.documents;
      corpus.total_tokens += doc.length;
    }
  }
  std::vector<int64_t> documents_with_term;
  std::set<int64_t> candidates;
  for (const std::string& t : terms) {
    auto it = postings_.find(t);
    int64_t n_t = 0;
    if (it != postings_.end()) {
      candidates.insert(it->second.begin(), it->second.end());
      n_t = static_cast<int64_t>(it->second.size());
      if (counted) n_t = std::count_if(it->second.begin(), it->second.end(), counted);
    }
    documents_with_term.push_back(n_t);
  }
  std::vector<Bm25Term> stats(terms.size());
  std::vector<std::pair<int64_t, double>> scored;
  for (int64_t id : candidates) {
    if (!keep(id)) continue;
    const Doc& doc = docs_.at(id);
    for (size_t i = 0; i < terms.size(); ++i) {
      stats[i].documents_with_term = documents_with_term[i];
      auto f = doc.frequency.find(terms[i]);
      stats[i].frequency = f == doc.frequency.end() ? 0 : f->second;
    }
    scored.emplace_back(id, NormalisedBm25(corpus, doc.length, stats));
  }
  return scored;
}

int64_t TextIndex::DocumentsWith(const std::string& token) const {
  auto it = postings_.find(token);
  return it == postings_.end() ? 0 : static_cast<int64_t>(it->second.size());
}

}  // namespace mnemo::storage::internal
