#include "index/index_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "base/io/atomic_file.h"
#include "base/io/file_io.h"
#include "index/checksum.h"
#include "index/flat_index.h"
#include "index/hnsw_index.h"
#include "index/payload_io.h"

namespace mnemo::index {
namespace {

constexpr char kMagic[8] = {'M', 'N', 'E', 'M', 'O', 'I', 'D', 'X'};
constexpr uint32_t kChecksumXxh64 = 1;
constexpr size_t kFixedHeader = 56;  // up to and including the store id length
constexpr uint32_t kMaxSignature = 1024;
constexpr uint32_t kMaxStoreId = 256;
constexpr size_t kMaxNameBytes = 100;

using internal::Fd;

std::string Errno() { return std::strerror(errno); }

Status CorruptFile(const std::filesystem::path& path, const std::string& detail) {
  return Corruption("index file " + path.string() + " is corrupt: " + detail +
                    "; rebuilding from storage");
}

// Payload errors: Corrupt(...) -> "is corrupt", I/O and memory -> "cannot read".
Status WrapLoadError(const std::filesystem::path& path, const Status& st) {
  if (st.code() == StatusCode::kCorruption) return CorruptFile(path, st.message());
  return Unavailable("cannot read index file " + path.string() + ": " + st.message());
}

template <typename T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}
template <typename T>
T Get(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

std::string EncodeHeader(IndexKind kind, size_t dims, std::string_view signature,
                         std::string_view store_id, uint64_t count, uint64_t watermark,
                         uint64_t payload_length) {
  std::string h(kMagic, sizeof(kMagic));
  Put<uint32_t>(h, kIndexFormatVersion);
  Put<uint32_t>(h, static_cast<uint32_t>(kind));
  Put<uint32_t>(h, static_cast<uint32_t>(dims));
  Put<uint32_t>(h, kChecksumXxh64);
  Put<uint64_t>(h, count);
  Put<uint64_t>(h, watermark);
  Put<uint64_t>(h, payload_length);
  Put<uint32_t>(h, static_cast<uint32_t>(signature.size()));
  Put<uint32_t>(h, static_cast<uint32_t>(store_id.size()));
  h.append(signature);
  h.append(store_id);
  return h;
}

Status ReadExactly(int fd, void* data, size_t n, bool* short_read) {
  char* p = static_cast<char*>(data);
  *short_read = false;
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      return Internal("cannot read the index file: " + Errno());
    }
    if (r == 0) {
      *short_read = true;
      return Status::Ok();
    }
    p += r;
    n -= static_cast<size_t>(r);
  }
  return Status::Ok();
}

struct OpenedFile {
  int fd = -1;
  struct stat st {};
  IndexFileHeader header;
  std::string header_bytes;  // [0, 56+n+m)
  uint64_t payload_offset = 0;
};

// Opens `path` and reads and checks its header; the fd is left at the
// payload. On error the fd is closed.
Result<OpenedFile> OpenIndexFile(const std::filesystem::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return NotFound("index file " + path.string() + " does not exist");
    return Unavailable("cannot open index file " + path.string() + ": " + Errno());
  }
  OpenedFile f;
  if (::fstat(fd.get(), &f.st) != 0) {
    return Unavailable("cannot stat index file " + path.string() + ": " + Errno());
  }
  if (!S_ISREG(f.st.st_mode)) return CorruptFile(path, "not a regular file");
  const uint64_t file_size = static_cast<uint64_t>(f.st.st_size);
  char fixed[kFixedHeader];
  bool short_read = false;
  Status st = ReadExactly(fd.get(), fixed, sizeof(fixed), &short_read);
  if (!st.ok()) return WrapLoadError(path, st);
  if (short_read) {
    return CorruptFile(path, file_size == 0 ? "the file is empty" : "truncated header");
  }
  if (std::memcmp(fixed, kMagic, sizeof(kMagic)) != 0) {
    return CorruptFile(path, "wrong magic (not a mnemo index file)");
  }
  const auto version = Get<uint32_t>(fixed + 8);
  if (version >= 1 && version < kOldestIndexFormatVersion) {
    return Unavailable("index file " + path.string() + " has format version " +
                       std::to_string(version) + " (an older mnemo's, without the store id); " +
                       "this mnemo reads " + std::to_string(kOldestIndexFormatVersion) + " to " +
                       std::to_string(kIndexFormatVersion) + "; rebuilding from storage");
  }
  if (version == 0 || version > kIndexFormatVersion) {
    return CorruptFile(path, "format version " + std::to_string(version) + ", this mnemo reads " +
                                 std::to_string(kIndexFormatVersion));
  }
  const auto kind = Get<uint32_t>(fixed + 12);
  if (kind != static_cast<uint32_t>(IndexKind::kFlat) &&
      kind != static_cast<uint32_t>(IndexKind::kHnsw)) {
    return CorruptFile(path, "unknown index kind " + std::to_string(kind));
  }
  const auto algorithm = Get<uint32_t>(fixed + 20);
  if (algorithm != kChecksumXxh64) {
    return CorruptFile(path, "unknown checksum algorithm " + std::to_string(algorithm));
  }
  const auto signature_length = Get<uint32_t>(fixed + 48);
  if (signature_length > kMaxSignature) return CorruptFile(path, "signature too long");
  const auto store_id_length = Get<uint32_t>(fixed + 52);
  if (store_id_length > kMaxStoreId) return CorruptFile(path, "store id too long");
  f.header.version = version;
  f.header.kind = static_cast<IndexKind>(kind);
  f.header.dimensions = Get<uint32_t>(fixed + 16);
  f.header.count = Get<uint64_t>(fixed + 24);
  f.header.watermark = Get<uint64_t>(fixed + 32);
  f.header.payload_length = Get<uint64_t>(fixed + 40);
  f.header.signature.resize(signature_length);
  f.header.store_id.resize(store_id_length);
  uint64_t checksum = 0;
  st = ReadExactly(fd.get(), f.header.signature.data(), signature_length, &short_read);
  if (st.ok() && !short_read) {
    st = ReadExactly(fd.get(), f.header.store_id.data(), store_id_length, &short_read);
  }
  if (st.ok() && !short_read) st = ReadExactly(fd.get(), &checksum, sizeof(checksum), &short_read);
  if (!st.ok()) return WrapLoadError(path, st);
  if (short_read) return CorruptFile(path, "truncated header");
  f.header.checksum = checksum;
  f.payload_offset = kFixedHeader + signature_length + store_id_length + sizeof(checksum);
  if (f.header.dimensions == 0) return CorruptFile(path, "0 dimensions");
  if (file_size - f.payload_offset != f.header.payload_length) {
    return CorruptFile(path, "the file has " + std::to_string(file_size - f.payload_offset) +
                                 " payload bytes, the header says " +
                                 std::to_string(f.header.payload_length));
  }
  f.header_bytes.assign(fixed, sizeof(fixed));
  f.header_bytes += f.header.signature;
  f.header_bytes += f.header.store_id;
  f.fd = fd.release();
  return f;
}

