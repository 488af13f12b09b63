// Context events (spec 50; rows in storage/context_events.h): what a
// session's context window holds, numbered per session, searchable.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/context_events.h"

namespace mnemo::storage {

class ContextEventStore {
 public:
  virtual ~ContextEventStore() = default;

  // Appends `row` to its (owner, session) with the next sequence number
  // (one more than any the session ever had, deleted events included),
  // assigned in the writing transaction: concurrent appends (threads or
  // processes) never share or skip a number. Returns the row with id and seq
  // set. kInvalidArgument for a blank owner or session_id.
  virtual Result<ContextEventRow> AppendContextEvent(const ContextEventRow& row) = 0;
  // The events of (owner, session), by seq.
  virtual Result<std::vector<ContextEventRow>> ContextEvents(std::string_view owner,
                                                             const SessionId& session_id) = 0;
  // Best `limit` events whose search_text matches any term: score
  // descending, then seq descending, then id. The owner and session filters
  // apply before the limit.
  virtual Result<std::vector<ContextEventHit>> SearchContextEvents(
      const ContextEventQuery& query) = 0;
  // Deletes, in one transaction, the events of (owner, session) with
  // seq <= up_to_seq; returns how many.
  virtual Result<int64_t> DeleteContextEventsUpTo(std::string_view owner,
                                                  const SessionId& session_id,
                                                  int64_t up_to_seq) = 0;
  // Deletes, in one transaction, the events with these ids (missing ones
  // are skipped); returns how many.
  virtual Result<int64_t> DeleteContextEventsByIds(std::span<const int64_t> ids) = 0;

  // Up to `limit` context events of every owner with id > after_id, by id.
  virtual Result<std::vector<ContextEventRow>> ContextEventsAfter(int64_t after_id, int limit) = 0;
};

}  // namespace mnemo::storage
