#include "embed/word_vectors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "base/dot_product.h"
#include "base/io/atomic_file.h"
#include "base/sha256.h"
#include "embed/word_vectors_verified.h"

namespace mnemo::embed {
namespace {

// Header field offsets (word_vectors.h).
constexpr size_t kOffVersion = 8;
constexpr size_t kOffDims = 12;
constexpr size_t kOffCount = 16;
constexpr size_t kOffQuant = 20;
constexpr size_t kOffBodySize = 24;
constexpr size_t kOffChecksum = 32;
constexpr size_t kChecksumLen = 64;
constexpr size_t kOffSource = kOffChecksum + kChecksumLen;
constexpr size_t kSourceLen = 64;
static_assert(kOffSource + kSourceLen <= kWordVectorsHeaderSize);

// The common component is the top eigenvector of the SIF-weighted second
// moment of the most frequent words' unit vectors: the direction every
// averaged text shares, which SIF removes (Arora et al. 2017; uSIF takes it
// from the word vectors alone, as here).
constexpr uint32_t kCommonWords = 50000;
constexpr int kPowerIterations = 60;

size_t Align8(size_t n) { return (n + 7) & ~size_t{7}; }

template <typename T>
T ReadAt(const char* base, size_t off) {
  T v;
  std::memcpy(&v, base + off, sizeof(T));
  return v;
}

template <typename T>
void Append(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof(T));
}

void PadTo8(std::string& out, size_t body_start) {
  while ((out.size() - body_start) % 8 != 0) out.push_back('\0');
}

struct Sections {
  size_t sorted, offsets, strings, scales, common, vectors, end;
};

// Section offsets within the body for `count` words whose strings take
// `strings_bytes`.
Sections Layout(uint64_t count, uint64_t dims, uint64_t strings_bytes) {
  Sections s{};
  s.sorted = 0;
  s.offsets = Align8(s.sorted + 4 * count);
  s.strings = Align8(s.offsets + 4 * (count + 1));
  s.scales = Align8(s.strings + strings_bytes);
  s.common = Align8(s.scales + 4 * count);
  s.vectors = Align8(s.common + 4 * dims);
  s.end = s.vectors + count * dims;
  return s;
}

}  // namespace

// SIF weight a / (a + p(w)) with p(w) from the word's frequency rank under
// Zipf's law, p(r) ≈ 1 / ((r + 1) · H), H ≈ ln(N) + 0.577 for N ≈ 400k
// (the source lists its words by frequency, without counts).
double SifWeightForRank(uint32_t rank) {
  constexpr double kA = 1e-3;
  constexpr double kHarmonic = 13.5;
  const double p = 1.0 / ((static_cast<double>(rank) + 1.0) * kHarmonic);
  return kA / (kA + p);
}

