#include "storage/rules/document_rules.h"

#include "base/sha256.h"
#include "base/uuid.h"

namespace mnemo::storage::internal {

Status ValidateDocument(const DocumentRow& row) {
  if (row.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  return Status::Ok();
}

DocumentRow NewDocumentRow(const DocumentRow& row) {
  DocumentRow out = row;
  if (out.id.empty()) out.id = mnemo::internal::NewUuidV4();
  out.content_hash = ContentHash(out.content);
  if (out.updated_at == 0) out.updated_at = out.created_at;
  return out;
}

std::string ContentHash(std::string_view content) { return mnemo::internal::Sha256Hex(content); }

std::string TagsText(std::span<const std::string> tags) {
  std::string text;
  for (const std::string& t : tags) {
    if (!text.empty()) text += '\n';
    text += t;
  }
  return text;
}

Status CheckSegmentVector(std::string_view signature, std::span<const float> vector,
                          std::optional<size_t> stored_dim) {
  if (signature.empty()) return InvalidArgument("signature must not be empty", "signature");
  if (vector.empty()) return InvalidArgument("a recap vector must not be empty", "vector");
  if (stored_dim && *stored_dim != vector.size()) {
    return InvalidArgument("recap vectors of " + std::string(signature) + " have " +
                               std::to_string(*stored_dim) + " dimensions, not " +
                               std::to_string(vector.size()),
                           "vector");
  }
  return Status::Ok();
}

}  // namespace mnemo::storage::internal
