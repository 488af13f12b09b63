// The keyword index of entries a PostgreSQL node holds in memory
// (`[postgres] keyword_index = "node"`, pg_node_search.h keeps it current
// from the entry change log and answers searches with it).
//
// It holds what a search of entries scores and filters by without the
// server: per term, the rows holding it with their term frequency (the
// positions of the row's tsvector: IndexText stores positions 1..tf, so
// this is what ts_rank_cd counts on the server); per row its document
// length, updated_at (the first tie-break of the ranking), its statistics
// bucket (pg_schema.cc, v7: public, or its owner's), archived and whether
// its namespace is a system one. The statistics of a scope (N, the token
// total, each term's row count) are counted from the same rows as
// entry_terms counts them, so a search weighs its terms with the figures the
// server's statement weighs them with (WeighStats) and scores each row in
// the floating-point operations and order of that statement
// (AddTermScores): the same bits.
//
// Compact: a posting is a row slot and a frequency (8 bytes); terms and
// owners are interned (StringIds). A row written again or deleted leaves
// its slot dead, skipped by the searches, until the dead postings outnumber
// the live ones and the postings are compacted.
//
// Thread-safety: none; the caller guards it (pg_node_search.h).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/string_ids.h"
#include "mnemo/status.h"
#include "storage/entry_store.h"

namespace mnemo::storage::internal::pg {

// One row of entries as the index takes it.
struct NodeKeywordRow {
  Label label = 0;
  std::string_view tsv;  // the tsvector in PostgreSQL's binary format
  int64_t doc_length = 0;
  int64_t updated_at = 0;
  std::string_view owner;
  bool is_public = false;
  bool archived = false;
  bool system = false;  // a system namespace (IsSystemNamespace)
};

// A row a search ranks, with its score.
struct NodeKeywordCandidate {
  Label label = 0;
  double score = 0;
  int64_t updated_at = 0;
};

class NodeKeywordIndex {
 public:
  // Adds `row`, replacing the row of its label if held. An error (and
  // nothing changed) when its tsvector cannot be read.
  Status Put(const NodeKeywordRow& row);
  // Removes the row of `label`; nothing when it is not held.
  void Remove(Label label);

  // The rows holding one of `terms` (distinct) that `scope` reads, not
  // archived unless `include_archived`, in no system namespace, best first
  // by score then updated_at (newest first): the first `limit` and every
  // further one tied with the limit-th on both (the server breaks those ties
  // by key, owner and namespace).
  std::vector<NodeKeywordCandidate> Rank(const std::vector<std::string>& terms,
                                         const ReadScope& scope, bool include_archived,
                                         int limit) const;

  // The score of each row of `labels` (held, not deleted) for `terms`
  // (distinct), with the statistics of `scope`, in their order: the scores
  // the server's fetch of rows by label gives them (FetchByLabels, its
  // weights those of Rank), to the bit; 0.0 for a row holding none of the
  // terms or not held.
  std::vector<double> Score(const std::vector<std::string>& terms, const ReadScope& scope,
                            std::span<const Label> labels) const;

  // Frees the spare capacity of every table (after a load: the postings
  // lists grew by doubling).
  void ShrinkToFit();

  size_t rows() const { return slot_of_.size(); }
  // The bytes its tables hold (capacity, not counting allocator overhead).
  size_t MemoryBytes() const;

 private:
  struct Doc {
    Label label = 0;
    int64_t updated_at = 0;
    int64_t length = 0;
    uint32_t bucket = 0;  // 0: public; owner id + 1 otherwise
    uint32_t terms = 0;   // postings of the row
    bool live = false;
    bool archived = false;
    bool system = false;
  };
  struct Posting {
    uint32_t slot = 0;
    uint32_t tf = 0;
  };
  struct Bucket {
    int64_t docs = 0;
    int64_t tokens = 0;
  };
  // What a search of some terms in a scope weighs with: the scope's
  // buckets, BM25's weights and each term's postings (null: none).
  struct Weighing {
    bool all = false;
    uint32_t own = 0;  // the principal's bucket (UINT32_MAX: none)
    std::vector<double> idf;
    double avgdl = 0;
    double mass = 0;
    std::vector<const std::vector<Posting>*> lists;
    bool InScope(uint32_t bucket) const { return all || bucket == 0 || bucket == own; }
  };
  Weighing Weigh(const std::vector<std::string>& terms, const ReadScope& scope) const;
  // A term's part of the score of `doc` holding it `tf` times.
  static double Part(const Weighing& w, size_t term, const Doc& doc, uint32_t tf);
  void AddToBucket(uint32_t bucket, int64_t docs, int64_t tokens);
  void Compact();

  std::vector<Doc> docs_;  // by slot
  std::unordered_map<Label, uint32_t> slot_of_;
  mnemo::internal::StringIds terms_;
  std::vector<std::vector<Posting>> postings_;  // by term id
  mnemo::internal::StringIds owners_;
  std::vector<Bucket> buckets_;  // by bucket
  int64_t live_postings_ = 0;
  int64_t dead_postings_ = 0;
};

}  // namespace mnemo::storage::internal::pg
