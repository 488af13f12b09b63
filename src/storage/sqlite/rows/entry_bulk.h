// The per-row triggers of new entry rows, suspended for a large batch
// (issue 22). Every new `entries` row fires three triggers (its
// `entries_search` row and owner counters, the two tool generations), and a
// statement with triggers runs in a statement journal; of a keyword-only
// import of 100k entries that was a fifth of the writer's time. A batch of
// at least kBulkInsertFrom writes drops those triggers inside its own write
// transaction, inserts its rows, then does set-wise what the triggers would
// have done row by row and creates the triggers again from their stored SQL.
// Other connections never see the schema without them (the transaction
// commits with them back, or rolls back to them); triggers of updates and
// deletes keep running. The schema's triggers (migrations.cc, v3, v9, v13)
// stay the one definition: a test compares what both ways leave behind.
#pragma once

#include <string>
#include <vector>

#include "mnemo/status.h"
#include "storage/entry_store.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

// Batches of fewer writes keep the triggers: the schema changes cost more
// than they save.
inline constexpr size_t kBulkInsertFrom = 2048;

class SuspendedInsertTriggers {
 public:
  // In the writer's open transaction, before the batch's first write: drops
  // the insert triggers and notes the first row id a new row can take.
  static Result<SuspendedInsertTriggers> Begin(Connection& db);

  // After the batch's last write, in the same transaction: the search rows,
  // owner counters and generations of every row inserted since Begin, then
  // the triggers again. On error the caller rolls the transaction back.
  Status Finish(Connection& db);

 private:
  SuspendedInsertTriggers(std::vector<std::string> create, Label first_new)
      : create_(std::move(create)), first_new_(first_new) {}

  std::vector<std::string> create_;  // the triggers' CREATE statements
  Label first_new_ = 1;              // rows at or above it are the batch's
};

}  // namespace mnemo::storage::internal
