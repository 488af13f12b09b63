#include "core/public_id.h"

#include <string>

#include "base/sha256.h"

namespace mnemo::internal {

int64_t PublicRowId(std::string_view kind, std::string_view owner, std::string_view session_id,
                    int64_t seq) {
  // Each text field length-prefixed, so distinct tuples give distinct
  // material whatever bytes the fields hold.
  std::string material;
  for (const std::string_view field : {kind, owner, session_id}) {
    material.append(std::to_string(field.size())).push_back(':');
    material.append(field);
  }
  material.append(std::to_string(seq));
  const std::string hex = Sha256Hex(material);
  // 14 hex digits are 56 bits; keep kPublicIdBits of them.
  const uint64_t bits =
      std::stoull(hex.substr(0, 14), nullptr, 16) & ((uint64_t{1} << kPublicIdBits) - 1);
  return bits == 0 ? 1 : static_cast<int64_t>(bits);
}

int64_t PublicTurnId(std::string_view owner, std::string_view session_id, int64_t seq) {
  return PublicRowId("turn", owner, session_id, seq);
}

}  // namespace mnemo::internal
