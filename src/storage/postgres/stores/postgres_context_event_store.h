// The PostgreSQL context event store: tables context_events (with its
// keyword index, pg_text.h) and context_sessions (each session's next seq).
#pragma once

#include <memory>

#include "storage/context_event_store.h"
#include "storage/postgres/postgres_database.h"

namespace mnemo::storage::internal {

class PostgresContextEventStore final : public ContextEventStore, private PostgresStore {
 public:
  explicit PostgresContextEventStore(std::shared_ptr<PostgresDatabase> db);

  Result<ContextEventRow> AppendContextEvent(const ContextEventRow& row) override;
  Result<std::vector<ContextEventRow>> ContextEvents(std::string_view owner,
                                                     const SessionId& session_id) override;
  Result<std::vector<ContextEventHit>> SearchContextEvents(const ContextEventQuery& query) override;
  Result<int64_t> DeleteContextEventsUpTo(std::string_view owner, const SessionId& session_id,
                                          int64_t up_to_seq) override;
  Result<int64_t> DeleteContextEventsByIds(std::span<const int64_t> ids) override;
  Result<std::vector<ContextEventRow>> ContextEventsAfter(int64_t after_id, int limit) override;
};

}  // namespace mnemo::storage::internal
