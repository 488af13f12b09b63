// Injectable time source. Tests pass a manual clock; production uses the
// system clock. Implementations must be thread-safe.
#pragma once

#include <memory>

#include "mnemo/types.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimeMs NowMs() const = 0;
};

// The process-wide system clock (UTC wall time).
std::shared_ptr<Clock> SystemClock();

}  // namespace mnemo

#pragma GCC visibility pop