Result<std::shared_ptr<const WordVectors>> WordVectors::Open(const std::string& path,
                                                             const std::string& verified_record) {
  const std::string expected =
      "expected a word-vector file written by `mnemo wordvectors build` (format " +
      std::to_string(kWordVectorsFormatVersion) + ", " + std::to_string(kWordVectorsDimensions) +
      " dimensions)";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) {
      return NotFound("word-vector file " + path + " does not exist; " + expected);
    }
    return InvalidArgument("word-vector file " + path + " cannot be opened: " + std::strerror(err));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidArgument("word-vector file " + path + " is not a regular file; " + expected);
  }
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size < kWordVectorsHeaderSize) {
    ::close(fd);
    return InvalidArgument("word-vector file " + path + " is truncated (" + std::to_string(size) +
                           " bytes); " + expected);
  }
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (map == MAP_FAILED) {
    return InvalidArgument("word-vector file " + path +
                           " cannot be mapped: " + std::strerror(errno));
  }
  std::shared_ptr<WordVectors> wv(new WordVectors());
  wv->path_ = path;
  wv->map_ = map;
  wv->map_size_ = size;
  const char* base = static_cast<const char*>(map);
  auto bad = [&](const std::string& what) {
    return InvalidArgument("word-vector file " + path + " " + what + "; " + expected);
  };
  if (std::string_view(base, kWordVectorsMagic.size()) != kWordVectorsMagic)
    return bad("has a bad magic number");
  const auto version = ReadAt<uint32_t>(base, kOffVersion);
  if (version != kWordVectorsFormatVersion)
    return bad("has format version " + std::to_string(version));
  wv->dims_ = ReadAt<uint32_t>(base, kOffDims);
  if (wv->dims_ != kWordVectorsDimensions)
    return bad("has " + std::to_string(wv->dims_) + " dimensions");
  wv->count_ = ReadAt<uint32_t>(base, kOffCount);
  if (ReadAt<uint32_t>(base, kOffQuant) != kQuantInt8) return bad("has an unknown quantisation");
  const auto body_size = ReadAt<uint64_t>(base, kOffBodySize);
  if (body_size != size - kWordVectorsHeaderSize)
    return bad("is truncated or has trailing bytes (body " + std::to_string(body_size) +
               " bytes, file " + std::to_string(size) + ")");
  wv->checksum_.assign(base + kOffChecksum, kChecksumLen);
  const char* src = base + kOffSource;
  wv->source_.assign(src, strnlen(src, kSourceLen));
  const char* body = base + kWordVectorsHeaderSize;
  // The sizes are checked first, so that no offset can point outside the
  // map whether or not the checksum is taken below.
  const uint64_t count = wv->count_;
  if (count == 0 || Align8(4 * count) + 4 * (count + 1) > body_size)
    return bad("has an impossible word count");
  const auto* offsets_probe = reinterpret_cast<const uint32_t*>(body + Align8(4 * count));
  const uint64_t strings_bytes = offsets_probe[count];
  const Sections s = Layout(count, wv->dims_, strings_bytes);
  if (s.end != body_size) return bad("has sections that do not add up to its size");
  wv->sorted_ = reinterpret_cast<const uint32_t*>(body + s.sorted);
  wv->offsets_ = reinterpret_cast<const uint32_t*>(body + s.offsets);
  wv->strings_ = body + s.strings;
  wv->scales_ = reinterpret_cast<const float*>(body + s.scales);
  wv->common_ = reinterpret_cast<const float*>(body + s.common);
  wv->vectors_ = reinterpret_cast<const int8_t*>(body + s.vectors);
  for (uint64_t r = 0; r < count; ++r) {
    if (wv->offsets_[r] > wv->offsets_[r + 1] || wv->sorted_[r] >= count)
      return bad("has a corrupt vocabulary");
  }
  // The checksum says the body is what the writer wrote. Taking it costs
  // more than the rest of the open, so a file whose identity on disk is
  // the one verified last time skips it (word_vectors_verified.h).
  const WordVectorsIdentity identity = WordVectorsIdentity::Of(st, wv->checksum_);
  if (!WasVerified(verified_record, identity)) {
    const int64_t started = RealtimeNs();
    if (internal::Sha256Hex(std::string_view(body, body_size)) != wv->checksum_)
      return bad("fails its checksum (altered or damaged)");
    RememberVerified(verified_record, identity, started);
  }
  return std::shared_ptr<const WordVectors>(std::move(wv));
}

WordVectors::~WordVectors() {
  if (map_ != nullptr) ::munmap(map_, map_size_);
}

std::string_view WordVectors::Word(uint32_t rank) const {
  return {strings_ + offsets_[rank], offsets_[rank + 1] - offsets_[rank]};
}

namespace {

uint64_t HashWord(std::string_view w) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (char c : w) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h ^ (h >> 29);
}

}  // namespace

// A binary search of the 341 479 words (memcmp on pages of the mapped file)
// was a third of a hybrid search's time: soft matching looks up every word
// of 80 candidates, and the import embeds every word of every text. An
// open-addressing table of ranks (4 bytes a slot, at most half full: 4 MiB
// for the English file) answers in one hash and about one comparison. It
// is built at the first lookup, not at Open, so an engine that never looks
// a word up does not pay its ~14 ms of CPU.
void WordVectors::BuildTable() const {
  std::call_once(table_once_, [this] {
    size_t slots = 1;
    while (slots < 2 * static_cast<size_t>(count_)) slots <<= 1;
    table_.assign(slots, 0);
    for (uint32_t rank = 0; rank < count_; ++rank) {
      size_t at = HashWord(Word(rank)) & (slots - 1);
      while (table_[at] != 0) at = (at + 1) & (slots - 1);
      table_[at] = rank + 1;
    }
  });
}

