#include "transport/http/metrics.h"

#include <sstream>

namespace mnemo::transport {

void Metrics::RecordCall(std::string_view method, std::string_view outcome, double seconds) {
  std::string m = method.empty() ? "unknown" : std::string(method);
  std::lock_guard lock(mu_);
  ++calls_[{m, std::string(outcome)}];
  Histogram& h = latency_[m];
  for (size_t i = 0; i < kBuckets.size(); ++i) {
    if (seconds <= kBuckets[i]) ++h.counts[i];
  }
  ++h.count;
  h.sum += seconds;
}

void Metrics::RecordHttp(int status) {
  std::lock_guard lock(mu_);
  ++http_[status];
}

std::string Metrics::Render(int64_t entries, int64_t queue_depth,
                            const ArchiveQueueStats& archive) const {
  std::ostringstream out;
  std::lock_guard lock(mu_);
  out << "# HELP mnemo_rpc_requests_total JSON-RPC calls by method and outcome.\n"
      << "# TYPE mnemo_rpc_requests_total counter\n";
  for (const auto& [key, n] : calls_) {
    out << "mnemo_rpc_requests_total{method=\"" << key.first << "\",outcome=\"" << key.second
        << "\"} " << n << "\n";
  }
  out << "# HELP mnemo_rpc_request_duration_seconds JSON-RPC call latency.\n"
      << "# TYPE mnemo_rpc_request_duration_seconds histogram\n";
  for (const auto& [method, h] : latency_) {
    const std::string label = "method=\"" + method + "\"";
    for (size_t i = 0; i < kBuckets.size(); ++i) {
      out << "mnemo_rpc_request_duration_seconds_bucket{" << label << ",le=\"" << kBuckets[i]
          << "\"} " << h.counts[i] << "\n";
    }
    out << "mnemo_rpc_request_duration_seconds_bucket{" << label << ",le=\"+Inf\"} " << h.count
        << "\n"
        << "mnemo_rpc_request_duration_seconds_sum{" << label << "} " << h.sum << "\n"
        << "mnemo_rpc_request_duration_seconds_count{" << label << "} " << h.count << "\n";
  }
  out << "# HELP mnemo_http_responses_total HTTP responses by status code.\n"
      << "# TYPE mnemo_http_responses_total counter\n";
  for (const auto& [status, n] : http_) {
    out << "mnemo_http_responses_total{status=\"" << status << "\"} " << n << "\n";
  }
  if (entries >= 0) {
    out << "# HELP mnemo_entries Memory entries in the store.\n"
        << "# TYPE mnemo_entries gauge\n"
        << "mnemo_entries " << entries << "\n";
  }
  out << "# HELP mnemo_queue_depth Connections waiting for a worker.\n"
      << "# TYPE mnemo_queue_depth gauge\n"
      << "mnemo_queue_depth " << queue_depth << "\n";
  out << "# HELP mnemo_archive_queue_rows Archive rows waiting to be written.\n"
      << "# TYPE mnemo_archive_queue_rows gauge\n"
      << "mnemo_archive_queue_rows " << archive.depth << "\n"
      << "# HELP mnemo_archive_queue_peak_rows The most archive rows that waited at once.\n"
      << "# TYPE mnemo_archive_queue_peak_rows gauge\n"
      << "mnemo_archive_queue_peak_rows " << archive.peak << "\n"
      << "# HELP mnemo_archive_queue_bound_rows learning.archive_queue_rows.\n"
      << "# TYPE mnemo_archive_queue_bound_rows gauge\n"
      << "mnemo_archive_queue_bound_rows " << archive.bound << "\n";
  return out.str();
}

}  // namespace mnemo::transport
