// Backend-independent rules of the document and recap-vector parts of the
// storage contract (document_store.h), shared by every backend so that they cannot
// drift apart.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "mnemo/status.h"
#include "storage/documents.h"

namespace mnemo::storage::internal {

// A document needs an owner (kInvalidArgument otherwise).
Status ValidateDocument(const DocumentRow& row);

// `row` as PutDocument stores it when new: its id (a new UUID when empty),
// content_hash computed from the content, updated_at = created_at when 0.
DocumentRow NewDocumentRow(const DocumentRow& row);

// Lower-case hex SHA-256 of `content`: the content_hash of documents.
std::string ContentHash(std::string_view content);

// The text the keyword index reads for a document's tags: one per line, so
// no two tags run together.
std::string TagsText(std::span<const std::string> tags);

// A recap vector needs a signature and at least one float, and the
// dimension of the signature's stored vectors when it has any
// (`stored_dim`). kInvalidArgument naming what was expected and got.
Status CheckSegmentVector(std::string_view signature, std::span<const float> vector,
                          std::optional<size_t> stored_dim);

}  // namespace mnemo::storage::internal