int64_t MtimeNs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

// Hashes the payload of `fd` (payload_length bytes from payload_offset),
// then header_bytes, and compares with `checksum`.
Status CheckChecksum(int fd, const std::filesystem::path& path, uint64_t payload_offset,
                     uint64_t payload_length, const std::string& header_bytes, uint64_t checksum,
                     const std::atomic<bool>* stop) {
  if (::lseek(fd, static_cast<off_t>(payload_offset), SEEK_SET) < 0) {
    return Unavailable("cannot verify index file " + path.string() + ": " + Errno());
  }
  Xxh64 hash;
  PayloadReader reader(fd, payload_length, &hash);
  std::vector<char> chunk(1 << 20);
  while (reader.remaining() > 0) {
    if (stop != nullptr && stop->load()) {
      return Unavailable("index file " + path.string() + " was not verified: stopped");
    }
    const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), reader.remaining()));
    Status s = reader.Read(chunk.data(), n);
    if (!s.ok()) return WrapLoadError(path, s);
  }
  hash.Update(header_bytes.data(), header_bytes.size());
  if (hash.Digest() != checksum) return CorruptFile(path, "checksum mismatch");
  return Status::Ok();
}

}  // namespace

std::filesystem::path IndexFilePath(const std::filesystem::path& dir, std::string_view signature,
                                    IndexKind kind) {
  std::string name;
  bool changed = signature.empty() || signature.size() > kMaxNameBytes;
  for (char c : signature.substr(0, kMaxNameBytes)) {
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-' || (c == '.' && !name.empty());
    name += plain ? c : '_';
    changed |= !plain;
  }
  if (changed) {
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(Xxh64Of(signature)));
    name += '-';
    name += hex;
  }
  return dir / (name + "." + std::string(IndexKindName(kind)) + ".idx");
}

Status SaveIndexFile(const std::filesystem::path& path, const VectorIndex& index,
                     std::string_view signature, std::string_view store_id, uint64_t watermark) {
  if (signature.size() > kMaxSignature) {
    return InvalidArgument("signature is longer than " + std::to_string(kMaxSignature) + " bytes");
  }
  if (store_id.size() > kMaxStoreId) {
    return InvalidArgument("store id is longer than " + std::to_string(kMaxStoreId) + " bytes");
  }
  auto fill = [&](int fd, const std::string&) -> Status {
    // The header's size is known before its contents: write the payload
    // after it, then the header (count, length and checksum come from the
    // payload).
    const size_t header_size = kFixedHeader + signature.size() + store_id.size() + sizeof(uint64_t);
    if (::lseek(fd, static_cast<off_t>(header_size), SEEK_SET) < 0) return Unavailable(Errno());
    Xxh64 hash;
    PayloadWriter writer(fd, &hash, header_size);
    uint64_t count = 0;
    Status st;
    if (const auto* flat = dynamic_cast<const FlatIndex*>(&index)) {
      st = flat->WritePayload(writer, &count);
    } else if (const auto* hnsw = dynamic_cast<const HnswIndex*>(&index)) {
      st = hnsw->WritePayload(writer, &count);
    } else {
      st = InvalidArgument("this kind of index cannot be saved");
    }
    if (st.ok()) st = writer.Finish();
    if (!st.ok()) return st;
    std::string header = EncodeHeader(index.kind(), index.dimensions(), signature, store_id, count,
                                      watermark, writer.bytes_written());
    hash.Update(header.data(), header.size());
    Put<uint64_t>(header, hash.Digest());
    if (::pwrite(fd, header.data(), header.size(), 0) != static_cast<ssize_t>(header.size())) {
      return Unavailable(Errno());
    }
    return Status::Ok();
  };
  Result<internal::Placed> placed =
      internal::WriteFileAtomically(path.string(), 0600, internal::Placement::kReplace, fill);
  if (placed.ok()) return Status::Ok();
  return Unavailable("cannot write index file " + path.string() + ": " + placed.status().message());
}

