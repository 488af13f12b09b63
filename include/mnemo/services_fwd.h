// The one declaration of what the public services that are not yet services
// themselves (mnemo/memory.h) is built over: the engine's
// internal services, defined in src/core/services.h.
// Hidden: no part of libmnemo's interface, and no caller can make one, so
// only Engine::Open makes the public services.
#pragma once

namespace mnemo::internal {
struct __attribute__((visibility("hidden"))) Services;
}  // namespace mnemo::internal
