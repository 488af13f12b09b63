// The vectors service (spec 20): the embedder, one VectorSpace per signature
// ("hash-v2-384", "external:768", ...) opened on first use, embedding on
// store and import, bring-your-own vectors, and filling what is missing. It
// owns the embedder and the open spaces, and takes only the entry store
// (where vectors live), the logger and its options. Open spaces write their
// index files when the service is destroyed.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/search/vector_space.h"
#include "embed/embedder.h"
#include "embed/soft_match.h"
#include "index/index_factory.h"
#include "mnemo/admin.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "storage/entry_store.h"
#include "storage/stores.h"

namespace mnemo {

struct VectorsOptions {
  index::IndexOptions index;  // [index], validated
  // Where the spaces' index files go; empty: none (in-memory stores).
  std::filesystem::path dir;
};

// The options for `stores` of a workspace: index files under
// <workspace>/index, for a server's store in a folder of its own per store
// (a workspace pointed at several stores in turn keeps each one's files).
// kInvalidArgument naming the key for an invalid [index].
Result<VectorsOptions> VectorsOptionsOf(const Config& config, const storage::Stores& stores,
                                        const std::string& workspace);

class VectorsService {
 public:
  // `embedder` null: no embedder (provider "none"); otherwise its space is
  // opened here (loaded or rebuilt from storage). A workspace whose entries
  // have vectors of another embedder's space (not external) and lack ours
  // was indexed with another embedder (or another word-vector file): with a
  // local embedder (words, hash) the missing vectors are computed here,
  // progress on `logger`; with a remote one a warning says that those
  // entries rank by keywords alone until `mnemo reindex`. Spaces are never
  // mixed either way.
  static Result<std::unique_ptr<VectorsService>> Open(storage::EntryStore& entries,
                                                      std::unique_ptr<embed::Embedder> embedder,
                                                      VectorsOptions options,
                                                      std::shared_ptr<Logger> logger);
  // Writes every open space's index file (a failure is a warning).
  ~VectorsService();
  VectorsService(const VectorsService&) = delete;
  VectorsService& operator=(const VectorsService&) = delete;

  // Null without an embedder.
  embed::Embedder* embedder() const { return embedder_.get(); }
  // Soft term matching over the word-vector file of the `words` embedder
  // (embed/soft_match.h); null with any other embedder.
  const embed::SoftMatcher* soft_matcher() const { return soft_.get(); }
  // The word-vector file in use: "<path> (<source>, sha256 <checksum>)", or
  // "" with another embedder (memory.health).
  std::string word_vectors_description() const;
  // The provider that runs for the configured one: "hash" when "words"
  // runs without its file (memory.health, memory.stats).
  std::string ActiveProvider(std::string_view configured) const;
  // Asks the embedder itself, past the cache, to embed a probe text now:
  // whether it answers (kDisabled without an embedder).
  Status ProbeEmbedder() const;

  // The space of `signature` (opened on first use).
  Result<std::shared_ptr<VectorSpace>> Space(const std::string& signature, size_t dims);
  // The embedder's own space, or null without an embedder.
  Result<std::shared_ptr<VectorSpace>> EmbedderSpace();

  // With the `words` embedder, a text without an English word of the
  // vocabulary (Chinese, Arabic, ...) gets the hash embedder's vector instead,
  // in a space of its own: OtherSignature(), "<words signature>.<hash
  // signature>". A query's vector is searched in the space its own text falls
  // in, so an English vector is never compared with a hash vector. Empty with
  // any other embedder (every text has the embedder's vector or none).
  std::string OtherSignature() const;

  // A query's vector and the space to search it in: space null when the
  // text has nothing to embed or there is no embedder; the embedder's error
  // (kUnavailable) when it cannot answer.
  struct QueryVector {
    std::shared_ptr<VectorSpace> space;
    std::vector<float> vector;
  };
  Result<QueryVector> EmbedQuery(const std::string& text);