Result<IndexFileHeader> ReadIndexFileHeader(const std::filesystem::path& path) {
  MNEMO_ASSIGN_OR_RETURN(OpenedFile f, OpenIndexFile(path));
  ::close(f.fd);
  return f.header;
}

Result<LoadedIndex> LoadIndexFile(const std::filesystem::path& path,
                                  std::string_view expected_signature,
                                  std::string_view expected_store_id, size_t expected_dims,
                                  VerifyMode mode, const IndexOptions& options) {
  MNEMO_ASSIGN_OR_RETURN(OpenedFile f, OpenIndexFile(path));
  Fd fd(f.fd);
  const IndexFileHeader& h = f.header;
  if (h.signature != expected_signature) {
    return CorruptFile(path, "written for embedding signature \"" + h.signature +
                                 "\", expected \"" + std::string(expected_signature) + "\"");
  }
  if (h.store_id != expected_store_id) {
    return Unavailable("index file " + path.string() + " was built from another store (id \"" +
                       h.store_id + "\", this store is \"" + std::string(expected_store_id) +
                       "\"): copied from another workspace, or the database was replaced; " +
                       "rebuilding from storage");
  }
  if (h.dimensions != expected_dims) {
    return CorruptFile(path, "holds " + std::to_string(h.dimensions) + "-dimensional vectors, " +
                                 "expected " + std::to_string(expected_dims));
  }
  Xxh64 hash;
  PayloadReader reader(fd.get(), h.payload_length, mode == VerifyMode::kNow ? &hash : nullptr,
                       f.payload_offset);
  LoadedIndex loaded;
  if (h.kind == IndexKind::kFlat) {
    auto flat = FlatIndex::ReadPayload(reader, expected_dims, h.count);
    if (!flat.ok()) return WrapLoadError(path, flat.status());
    loaded.index = std::move(flat).value();
  } else {
    HnswParams params = options.hnsw;
    auto hnsw = HnswIndex::ReadPayload(reader, expected_dims, h.count, params, h.version);
    if (!hnsw.ok()) return WrapLoadError(path, hnsw.status());
    loaded.index = std::move(hnsw).value();
  }
  if (mode == VerifyMode::kNow) {
    hash.Update(f.header_bytes.data(), f.header_bytes.size());
    if (hash.Digest() != h.checksum) return CorruptFile(path, "checksum mismatch");
  } else {
    PendingVerification& p = loaded.pending.emplace();
    p.path_ = path;
    p.device_ = f.st.st_dev;
    p.inode_ = f.st.st_ino;
    p.size_ = static_cast<uint64_t>(f.st.st_size);
    p.mtime_ns_ = MtimeNs(f.st);
    p.header_bytes_ = f.header_bytes;
    p.payload_offset_ = f.payload_offset;
    p.payload_length_ = h.payload_length;
    p.checksum_ = h.checksum;
  }
  loaded.header = h;
  return loaded;
}

Status PendingVerification::Run(const std::atomic<bool>* stop) const {
  Fd fd(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) {
    return Unavailable("cannot verify index file " + path_.string() + ": " + Errno());
  }
  if (st.st_dev != device_ || st.st_ino != inode_ || static_cast<uint64_t>(st.st_size) != size_ ||
      MtimeNs(st) != mtime_ns_) {
    return Unavailable("index file " + path_.string() +
                       " was replaced since it was loaded; rebuilding from storage");
  }
  return CheckChecksum(fd.get(), path_, payload_offset_, payload_length_, header_bytes_, checksum_,
                       stop);
}

Status VerifyIndexFile(const std::filesystem::path& path) {
  MNEMO_ASSIGN_OR_RETURN(OpenedFile f, OpenIndexFile(path));
  Fd fd(f.fd);
  return CheckChecksum(fd.get(), path, f.payload_offset, f.header.payload_length, f.header_bytes,
                       f.header.checksum, nullptr);
}

}  // namespace mnemo::index
