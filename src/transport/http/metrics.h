// Daemon metrics in Prometheus text format (spec 60 /metrics): JSON-RPC calls
// by method and outcome, a latency histogram per method, HTTP responses by
// status, rejections, entries, queue depth and the archive queue. Thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "mnemo/types.h"

namespace mnemo::transport {

class Metrics {
 public:
  // `method` "" is reported as "unknown" (names outside the table are not
  // labels, so a client cannot grow the label set).
  void RecordCall(std::string_view method, std::string_view outcome, double seconds);
  void RecordHttp(int status);

  // `entries` < 0 is left out (the engine could not count). `archive`: the
  // markdown archive's queue (Archivist::ArchiveQueue).
  std::string Render(int64_t entries, int64_t queue_depth,
                     const ArchiveQueueStats& archive = {}) const;

  static constexpr std::array<double, 10> kBuckets = {0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,  0.1,    0.25,  1,    5};

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> counts{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, uint64_t> calls_;
  std::map<std::string, Histogram> latency_;
  std::map<int, uint64_t> http_;
};

}  // namespace mnemo::transport
