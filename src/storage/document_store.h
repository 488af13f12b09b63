// Documents (spec 50; rows in storage/documents.h): content-addressed per
// owner, with derived summary, tags and entities and a keyword index. Its
// conformance suite: tests/storage/document_conformance_test.cc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/documents.h"

namespace mnemo::storage {

class DocumentStore {
 public:
  virtual ~DocumentStore() = default;

  // Stores `row` unless its owner already has a document with the same
  // content: then nothing is written and that document is returned with
  // created = false. Atomic (threads and processes): of many puts of one
  // content, one creates it. The store computes content_hash; an empty id
  // gets a new UUID; updated_at 0 becomes created_at. kInvalidArgument for a
  // blank owner; kConflict when the id is another document's.
  virtual Result<DocumentPut> PutDocument(const DocumentRow& row) = 0;
  // The document `id`, if any. With `count_access`, its access_count is
  // incremented atomically and the incremented value returned.
  virtual Result<std::optional<DocumentRow>> GetDocument(std::string_view id,
                                                         bool count_access) = 0;
  // Best `limit` documents whose search_text, summary or tags match any
  // term: score descending, then created_at descending, then id. The owner
  // filter applies before the limit.
  virtual Result<std::vector<DocumentHit>> SearchDocuments(const DocumentQuery& query) = 0;
  // Newest first (created_at descending, then id), optionally only `owner`'s
  // and only those whose source starts with `source_prefix` (bytes).
  // kInvalidArgument for a negative offset.
  virtual Result<std::vector<DocumentRow>> ListDocuments(std::optional<std::string> owner,
                                                         std::optional<std::string> source_prefix,
                                                         int limit, int64_t offset) = 0;
  // Deletes the document and its index row; returns whether it existed.
  virtual Result<bool> DeleteDocument(std::string_view id) = 0;
  // How many documents (of `owner`, or of every owner).
  virtual Result<int64_t> CountDocuments(std::optional<std::string> owner) = 0;
  // For each index token of `terms` (text::Tokenize output, e.g. a
  // document's own tokens), in how many documents of any owner it occurs
  // (search_text, summary or tags): the document frequencies of TF-IDF tags.
  virtual Result<std::vector<int64_t>> DocumentFrequencies(std::span<const std::string> terms) = 0;
  // Replaces the derived fields of document `id` (content never changes) and
  // its index row; updated_at becomes `updated_at`. kNotFound when missing.
  virtual Status UpdateDocumentDerived(std::string_view id, std::string_view search_text,
                                       std::string_view summary, std::span<const std::string> tags,
                                       std::span<const std::string> entities,
                                       TimeMs updated_at) = 0;
};

}  // namespace mnemo::storage
