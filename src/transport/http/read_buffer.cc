#include "transport/http/read_buffer.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace mnemo::transport {

void ReadBuffer::Consume(size_t n) {
  begin_ += std::min(n, end_ - begin_);
  if (begin_ == end_) begin_ = end_ = 0;  // empty: the next read starts at the front
}

std::span<char> ReadBuffer::Tail(size_t reserve) {
  const size_t unread = end_ - begin_;
  if (capacity_ - end_ < reserve) {
    if (capacity_ - unread >= reserve) {
      std::memmove(data_.get(), data_.get() + begin_, unread);
    } else {
      const size_t grown = std::max(2 * capacity_, unread + reserve);
      // Not zeroed: every byte is written by a read before it is read.
      auto larger = std::make_unique_for_overwrite<char[]>(grown);
      if (unread > 0) std::memcpy(larger.get(), data_.get() + begin_, unread);
      data_ = std::move(larger);
      capacity_ = grown;
    }
    begin_ = 0;
    end_ = unread;
  }
  return {data_.get() + end_, capacity_ - end_};
}

void ReadBuffer::Commit(size_t n) { end_ += std::min(n, capacity_ - end_); }

void ReadBuffer::Release() {
  data_.reset();
  capacity_ = begin_ = end_ = 0;
}

}  // namespace mnemo::transport
