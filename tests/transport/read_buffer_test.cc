// The connection's read buffer (transport/http/read_buffer.h): reads land in
// its storage, the framer's consumption moves nothing, and unread bytes move
// only when a read needs room.
#include "transport/http/read_buffer.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <string_view>

namespace mnemo::transport {
namespace {

// What a read does: writes `bytes` at the front of the tail and commits them.
void ReadInto(ReadBuffer& buffer, std::string_view bytes, size_t reserve = 16) {
  const std::span<char> tail = buffer.Tail(reserve);
  ASSERT_GE(tail.size(), bytes.size());
  std::memcpy(tail.data(), bytes.data(), bytes.size());
  buffer.Commit(bytes.size());
}

// Issue 45: the bytes a read writes are the bytes the framer reads, in the
// same memory (before, a read went to a stack buffer and was appended).
TEST(ReadBuffer, AReadLandsInTheStorageTheFramerReads) {
  ReadBuffer buffer;
  const std::span<char> tail = buffer.Tail(64);
  ASSERT_GE(tail.size(), 64U);
  std::memcpy(tail.data(), "GET / HTTP/1.1\r\n", 16);
  buffer.Commit(16);
  EXPECT_EQ(buffer.View(), "GET / HTTP/1.1\r\n");
  EXPECT_EQ(buffer.View().data(), tail.data());
  // The next read goes right after the unread bytes, in the same storage.
  const std::span<char> next = buffer.Tail(16);
  EXPECT_EQ(next.data(), tail.data() + 16);
  EXPECT_EQ(buffer.capacity(), 64U);
}

TEST(ReadBuffer, ConsumingMovesNothingAndAnEmptyBufferReadsAtItsFront) {
  ReadBuffer buffer;
  ReadInto(buffer, "head\r\n\r\nnext", 64);
  const char* const front = buffer.View().data();
  buffer.Consume(8);
  EXPECT_EQ(buffer.View(), "next");
  EXPECT_EQ(buffer.View().data(), front + 8);  // not moved to the front
  buffer.Consume(100);                         // more than there is: all
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.Tail(16).data(), front);  // empty: no move needed to start over
}

TEST(ReadBuffer, UnreadBytesMoveOnlyWhenAReadNeedsRoom) {
  ReadBuffer buffer;
  ReadInto(buffer, std::string(48, 'a') + "partial", 64);
  buffer.Consume(48);
  const char* const front = buffer.View().data() - 48;
  // 9 bytes free after the unread ones: enough for a reserve of 8, no move.
  EXPECT_EQ(buffer.Tail(8).data(), front + 55);
  EXPECT_EQ(buffer.View().data(), front + 48);
  // A reserve of 32 fits once the unread bytes go to the front: moved there.
  const std::span<char> tail = buffer.Tail(32);
  EXPECT_EQ(buffer.View(), "partial");
  EXPECT_EQ(buffer.View().data(), front);
  EXPECT_EQ(tail.data(), front + 7);
  EXPECT_EQ(buffer.capacity(), 64U);
}

TEST(ReadBuffer, GrowsByDoublingWhenTheUnreadBytesAndTheReserveDoNotFit) {
  ReadBuffer buffer;
  ReadInto(buffer, std::string(60, 'h'), 64);
  EXPECT_GE(buffer.Tail(16).size(), 16U);
  EXPECT_EQ(buffer.capacity(), 128U);
  EXPECT_EQ(buffer.View(), std::string(60, 'h'));
  ReadInto(buffer, std::string(60, 'i'), 16);
  EXPECT_EQ(buffer.capacity(), 128U);
  // Unread plus reserve past twice the old size: exactly what is asked.
  ReadInto(buffer, "j", 400);
  EXPECT_EQ(buffer.capacity(), 520U);
  EXPECT_EQ(buffer.View(), std::string(60, 'h') + std::string(60, 'i') + "j");
}

TEST(ReadBuffer, ReleaseFreesTheStorage) {
  ReadBuffer buffer;
  ReadInto(buffer, "x", 64);
  buffer.Release();
  EXPECT_TRUE(buffer.empty());
  EXPECT_EQ(buffer.capacity(), 0U);
  ReadInto(buffer, "y", 8);
  EXPECT_EQ(buffer.View(), "y");
}

}  // namespace
}  // namespace mnemo::transport