std::optional<uint32_t> WordVectors::Find(std::string_view word) const {
  BuildTable();
  if (table_.empty()) return std::nullopt;
  const size_t mask = table_.size() - 1;
  for (size_t at = HashWord(word) & mask; table_[at] != 0; at = (at + 1) & mask) {
    if (Word(table_[at] - 1) == word) return table_[at] - 1;
  }
  return std::nullopt;
}

void WordVectors::FindMany(std::span<const std::string_view> words, std::span<uint32_t> out) const {
  BuildTable();
  const size_t n = std::min(words.size(), out.size());
  if (table_.empty()) {
    std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), 0U);
    return;
  }
  const size_t mask = table_.size() - 1;
  thread_local std::vector<size_t> slot;
  slot.resize(n);
  for (size_t i = 0; i < n; ++i) {
    slot[i] = HashWord(words[i]) & mask;
    __builtin_prefetch(&table_[slot[i]]);
  }
  for (size_t i = 0; i < n; ++i) {
    if (table_[slot[i]] != 0) __builtin_prefetch(&offsets_[table_[slot[i]] - 1]);
  }
  for (size_t i = 0; i < n; ++i) {
    if (table_[slot[i]] != 0) __builtin_prefetch(strings_ + offsets_[table_[slot[i]] - 1]);
  }
  for (size_t i = 0; i < n; ++i) {
    out[i] = 0;
    for (size_t at = slot[i]; table_[at] != 0; at = (at + 1) & mask) {
      if (Word(table_[at] - 1) == words[i]) {
        out[i] = table_[at];
        break;
      }
    }
  }
}

void WordVectors::Load(uint32_t rank, std::span<float> out) const {
  const int8_t* q = vectors_ + static_cast<size_t>(rank) * dims_;
  const float scale = scales_[rank];
  for (uint32_t i = 0; i < dims_ && i < out.size(); ++i) out[i] = static_cast<float>(q[i]) * scale;
}

float WordVectors::DotWith(uint32_t rank, std::span<const float> v) const {
  const int8_t* q = vectors_ + static_cast<size_t>(rank) * dims_;
  return DotFloatInt8(v.data(), q, std::min<size_t>(dims_, v.size())) * scales_[rank];
}

void WordVectors::Prefetch(uint32_t rank) const {
  const int8_t* q = vectors_ + static_cast<size_t>(rank) * dims_;
  __builtin_prefetch(q);
  __builtin_prefetch(q + 64);
  __builtin_prefetch(&scales_[rank]);
}

