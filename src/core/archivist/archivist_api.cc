// mnemo::Archivist (mnemo/archivist.h): the enabled check, then the
// Archivist service, which validates the request.
#include "core/services.h"
#include "mnemo/archivist.h"

namespace mnemo {

Result<TurnResult> Archivist::TurnComplete(const Principal& who, const Turn& turn) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.TurnComplete(who, turn);
}
Result<std::vector<EpisodicHit>> Archivist::EpisodicSearch(const Principal& who,
                                                           const EpisodicQuery& q) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.EpisodicSearch(who, q);
}
Result<std::vector<EpisodicTurn>> Archivist::SessionTurns(const Principal& who,
                                                          std::string_view session_id) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.SessionTurns(who, session_id);
}
Result<SessionEndResult> Archivist::SessionEnd(const Principal& who, std::string_view session_id,
                                               bool sync) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.SessionEnd(who, session_id, sync);
}
Result<std::vector<SegmentInfo>> Archivist::Segments(const Principal& who,
                                                     std::string_view session_id) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.Segments(who, session_id);
}
Result<std::vector<EventInfo>> Archivist::Events(const Principal& who, const EventsQuery& q) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.Events(who, q);
}
Result<EventInfo> Archivist::EventCorrect(const Principal& who, const EventCorrection& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.EventCorrect(who, req);
}
Status Archivist::EventDelete(const Principal& who, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.EventDelete(who, id);
}
Result<MemoryMdReport> Archivist::UpdateMemoryMd(const Principal& who, const MemoryMdRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.UpdateMemoryMd(who, req);
}
Result<int64_t> Archivist::CloseIdleSegments(bool sync) {
  return services_.archivist.CloseIdleSegments(sync);
}
ArchiveQueueStats Archivist::ArchiveQueue() const { return services_.archivist.ArchiveQueue(); }

}  // namespace mnemo
