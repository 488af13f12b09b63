#include "storage/postgres/pg_read_router.h"

#include <algorithm>
#include <thread>

namespace mnemo::storage::internal::pg {
namespace {

// While the primary is away, a standby that received the last commits may
// still be replaying them: asked this many times, this far apart.
constexpr int kWithoutPrimaryPolls = 5;
constexpr std::chrono::milliseconds kWithoutPrimaryPause{20};

int64_t NowUs() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void Raise(std::atomic<uint64_t>& value, uint64_t to) {
  uint64_t seen = value.load();
  while (to > seen && !value.compare_exchange_weak(seen, to)) {
  }
}

}  // namespace

ReadRouter::ReadRouter(Pool* primary, const std::vector<std::string>& standby_urls,
                       const PoolOptions& standby_options)
    : primary_(primary) {
  for (const std::string& url : standby_urls) {
    PoolOptions options = standby_options;
    options.url = url;
    options.connect_at_open = false;
    auto pool = Pool::Open(options);
    if (!pool.ok()) continue;  // an empty url: the config refuses it first
    auto standby = std::make_unique<Standby>();
    standby->pool = std::move(pool).value();
    standbys_.push_back(std::move(standby));
  }
}

Result<ReadRouter::Position> ReadRouter::Ask(Standby& standby, PgConn& conn) {
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn.Exec("SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN "
                                   "pg_last_wal_replay_lsn() ELSE pg_current_wal_lsn() END::text, "
                                   "pg_last_wal_receive_lsn()::text",
                                   "read the standby's replay position"));
  Position p{.replayed = ParseLsn(rows.Text(0, 1)),
             .received = ParseLsn(rows.Text(0, 2)),
             .primary = !rows.Bool(0, 0)};
  Raise(standby.replayed, p.replayed);
  standby.asked_at_us = NowUs();
  return p;
}

std::optional<Pool::Lease> ReadRouter::FromStandby(uint64_t needed) {
  Standby& s = *standbys_[next_.fetch_add(1) % standbys_.size()];
  if (s.pool->backing_off()) return std::nullopt;
  const bool known = s.replayed.load() >= needed;
  if (!known && NowUs() - s.asked_at_us.load() < kRecheck.count() * 1000) return std::nullopt;
  auto lease = s.pool->Acquire();
  if (!lease.ok()) return std::nullopt;
  if (known) return std::move(lease).value();
  auto position = Ask(s, **lease);
  if (!position.ok() || position->replayed < needed) return std::nullopt;
  return std::move(lease).value();
}

Result<Pool::Lease> ReadRouter::WithoutPrimary(uint64_t needed, const Status& why) {
  for (int poll = 0; poll < kWithoutPrimaryPolls; ++poll) {
    if (poll > 0) std::this_thread::sleep_for(kWithoutPrimaryPause);
    std::vector<std::pair<Pool::Lease, Position>> reachable;
    uint64_t received = 0;
    for (const auto& s : standbys_) {
      auto lease = s->pool->Acquire();
      if (!lease.ok()) continue;
      auto position = Ask(*s, **lease);
      if (!position.ok()) continue;
      // A promoted standby is the new primary: it has every commit it
      // received, and it is as current as any server can be.
      if (position->primary) return std::move(lease).value();
      received = std::max({received, position->received, position->replayed});
      reachable.emplace_back(std::move(lease).value(), *position);
    }
    // The last write's position may count WAL that never left the old
    // primary (it is read after the commit): then the most any standby
    // received is what can be had.
    const uint64_t enough = std::min(needed, received);
    for (auto& [lease, position] : reachable) {
      if (position.replayed >= enough) return std::move(lease);
    }
    if (reachable.empty()) break;
  }
  return Unavailable(why.message() +
                     "; and no standby of postgres.read_urls could serve the read (none reachable "
                     "or none has replayed this node's last write)");
}

Result<Pool::Lease> ReadRouter::Read() {
  if (standbys_.empty()) return primary_->Acquire();
  const uint64_t needed = primary_->last_commit_lsn();
  if (auto lease = FromStandby(needed)) {
    // The standby died under the read: the primary has everything.
    (*lease)->set_reroute([this](PgConn& self) -> Status {
      MNEMO_ASSIGN_OR_RETURN(Pool::Lease other, primary_->Acquire());
      self.SwapConnection(*other);
      return Status::Ok();
    });
    return std::move(*lease);
  }
  auto lease = primary_->Acquire();
  if (!lease.ok()) return WithoutPrimary(needed, lease.status());
  // The primary died under the read (its backend noticed the postmaster's
  // death only then, say): a standby as while the primary is away.
  (*lease)->set_reroute([this, needed](PgConn& self) -> Status {
    MNEMO_ASSIGN_OR_RETURN(
        Pool::Lease other,
        WithoutPrimary(needed, Unavailable("the primary's connection was lost")));
    self.SwapConnection(*other);
    return Status::Ok();
  });
  return lease;
}

}  // namespace mnemo::storage::internal::pg
