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
// error sticks: later writes do nothing and Finish returns it. `base` is the
// file offset of the payload's first byte (for position()).
class PayloadWriter {
 public:
  PayloadWriter(int fd, Xxh64* hash, uint64_t base = 0);
  void Write(const void* data, size_t n);
  template <typename T>
  void WritePod(const T& v) {
    Write(&v, sizeof(T));
  }
  // Flushes the buffer; the first error, if any.
  Status Finish();
  uint64_t bytes_written() const { return bytes_; }
  // The file offset the next byte goes to.
  uint64_t position() const { return base_ + bytes_; }

 private:
  void Flush();
  int fd_;
  uint64_t base_;
  Xxh64* hash_;
  std::vector<char> buf_;
  uint64_t bytes_ = 0;
  Status status_;
};

// A read-only, copy-on-write mapping of part of a file (MAP_PRIVATE): writes
// through it change this process's pages, never the file. Unmapped on
// destruction; release() hands the mapping to the caller (munmap(base,
// length) is then theirs).
class MappedBlock {
 public:
  MappedBlock() = default;
  MappedBlock(MappedBlock&& other) noexcept { *this = std::move(other); }
  MappedBlock& operator=(MappedBlock&& other) noexcept;
  MappedBlock(const MappedBlock&) = delete;
  MappedBlock& operator=(const MappedBlock&) = delete;
  ~MappedBlock();
  char* data() const { return data_; }
  void* base() const { return base_; }
  size_t length() const { return length_; }
  void release() {
    base_ = nullptr;
    data_ = nullptr;
    length_ = 0;
  }

 private:
  friend class PayloadReader;
  void* base_ = nullptr;  // page-aligned start of the mapping
  char* data_ = nullptr;  // the block's first byte
  size_t length_ = 0;     // of the mapping
};

// Reads at most `limit` bytes (the payload length from the header), feeding
// them to `hash` when it is not null. Reading past the limit or the end of
// the file is a Corrupt("truncated …") error. `base` is the file offset of
// the payload's first byte (for position() and Map).
class PayloadReader {
 public:
  PayloadReader(int fd, uint64_t limit, Xxh64* hash, uint64_t base = 0);
  Status Read(void* data, size_t n);
  template <typename T>
  Status ReadPod(T* v) {
    return Read(v, sizeof(T));
  }
  uint64_t remaining() const { return limit_ - consumed_; }
  // The file offset of the next byte Read hands out.
  uint64_t position() const { return base_ + consumed_; }
  // The next `n` bytes mapped from the file instead of copied (and hashed,
  // when hashing), when position() is a multiple of the page size; an empty
  // block (nothing consumed) when it is not or the mapping fails, so the
  // caller reads them instead. The pages are read ahead (MADV_WILLNEED) while
  // the caller goes on: a caller walking the block from its start waits
  // for the disk only where it overtakes the read-ahead.
  Result<MappedBlock> Map(size_t n);

 private:
  Status Fill();
  int fd_;
  uint64_t base_;
  uint64_t limit_;
  uint64_t consumed_ = 0;  // bytes handed out by Read
  uint64_t from_fd_ = 0;   // bytes read from fd_ (handed out or buffered)
  Xxh64* hash_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
};

}  // namespace mnemo::index
