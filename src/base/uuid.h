#pragma once

#include <string>

#include "mnemo/status.h"

namespace mnemo::internal {

// A random (version 4) UUID in canonical lower-case form. Thread-safe.
// Not for secrets: its generator is seeded from std::random_device but is
// no cryptographic generator.
std::string NewUuidV4();

// A version 4 UUID whose 122 random bits come from OpenSSL's RAND_bytes (a
// cryptographic generator): for ids that grant access, such as MCP session
// ids. kUnavailable when the generator cannot supply bytes.
Result<std::string> NewSecureUuidV4();

}  // namespace mnemo::internal
