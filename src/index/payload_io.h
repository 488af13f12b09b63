// Buffered, checksummed byte streams over a file descriptor: what the index
// classes write their payload to and read it from (index_file.h owns the
// files and the header).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "index/checksum.h"
#include "mnemo/status.h"

namespace mnemo::index {

// The error of a malformed payload: kCorruption with `detail`;
// index_file.cc prefixes "index file <path> is corrupt: ". I/O failures
// are kInternal ("cannot read the index file: …").
inline Status Corrupt(std::string detail) { return Corruption(std::move(detail)); }

// Writes through a 1 MiB buffer and feeds every byte to `hash`. The first
// error sticks: later writes do nothing and Finish returns it.
class PayloadWriter {
 public:
  PayloadWriter(int fd, Xxh64* hash);
  void Write(const void* data, size_t n);
  template <typename T>
  void WritePod(const T& v) {
    Write(&v, sizeof(T));
  }
  // Flushes the buffer; the first error, if any.
  Status Finish();
  uint64_t bytes_written() const { return bytes_; }

 private:
  void Flush();
  int fd_;
  Xxh64* hash_;
  std::vector<char> buf_;
  uint64_t bytes_ = 0;
  Status status_;
};

// Reads at most `limit` bytes (the payload length from the header), feeding
// them to `hash` when it is not null. Reading past the limit or the end of
// the file is a Corrupt("truncated …") error.
class PayloadReader {
 public:
  PayloadReader(int fd, uint64_t limit, Xxh64* hash);
  Status Read(void* data, size_t n);
  template <typename T>
  Status ReadPod(T* v) {
    return Read(v, sizeof(T));
  }
  uint64_t remaining() const { return limit_ - consumed_; }

 private:
  Status Fill();
  int fd_;
  uint64_t limit_;
  uint64_t consumed_ = 0;  // bytes handed out by Read
  uint64_t from_fd_ = 0;   // bytes read from fd_ (handed out or buffered)
  Xxh64* hash_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
};

}  // namespace mnemo::index
