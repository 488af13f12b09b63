// Idle segments close (spec 40, learning.session_idle_close_secs): a session
// whose harness never calls memory.session_end still gets its last
// segment's recap, events, profile facets and document. Run at every engine
// open (CLI, stdio) and every minute in the daemon.
#include <vector>

#include "core/engine_impl.h"

namespace mnemo {
namespace {

constexpr int kBatch = 100;        // idle segments read per query
constexpr int kMaxBatches = 1000;  // per call: a bound, never reached in practice

}  // namespace

Result<int64_t> Engine::Impl::CloseIdleSegments(bool sync) {
  const int64_t idle_secs = config.learning.session_idle_close_secs;
  if (!config.memory.enabled || idle_secs <= 0) return 0;
  const TimeMs now = clock->NowMs();
  const TimeMs cutoff = now - idle_secs * 1000;
  int64_t closed = 0;
  for (int batch = 0; batch < kMaxBatches; ++batch) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> idle,
                           stores.episodic->IdleOpenSegments(cutoff, kBatch));
    for (const storage::SegmentRow& s : idle) {
      // Closed only if it is still this open segment and still idle inside
      // the write: a turn that arrived since the read keeps it open.
      auto decide = [&](const storage::SegmentView& view) -> Result<storage::SegmentChange> {
        storage::SegmentChange change;
        if (view.open && view.open->id == s.id && view.open->last_turn_at < cutoff) {
          change.close_open = true;
          change.closed_at = now;
        }
        return change;
      };
      MNEMO_ASSIGN_OR_RETURN(storage::SegmentChange applied,
                             stores.episodic->StepSegment(s.owner, s.session_id, decide));
      if (applied.close_open) {
        PostFinalize(s.id);
        ++closed;
      }
    }
    if (idle.size() < static_cast<size_t>(kBatch)) break;
  }
  if (sync) segment_worker->Flush();
  return closed;
}

}  // namespace mnemo