  // The vectors a store writes with its entry, in the entry's own
  // transaction (storage::EntryWrite::vectors), computed before the write:
  // the embedder's vector of `text`, or OtherSignature()'s for a text
  // without an English word; none when the text has nothing to embed or
  // there is no embedder. Their spaces are opened here. An embedder that
  // fails (a remote one down or timing out) is not fatal (spec 20): none
  // (logged), and the entry is stored without a vector, pending (`mnemo
  // reindex` and the search's filler embed it), as before.
  std::vector<storage::SignedVector> VectorsOf(const std::string& text);
  // A bring-your-own vector for a write, normalised, its space (that of
  // its dimension) opened (kInvalidArgument "embedding" for a zero vector).
  Result<storage::SignedVector> ExternalVector(const std::vector<float>& v);
  // Brings the indexes of the spaces of `written` (vectors just committed
  // with their entry) up to date. A failure is logged: the next search
  // catches the index up from the change log.
  void SyncWritten(std::span<const storage::SignedVector> written);

  // Embeds `texts` and stores them under `labels` in the embedder's space.
  // Failure is not fatal (spec 20): the entries stay without a vector
  // (pending, logged) and the returned count says how many were stored.
  int64_t EmbedAndStore(std::span<const storage::Label> labels, std::span<const std::string> texts,
                        bool sync = true);
  // A bring-your-own vector, normalised, in the space of its dimension
  // (kInvalidArgument "embedding" for a zero vector), for an entry stored
  // before.
  Status StoreExternal(storage::Label label, const std::vector<float>& v);
  // Import's vectors: (index into `labels`, vector), grouped into one space
  // per dimension, stored in batches and indexed once.
  Status StoreExternal(std::span<const storage::Label> labels,
                       std::span<std::pair<size_t, std::vector<float>>> vectors);
  // Embeds every entry lacking a vector in the embedder's space (and in
  // OtherSignature()'s, when there is one).
  Result<ReindexReport> FillMissing(const ProgressFn& progress);

  // Admin::SaveVectorIndexes: the first failure, after trying every space.
  Status SaveAll();
  // Rebuilds every open space from storage and rewrites its index file
  // (VectorSpace::Purge), so erased vectors leave memory and disk.
  Status PurgeAll();
  // Forgets every open space and deletes the index files: the next use
  // rebuilds from storage (reindex).
  void DropAll();
  // The spaces open now, by signature.
  std::vector<std::shared_ptr<VectorSpace>> OpenSpaces();

 private:
  VectorsService(storage::EntryStore& entries, std::unique_ptr<embed::Embedder> embedder,
                 embed::Embedder* uncached, VectorsOptions options, std::shared_ptr<Logger> logger);
  // Open's check for a workspace indexed with another embedder.
  void ReindexIfSpaceChanged();
  // The vector of each of `texts` (none for a text with nothing to embed):
  // the embedder's, or OtherSignature()'s for a text without an English
  // word, their spaces opened; the embedder's error when it cannot answer.
  Result<std::vector<std::optional<storage::SignedVector>>> EmbedTexts(
      std::span<const std::string> texts);

  storage::EntryStore& entries_;
  const std::unique_ptr<embed::Embedder> embedder_;  // behind the embedding cache
  embed::Embedder* const uncached_;                  // the same embedder, owned by embedder_
  std::unique_ptr<const embed::SoftMatcher> soft_;   // with the words embedder only
  std::shared_ptr<const embed::WordVectors> words_;  // its file
  // The hash embedder for texts without an English word (words embedder only).
  std::unique_ptr<embed::Embedder> other_;
  const VectorsOptions options_;
  const std::shared_ptr<Logger> logger_;
  std::mutex spaces_mu_;
  std::map<std::string, std::shared_ptr<VectorSpace>> spaces_;  // by signature
};

}  // namespace mnemo
