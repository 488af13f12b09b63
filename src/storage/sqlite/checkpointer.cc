#include "storage/sqlite/checkpointer.h"

#include "base/background_worker.h"

namespace mnemo::storage::internal {

Checkpointer::Checkpointer(std::unique_ptr<Connection> conn, Connection& writer,
                           std::shared_ptr<Logger> logger)
    : conn_(std::move(conn)), writer_(writer.handle()), logger_(std::move(logger)) {
  thread_ = std::thread([this] {
    mnemo::internal::LowerThisThreadPriority();
    Run();
  });
  // Replaces SQLite's automatic checkpoint (the same hook slot).
  sqlite3_wal_hook(writer_, &Checkpointer::OnCommit, this);
}

Checkpointer::~Checkpointer() {
  sqlite3_wal_hook(writer_, nullptr, nullptr);
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

int Checkpointer::OnCommit(void* self, sqlite3* db, const char* schema, int pages) {
  auto* c = static_cast<Checkpointer*>(self);
  if (pages >= kInlinePages) {
    // The thread is behind: this commit bounds the log itself. PASSIVE never
    // waits; SQLITE_BUSY (another process checkpointing) is fine.
    (void)sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    return SQLITE_OK;
  }
  if (pages >= kCheckpointPages) {
    {
      std::lock_guard lock(c->mu_);
      c->pending_ = true;
    }
    c->cv_.notify_one();
  }
  return SQLITE_OK;
}

void Checkpointer::Run() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return pending_ || stop_; });
    if (stop_) return;
    pending_ = false;
    lock.unlock();
    const int rc = sqlite3_wal_checkpoint_v2(conn_->handle(), "main", SQLITE_CHECKPOINT_PASSIVE,
                                             nullptr, nullptr);
    if (rc != SQLITE_OK && rc != SQLITE_BUSY && rc != SQLITE_LOCKED) {
      // Not fatal: the next commit past the threshold tries again, and the
      // inline fallback bounds the log.
      logger_->Log(LogLevel::kWarn, SqliteStatus(rc, "checkpoint the write-ahead log").message());
    }
    lock.lock();
  }
}

}  // namespace mnemo::storage::internal
