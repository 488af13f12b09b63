// The background archive writer: every queued row is written once, the queue
// stays bounded when turns arrive faster than files are written, and closing
// drains it.
#include "archivist/archive/archive_writer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "test_util.h"

namespace mnemo::archivist {
namespace {

ArchiveRow Row(int64_t seq) {
  ArchiveRow row;
  row.session_id = "writer";
  row.seq = seq;
  row.timestamp_ms = 1700000000000;
  row.role = "user";
  row.content = "row " + std::to_string(seq);
  return row;
}

size_t FilesIn(const std::string& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

TEST(ArchiveWriter, ManyThreadsThroughASmallQueueLoseNothingAndStayWithinTheBound) {
  testing::TempDir dir;
  constexpr size_t kBacklog = 8;
  constexpr int kThreads = 24;
  constexpr int kEach = 40;
  ArchiveWriter writer(dir.path(), kBacklog);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) writer.Enqueue({Row(t * kEach + i)});
    });
  }
  for (std::thread& th : threads) th.join();
  writer.Flush();
  EXPECT_EQ(FilesIn(dir.path() + "/writer"), static_cast<size_t>(kThreads * kEach));
  EXPECT_EQ(writer.problems(), 0);
  EXPECT_LE(writer.peak_backlog(), kBacklog);
  EXPECT_GE(writer.peak_backlog(), 1u);
}

TEST(ArchiveWriter, RowsQueuedByOneCallAreWrittenAsOneBatchWithOneFolderSync) {
  testing::TempDir dir;
  ArchiveWriter writer(dir.path());
  std::vector<ArchiveRow> rows;
  for (int64_t seq = 0; seq < 10; ++seq) rows.push_back(Row(seq));
  writer.Enqueue(std::move(rows));
  writer.Flush();
  EXPECT_EQ(FilesIn(dir.path() + "/writer"), 10u);
  EXPECT_EQ(writer.counts().written, 10);
  EXPECT_EQ(writer.counts().folder_syncs, 1);
}

TEST(ArchiveWriter, ABatchNeverHoldsMoreThanTheBound) {
  testing::TempDir dir;
  ArchiveWriter writer(dir.path(), 3);
  std::vector<ArchiveRow> rows;
  for (int64_t seq = 0; seq < 10; ++seq) rows.push_back(Row(seq));
  writer.Enqueue(std::move(rows));
  writer.Flush();
  EXPECT_EQ(FilesIn(dir.path() + "/writer"), 10u);
  EXPECT_LE(writer.peak_backlog(), 3u);
  // At most three rows per batch: at least four batches, each one sync.
  EXPECT_GE(writer.counts().folder_syncs, 4);
}

TEST(ArchiveWriter, ClosingWritesWhatIsStillQueued) {
  testing::TempDir dir;
  {
    ArchiveWriter writer(dir.path(), 4);
    for (int64_t seq = 0; seq < 50; ++seq) writer.Enqueue({Row(seq)});
  }
  EXPECT_EQ(FilesIn(dir.path() + "/writer"), 50u);
}

TEST(ArchiveWriter, AnExistingFileIsKeptAndCountedAsAProblem) {
  testing::TempDir dir;
  ArchiveWriter writer(dir.path());
  writer.Enqueue({Row(1)});
  writer.Enqueue({Row(1)});
  writer.Flush();
  EXPECT_EQ(writer.problems(), 1);
  EXPECT_EQ(FilesIn(dir.path() + "/writer"), 1u);
}

}  // namespace
}  // namespace mnemo::archivist
