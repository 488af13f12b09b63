#include "index/payload_io.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace mnemo::index {
namespace {

constexpr size_t kBufferSize = 1 << 20;

}  // namespace

PayloadWriter::PayloadWriter(int fd, Xxh64* hash, uint64_t base)
    : fd_(fd), base_(base), hash_(hash) {
  buf_.reserve(kBufferSize);
}

void PayloadWriter::Write(const void* data, size_t n) {
  if (!status_.ok()) return;
  hash_->Update(data, n);
  bytes_ += n;
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const size_t take = std::min(n, kBufferSize - buf_.size());
    buf_.insert(buf_.end(), p, p + take);
    p += take;
    n -= take;
    if (buf_.size() == kBufferSize) Flush();
  }
}

void PayloadWriter::Flush() {
  const char* p = buf_.data();
  size_t n = buf_.size();
  while (n > 0 && status_.ok()) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      status_ = Internal(std::string("cannot write the index file: ") + std::strerror(errno));
      break;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  buf_.clear();
}

Status PayloadWriter::Finish() {
  Flush();
  return status_;
}

MappedBlock& MappedBlock::operator=(MappedBlock&& other) noexcept {
  if (this != &other) {
    if (base_ != nullptr) ::munmap(base_, length_);
    base_ = other.base_;
    data_ = other.data_;
    length_ = other.length_;
    other.release();
  }
  return *this;
}

MappedBlock::~MappedBlock() {
  if (base_ != nullptr) ::munmap(base_, length_);
}

PayloadReader::PayloadReader(int fd, uint64_t limit, Xxh64* hash, uint64_t base)
    : fd_(fd), base_(base), limit_(limit), hash_(hash), buf_(kBufferSize) {}

Result<MappedBlock> PayloadReader::Map(size_t n) {
  if (n > remaining()) return Corrupt("truncated: the payload is shorter than its contents");
  const long page = ::sysconf(_SC_PAGESIZE);
  MappedBlock block;
  if (n == 0 || page <= 0 || position() % static_cast<uint64_t>(page) != 0) return block;
  void* p =
      ::mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd_, static_cast<off_t>(position()));
  if (p == MAP_FAILED) return block;
  (void)::madvise(p, n, MADV_WILLNEED);
  block.base_ = p;
  block.data_ = static_cast<char*>(p);
  block.length_ = n;
  if (hash_ != nullptr) hash_->Update(block.data_, n);
  // What Fill buffered ahead is now behind: the next read starts after the block.
  consumed_ += n;
  from_fd_ = consumed_;
  pos_ = end_ = 0;
  if (::lseek(fd_, static_cast<off_t>(position()), SEEK_SET) < 0) {
    return Internal(std::string("cannot read the index file: ") + std::strerror(errno));
  }
  return block;
}

Status PayloadReader::Fill() {
  // Never read past the payload: the bytes after it are not ours to hash.
  const size_t want = static_cast<size_t>(std::min<uint64_t>(kBufferSize, limit_ - from_fd_));
  pos_ = 0;
  end_ = 0;
  while (end_ < want) {
    const ssize_t r = ::read(fd_, buf_.data() + end_, want - end_);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Internal(std::string("cannot read the index file: ") + std::strerror(errno));
    }
    if (r == 0) return Corrupt("truncated: the file ends inside the payload");
    end_ += static_cast<size_t>(r);
    from_fd_ += static_cast<uint64_t>(r);
  }
  return Status::Ok();
}

Status PayloadReader::Read(void* data, size_t n) {
  if (n > remaining()) return Corrupt("truncated: the payload is shorter than its contents");
  char* out = static_cast<char*>(data);
  const size_t total = n;
  while (n > 0) {
    if (pos_ == end_) {
      if (n >= kBufferSize) {
        // Large blocks (vectors, graph level 0) go straight to their destination.
        const ssize_t r = ::read(fd_, out, n);
        if (r < 0) {
          if (errno == EINTR) continue;
          return Internal(std::string("cannot read the index file: ") + std::strerror(errno));
        }
        if (r == 0) return Corrupt("truncated: the file ends inside the payload");
        out += r;
        n -= static_cast<size_t>(r);
        from_fd_ += static_cast<uint64_t>(r);
        continue;
      }
      MNEMO_RETURN_IF_ERROR(Fill());
    }
    const size_t take = std::min(n, end_ - pos_);
    std::memcpy(out, buf_.data() + pos_, take);
    pos_ += take;
    out += take;
    n -= take;
  }
  if (hash_ != nullptr) hash_->Update(data, total);
  consumed_ += total;
  return Status::Ok();
}

}  // namespace mnemo::index
