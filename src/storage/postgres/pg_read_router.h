// Where a read of the PostgreSQL backend goes when `[postgres] read_urls`
// lists hot standbys of the server (docs/scaling.md, "Read replicas").
//
// Read-your-writes: the primary pool records the WAL position after each of
// this process's commits (Pool::last_commit_lsn). A read goes to a standby
// whose replay position has reached it, taken round-robin; a standby that
// is behind is asked again at most every kRecheck, and meanwhile the read
// goes to the primary. So whatever this process wrote, or read inside a
// write, is visible to its next read. Another process's writes become
// visible on a standby after replication delay (milliseconds on a LAN).
//
// While the primary cannot be reached (a failover), a read goes to a
// standby that has replayed this process's last write, or, when that
// position never reached any standby (it counts WAL that was not shipped),
// to one that has replayed everything any reachable standby received: with
// a synchronous standby among them, that holds every acknowledged commit.
// Only when no standby qualifies is the read refused (kUnavailable).
//
// A read whose connection is lost under a statement outside a transaction
// (the server died meanwhile) runs again once on another server: a standby
// chosen as above for a read of the primary, the primary for a standby's
// (PgConn::set_reroute).
//
// Thread-safety: Read may be called from many threads.
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

class ReadRouter {
 public:
  // `primary` takes the writes (track_commit_lsn on when `standby_urls` is
  // not empty) and outlives the router. Standby pools connect on first use:
  // a standby that is down is skipped, never fatal.
  ReadRouter(Pool* primary, const std::vector<std::string>& standby_urls,
             const PoolOptions& standby_options);

  // A connection for one read (statements only, no transaction).
  Result<Pool::Lease> Read();

  // How often a standby that was behind is asked again.
  static constexpr std::chrono::milliseconds kRecheck{2};

 private:
  struct Standby {
    std::unique_ptr<Pool> pool;
    // Its replay position when last asked (it only grows on one server).
    std::atomic<uint64_t> replayed{0};
    std::atomic<int64_t> asked_at_us{0};
  };
  struct Position {
    uint64_t replayed = 0;
    uint64_t received = 0;
    bool primary = false;  // a promoted standby: it has all it ever received
  };

  // The round-robin standby when it has replayed `needed` (asking it when
  // its known position is behind and not asked within kRecheck).
  std::optional<Pool::Lease> FromStandby(uint64_t needed);
  // The primary is unreachable (`why`): the best standby, as above.
  Result<Pool::Lease> WithoutPrimary(uint64_t needed, const Status& why);
  Result<Position> Ask(Standby& standby, PgConn& conn);

  Pool* primary_;
  std::vector<std::unique_ptr<Standby>> standbys_;
  std::atomic<size_t> next_{0};
};

}  // namespace mnemo::storage::internal::pg
