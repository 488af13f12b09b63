// The bytes a connection has read and not framed yet (issue 45): a read goes
// straight into the free tail of its storage (Tail, Commit), and the framer
// takes from the front (View, Consume) without moving what is left, so every
// byte is written once by the read. Unread bytes move only when the next read
// needs room: to the front of the storage, or into a larger one.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>

namespace mnemo::transport {

class ReadBuffer {
 public:
  // The unread bytes.
  std::string_view View() const { return {data_.get() + begin_, end_ - begin_}; }
  bool empty() const { return begin_ == end_; }
  size_t capacity() const { return capacity_; }

  // Drops the first `n` unread bytes (at most all of them); the rest stay
  // where they are.
  void Consume(size_t n);
  // The free bytes after the unread ones, at least `reserve` of them, where
  // the next read goes. Room is made by moving the unread bytes to the front
  // when that frees enough, else into new storage of twice the old size (at
  // least the unread bytes plus `reserve`). Bounded by its caller: the
  // unread bytes are a partial head (the parser refuses one past its limit)
  // or what arrived behind a request.
  std::span<char> Tail(size_t reserve);
  // `n` bytes were written at the front of the last Tail().
  void Commit(size_t n);
  // Drops the unread bytes and frees the storage.
  void Release();

 private:
  std::unique_ptr<char[]> data_;
  size_t capacity_ = 0;
  size_t begin_ = 0;  // the first unread byte
  size_t end_ = 0;    // past the last unread byte
};

}  // namespace mnemo::transport
