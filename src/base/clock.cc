#include "mnemo/clock.h"

#include <chrono>

namespace mnemo {
namespace {

class SystemClockImpl final : public Clock {
 public:
  TimeMs NowMs() const override {
    using std::chrono::duration_cast;
    using std::chrono::milliseconds;
    return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  }
};

}  // namespace

std::shared_ptr<Clock> SystemClock() {
  static const std::shared_ptr<Clock> kClock = std::make_shared<SystemClockImpl>();
  return kClock;
}

}  // namespace mnemo
