// SHA-256 (OpenSSL) and a constant-time comparison.
#pragma once

#include <string>
#include <string_view>

namespace mnemo::internal {

// Lower-case hex digest of `data`.
std::string Sha256Hex(std::string_view data);

// Compares in time that depends only on the lengths, not on where the
// strings differ (bearer-token checks).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

}  // namespace mnemo::internal