Status WriteWordVectors(const std::string& path, std::span<const std::string> words,
                        std::span<const float> vectors, uint32_t dimensions,
                        std::string_view source) {
  const size_t count = words.size();
  if (count == 0 || dimensions == 0 || vectors.size() != count * dimensions) {
    return InvalidArgument("word vectors: " + std::to_string(count) + " words need " +
                           std::to_string(count * dimensions) + " values, got " +
                           std::to_string(vectors.size()));
  }
  if (count >= UINT32_MAX / 2) return InvalidArgument("word vectors: too many words");
  if (source.size() >= kSourceLen) return InvalidArgument("word vectors: source name too long");
  uint64_t strings_bytes = 0;
  for (const std::string& w : words) {
    if (w.empty()) return InvalidArgument("word vectors: an empty word");
    strings_bytes += w.size();
  }
  if (strings_bytes >= UINT32_MAX) return InvalidArgument("word vectors: vocabulary too large");
  std::vector<uint32_t> sorted(count);
  std::iota(sorted.begin(), sorted.end(), 0U);
  std::sort(sorted.begin(), sorted.end(),
            [&](uint32_t a, uint32_t b) { return words[a] < words[b]; });
  for (size_t i = 1; i < count; ++i) {
    if (words[sorted[i - 1]] == words[sorted[i]])
      return InvalidArgument("word vectors: the word \"" + words[sorted[i]] + "\" occurs twice");
  }

  // Unit vectors, quantised to int8 with a per-vector scale (max |x| -> 127).
  std::vector<int8_t> quantised(count * dimensions);
  std::vector<float> scales(count);
  std::vector<double> unit(dimensions);
  std::vector<double> moment(static_cast<size_t>(dimensions) * dimensions, 0.0);
  for (size_t r = 0; r < count; ++r) {
    const float* v = vectors.data() + r * dimensions;
    double norm2 = 0;
    for (uint32_t i = 0; i < dimensions; ++i) norm2 += static_cast<double>(v[i]) * v[i];
    const double inv = norm2 > 0 && std::isfinite(norm2) ? 1.0 / std::sqrt(norm2) : 0.0;
    double max_abs = 0;
    for (uint32_t i = 0; i < dimensions; ++i) {
      unit[i] = v[i] * inv;
      max_abs = std::max(max_abs, std::abs(unit[i]));
    }
    const double scale = max_abs > 0 ? max_abs / 127.0 : 1.0;
    scales[r] = static_cast<float>(scale);
    for (uint32_t i = 0; i < dimensions; ++i) {
      quantised[r * dimensions + i] = static_cast<int8_t>(std::lround(unit[i] / scale));
    }
    if (r < kCommonWords) {
      const double w = SifWeightForRank(static_cast<uint32_t>(r));
      for (uint32_t i = 0; i < dimensions; ++i) {
        for (uint32_t j = 0; j < dimensions; ++j)
          moment[i * dimensions + j] += w * unit[i] * unit[j];
      }
    }
  }
  // Power iteration from a fixed start: deterministic.
  std::vector<double> pc(dimensions, 1.0 / std::sqrt(static_cast<double>(dimensions)));
  std::vector<double> next(dimensions);
  for (int it = 0; it < kPowerIterations; ++it) {
    double norm2 = 0;
    for (uint32_t i = 0; i < dimensions; ++i) {
      double sum = 0;
      for (uint32_t j = 0; j < dimensions; ++j) sum += moment[i * dimensions + j] * pc[j];
      next[i] = sum;
      norm2 += sum * sum;
    }
    if (!(norm2 > 0)) break;
    const double inv = 1.0 / std::sqrt(norm2);
    for (uint32_t i = 0; i < dimensions; ++i) pc[i] = next[i] * inv;
  }

  std::string body;
  const Sections s = Layout(count, dimensions, strings_bytes);
  body.reserve(s.end);
  for (uint32_t r : sorted) Append(body, r);
  PadTo8(body, 0);
  uint32_t offset = 0;
  for (const std::string& w : words) {
    Append(body, offset);
    offset += static_cast<uint32_t>(w.size());
  }
  Append(body, offset);
  PadTo8(body, 0);
  for (const std::string& w : words) body += w;
  PadTo8(body, 0);
  for (float f : scales) Append(body, f);
  PadTo8(body, 0);
  for (double d : pc) Append(body, static_cast<float>(d));
  PadTo8(body, 0);
  body.append(reinterpret_cast<const char*>(quantised.data()), quantised.size());
  if (body.size() != s.end) return Internal("word vectors: layout mismatch");

  std::string header(kWordVectorsHeaderSize, '\0');
  std::memcpy(header.data(), kWordVectorsMagic.data(), kWordVectorsMagic.size());
  auto put32 = [&](size_t off, uint32_t v) { std::memcpy(header.data() + off, &v, 4); };
  put32(kOffVersion, kWordVectorsFormatVersion);
  put32(kOffDims, dimensions);
  put32(kOffCount, static_cast<uint32_t>(count));
  put32(kOffQuant, kQuantInt8);
  const uint64_t body_size = body.size();
  std::memcpy(header.data() + kOffBodySize, &body_size, 8);
  const std::string checksum = internal::Sha256Hex(body);
  std::memcpy(header.data() + kOffChecksum, checksum.data(), kChecksumLen);
  std::memcpy(header.data() + kOffSource, source.data(), source.size());

  auto placed = internal::WriteFileAtomically(
      path, 0644, internal::Placement::kReplace, [&](int fd, const std::string& temp) -> Status {
        for (const std::string* part : {&header, &body}) {
          size_t done = 0;
          while (done < part->size()) {
            const ssize_t n = ::write(fd, part->data() + done, part->size() - done);
            if (n < 0) {
              if (errno == EINTR) continue;
              return Unavailable("cannot write " + temp + ": " + std::strerror(errno));
            }
            done += static_cast<size_t>(n);
          }
        }
        return Status::Ok();
      });
  return placed.ok() ? Status::Ok() : placed.status();
}

}  // namespace mnemo::embed
