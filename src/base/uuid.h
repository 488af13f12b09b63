#pragma once

#include <string>

namespace mnemo::internal {

// A random (version 4) UUID in canonical lower-case form. Thread-safe.
std::string NewUuidV4();

}  // namespace mnemo::internal
