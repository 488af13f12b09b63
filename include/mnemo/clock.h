// Injectable time source. Tests pass a manual clock; production uses the
// system clock. Implementations must be thread-safe.
#pragma once

#include <memory>

#include "mnemo/types.h"

namespace mnemo {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimeMs NowMs() const = 0;
};

// The process-wide system clock (UTC wall time).
std::shared_ptr<Clock> SystemClock();

}  // namespace mnemo
