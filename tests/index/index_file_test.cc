#include "index/index_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "index/checksum.h"
#include "index/flat_index.h"
#include "index/hnsw_index.h"
#include "index/test_vectors.h"
#include "test_util.h"

namespace mnemo::index {
namespace {

namespace fs = std::filesystem;
using testing::ClusteredVectors;
using testing::Row;

constexpr size_t kDims = 24;
constexpr char kSignature[] = "openai:nomic-embed-text:24";
constexpr std::string_view kStore = "3f2a9c0d41e84b7f9a6de0c1b2a3f405";

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
void WriteAll(const fs::path& p, std::string_view bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}
size_t HeaderSize(std::string_view signature, std::string_view store = kStore) {
  return 56 + signature.size() + store.size() + 8;
}
uint64_t Get64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t Get32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
// Where an hnsw payload's padding field is: after the encoding and
// hnswlib's 13 fields.
size_t PadFieldAt(std::string_view signature) { return HeaderSize(signature) + 4 + 96; }
// Where its level-0 block starts: past the padding, at a multiple of 64 KiB.
size_t Level0At(const std::string& file, std::string_view signature) {
  return PadFieldAt(signature) + 4 + Get32(file.data() + PadFieldAt(signature));
}

// Recomputes the checksum of a file whose bytes were changed on purpose,
// so the payload validation itself is what gets tested.
void Reseal(std::string& file, std::string_view signature) {
  const size_t header = HeaderSize(signature) - 8;
  Xxh64 h;
  h.Update(file.data() + header + 8, file.size() - header - 8);
  h.Update(file.data(), header);
  const uint64_t sum = h.Digest();
  std::memcpy(file.data() + header, &sum, 8);
}

class IndexFileTest : public ::testing::TestWithParam<IndexKind> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mnemo_index_file_test_" + std::to_string(::getpid()) +
                                        "_" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    fs::create_directories(dir_);
    data_ = ClusteredVectors(600, kDims, 12, 8);
    index_ = std::move(MakeIndex(GetParam(), kDims, {}).value());
    for (size_t i = 0; i < 600; ++i) ASSERT_TRUE(index_->Upsert(10 + i, Row(data_, kDims, i)).ok());
    ASSERT_TRUE(index_->Remove(15).ok());
    path_ = IndexFilePath(dir_, kSignature, GetParam());
    ASSERT_TRUE(SaveIndexFile(path_, *index_, kSignature, kStore, 777).ok());
    bytes_ = ReadAll(path_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  Status LoadStatus(VerifyMode mode = VerifyMode::kNow) {
    auto r = LoadIndexFile(path_, kSignature, kStore, kDims, mode);
    if (r.ok() && r->pending) return r->pending->Run();
    return r.status();
  }
  void ExpectCorrupt(std::string_view bytes, const char* why) {
    WriteAll(path_, bytes);
    for (VerifyMode mode : {VerifyMode::kNow, VerifyMode::kDeferred}) {
      Status st = LoadStatus(mode);
      EXPECT_EQ(st.code(), StatusCode::kCorruption) << why << ": " << st.ToString();
      EXPECT_NE(st.message().find("is corrupt"), std::string::npos) << why << ": " << st.message();
    }
  }

  fs::path dir_, path_;
  std::vector<float> data_;
  std::unique_ptr<VectorIndex> index_;
  std::string bytes_;
};

TEST_P(IndexFileTest, RoundTripKeepsEveryVectorAndTheHeader) {
  for (VerifyMode mode : {VerifyMode::kNow, VerifyMode::kDeferred}) {
    auto loaded = LoadIndexFile(path_, kSignature, kStore, kDims, mode);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    EXPECT_EQ(loaded->pending.has_value(), mode == VerifyMode::kDeferred);
    if (loaded->pending) {
      EXPECT_TRUE(loaded->pending->Run().ok());
    }
    const VectorIndex& got = *loaded->index;
    EXPECT_EQ(got.kind(), GetParam());
    EXPECT_EQ(got.size(), 599u);
    EXPECT_FALSE(got.Contains(15));
    EXPECT_EQ(loaded->header.signature, kSignature);
    EXPECT_EQ(loaded->header.store_id, kStore);
    EXPECT_EQ(loaded->header.watermark, 777u);
    EXPECT_EQ(loaded->header.count, 599u);
    EXPECT_EQ(loaded->header.dimensions, kDims);
    for (size_t q = 0; q < 600; q += 37) {
      auto a = index_->Search(Row(data_, kDims, q), 10);
      auto b = got.Search(Row(data_, kDims, q), 10);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(*a, *b);
    }
  }
  // A loaded index accepts writes and saves again.
  auto loaded = LoadIndexFile(path_, kSignature, kStore, kDims, VerifyMode::kNow);
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE(loaded->index->Upsert(15, Row(data_, kDims, 5)).ok());
  ASSERT_TRUE(SaveIndexFile(path_, *loaded->index, kSignature, kStore, 778).ok());
  auto header = ReadIndexFileHeader(path_);
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->count, 600u);
  EXPECT_EQ(header->watermark, 778u);
  EXPECT_EQ(LoadStatus().code(), StatusCode::kOk);
  // No temp files are left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_P(IndexFileTest, MissingFileIsNotFound) {
  fs::remove(path_);
  EXPECT_EQ(LoadStatus().code(), StatusCode::kNotFound);
}

TEST_P(IndexFileTest, EmptyFileIsCorrupt) { ExpectCorrupt("", "empty"); }

TEST_P(IndexFileTest, TruncatedFilesAreCorrupt) {
  const size_t header = HeaderSize(kSignature);
  for (size_t len :
       {size_t{1}, size_t{7}, size_t{8}, size_t{20}, size_t{51}, size_t{52}, header - 1, header,
        header + 1, header + 9, bytes_.size() / 2, bytes_.size() - 4, bytes_.size() - 1}) {
    ExpectCorrupt(std::string_view(bytes_).substr(0, len),
                  ("truncated to " + std::to_string(len)).c_str());
  }
  ExpectCorrupt(bytes_ + "x", "one byte too many");
}

TEST_P(IndexFileTest, EveryFlippedHeaderByteIsDetected) {
  const size_t store_at = 56 + std::strlen(kSignature);
  for (size_t i = 0; i < HeaderSize(kSignature); ++i) {
    std::string bad = bytes_;
    bad[i] ^= 0x10;
    if (i >= store_at && i < store_at + kStore.size()) {
      // Another store's id, as far as the header can tell.
      WriteAll(path_, bad);
      EXPECT_NE(LoadStatus().message().find("another store"), std::string::npos) << i;
      continue;
    }
    ExpectCorrupt(bad, ("header byte " + std::to_string(i)).c_str());
  }
}

TEST_P(IndexFileTest, FlippedPayloadBytesAreDetected) {
  for (size_t i = HeaderSize(kSignature); i < bytes_.size(); i += 211) {
    std::string bad = bytes_;
    bad[i] ^= 0x01;
    ExpectCorrupt(bad, ("payload byte " + std::to_string(i)).c_str());
  }
}

TEST_P(IndexFileTest, NamedErrorsForMagicVersionSignatureAndDimensions) {
  std::string bad = bytes_;
  bad[0] = 'X';
  WriteAll(path_, bad);
  EXPECT_NE(LoadStatus().message().find("wrong magic"), std::string::npos);
  bad = bytes_;
  bad[8] = 5;
  WriteAll(path_, bad);
  EXPECT_NE(LoadStatus().message().find("format version 5"), std::string::npos);
  WriteAll(path_, bytes_);
  auto r = LoadIndexFile(path_, "hash-v1-24", kStore, kDims, VerifyMode::kNow);
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("expected \"hash-v1-24\""), std::string::npos);
  r = LoadIndexFile(path_, kSignature, kStore, kDims + 1, VerifyMode::kNow);
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_NE(r.status().message().find("rebuilding from storage"), std::string::npos);
}

// Issue 17: a file copied in from another workspace, or left beside a
// database that was replaced, was loaded and answered with other entries.
TEST_P(IndexFileTest, AFileOfAnotherStoreIsRefused) {
  for (VerifyMode mode : {VerifyMode::kNow, VerifyMode::kDeferred}) {
    auto r = LoadIndexFile(path_, kSignature, "0123456789abcdef0123456789abcdef", kDims, mode);
    ASSERT_EQ(r.status().code(), StatusCode::kUnavailable);
    EXPECT_NE(r.status().message().find("was built from another store"), std::string::npos)
        << r.status().message();
    EXPECT_NE(r.status().message().find("rebuilding from storage"), std::string::npos);
  }
  // Nor is an identity a prefix or an empty one (in_memory's).
  EXPECT_FALSE(LoadIndexFile(path_, kSignature, kStore.substr(0, 8), kDims, VerifyMode::kNow).ok());
  EXPECT_FALSE(LoadIndexFile(path_, kSignature, "", kDims, VerifyMode::kNow).ok());
  auto header = ReadIndexFileHeader(path_);
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->store_id, kStore);
}

// A version 1 file (no store id) is refused by name, not as corrupt.
TEST_P(IndexFileTest, AnOlderFormatIsRefusedByName) {
  std::string old = bytes_;
  old[8] = 1;
  WriteAll(path_, old);
  Status st = LoadStatus();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("has format version 1"), std::string::npos) << st.message();
  EXPECT_EQ(st.message().find("corrupt"), std::string::npos) << st.message();
}

TEST_P(IndexFileTest, AnOverlongStoreIdIsRefusedOnSave) {
  EXPECT_EQ(SaveIndexFile(path_, *index_, kSignature, std::string(257, 'x'), 1).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(LoadStatus().code(), StatusCode::kOk);  // the old file is untouched
}

TEST_P(IndexFileTest, RandomBytesAreCorrupt) {
  std::mt19937 rng(1);
  for (size_t len : {size_t{3}, size_t{60}, size_t{500}, bytes_.size()}) {
    std::string junk(len, '\0');
    for (char& c : junk) c = static_cast<char>(rng());
    ExpectCorrupt(junk, "random bytes");
    junk.replace(0, 8, "MNEMOIDX");  // past the magic, still junk
    ExpectCorrupt(junk, "random bytes after the magic");
  }
}

// Bytes with a matching checksum (a bug in a writer, or a hand edit) must
// still never crash the loader or a search.
TEST_P(IndexFileTest, ResealedGarbageNeverCrashes) {
  std::mt19937 rng(7);
  const size_t header = HeaderSize(kSignature);
  for (int round = 0; round < 300; ++round) {
    std::string bad = bytes_;
    const int flips = 1 + round % 4;
    for (int f = 0; f < flips; ++f) {
      // Bias towards the start of the payload, where the layout fields are.
      const size_t span = round % 2 ? 160 : bad.size() - header;
      const size_t at = header + rng() % span;
      bad[at] = static_cast<char>(rng());
    }
    Reseal(bad, kSignature);
    WriteAll(path_, bad);
    auto loaded = LoadIndexFile(path_, kSignature, kStore, kDims, VerifyMode::kNow);
    if (!loaded.ok()) {
      EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
      continue;
    }
    for (size_t q = 0; q < 600; q += 150) {
      auto r = loaded->index->Search(Row(data_, kDims, q), 10);
      EXPECT_TRUE(r.ok());
      ASSERT_TRUE(loaded->index->Upsert(100000 + q, Row(data_, kDims, q)).ok());
    }
  }
}

TEST_P(IndexFileTest, DeferredVerificationCatchesACorruptVector) {
  // Flip a low mantissa bit of the last vector's last float (flat), or a
  // byte of the first element's vector (hnsw): still a valid index, only the
  // checksum can tell.
  std::string bad = bytes_;
  const size_t at =
      GetParam() == IndexKind::kFlat ? bad.size() - 4 : Level0At(bad, kSignature) + 200;
  bad[at] ^= 0x01;
  WriteAll(path_, bad);
  auto loaded = LoadIndexFile(path_, kSignature, kStore, kDims, VerifyMode::kDeferred);
  if (loaded.ok()) {
    ASSERT_TRUE(loaded->pending);
    Status st = loaded->pending->Run();
    EXPECT_EQ(st.code(), StatusCode::kCorruption);
    EXPECT_NE(st.message().find("checksum mismatch"), std::string::npos) << st.message();
    EXPECT_TRUE(loaded->index->SearchExact(Row(data_, kDims, 0), 5).ok());
  }
  EXPECT_EQ(LoadIndexFile(path_, kSignature, kStore, kDims, VerifyMode::kNow).status().code(),
            StatusCode::kCorruption);
}

TEST_P(IndexFileTest, DeferredVerificationNoticesAReplacedFile) {
  auto loaded = LoadIndexFile(path_, kSignature, kStore, kDims, VerifyMode::kDeferred);
  ASSERT_TRUE(loaded.ok());
  ASSERT_TRUE(SaveIndexFile(path_, *index_, kSignature, kStore, 900).ok());
  Status st = loaded->pending->Run();
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("replaced"), std::string::npos) << st.message();
}

// An hnsw index of the first `n` rows of `data` (ids 1..n), saved for
// kSignature and kStore in a folder of its own (removed with it).
struct SavedHnsw {
  SavedHnsw(const std::vector<float>& data, size_t n, const HnswParams& params = {}) {
    index = HnswIndex::Make(kDims, params).value();
    for (size_t i = 0; i < n; ++i) EXPECT_TRUE(index->Upsert(i + 1, Row(data, kDims, i)).ok());
    EXPECT_TRUE(SaveIndexFile(path, *index, kSignature, kStore, 5).ok());
  }
  mnemo::testing::TempDir dir;
  fs::path path = IndexFilePath(dir.path(), kSignature, IndexKind::kHnsw);
  std::unique_ptr<HnswIndex> index;
};

// The same hnsw file in an older format: 3 had no padding before the
// level-0 block, 2 no encoding field either (float32 vectors).
std::string OlderFormat(const std::string& v4, uint32_t version) {
  const size_t header = HeaderSize(kSignature);
  const size_t pad_at = PadFieldAt(kSignature);
  const size_t fields_at = header + (version == 2 ? 4 : 0);  // 2: without the encoding
  std::string old = v4.substr(0, header) + v4.substr(fields_at, pad_at - fields_at) +
                    v4.substr(Level0At(v4, kSignature));
  std::memcpy(old.data() + 8, &version, 4);
  const uint64_t length = old.size() - header;
  std::memcpy(old.data() + 40, &length, 8);
  Reseal(old, kSignature);
  return old;
}

// Older formats still load, through reads instead of a mapping, and answer
// as before.
TEST(IndexFileFormat, Version2And3HnswFilesStillLoad) {
  const std::vector<float> data = ClusteredVectors(300, kDims, 6, 9);
  const SavedHnsw saved(data, 300);
  const fs::path& path = saved.path;
  const std::string v4 = ReadAll(path);
  EXPECT_EQ(Level0At(v4, kSignature) % kLevel0Alignment, 0u);
  for (uint32_t version : {2u, 3u}) {
    WriteAll(path, OlderFormat(v4, version));
    auto loaded = LoadIndexFile(path, kSignature, kStore, kDims, VerifyMode::kNow);
    ASSERT_TRUE(loaded.ok()) << version << ": " << loaded.status().ToString();
    EXPECT_EQ(loaded->header.version, version);
    const auto* hnsw = dynamic_cast<const HnswIndex*>(loaded->index.get());
    ASSERT_NE(hnsw, nullptr);
    EXPECT_EQ(hnsw->params().encoding, VectorEncoding::kFloat32);
    EXPECT_FALSE(hnsw->maps_file());
    for (size_t q = 0; q < 300; q += 29) {
      auto a = saved.index->Search(Row(data, kDims, q), 5);
      auto b = loaded->index->Search(Row(data, kDims, q), 5);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_EQ(*a, *b);
    }
  }
}

// A format 4 graph is mapped from its file, copy-on-write: changing the
// loaded index never changes the file, and the first new vector moves the
// block into memory of the index's own, where it grows.
TEST(IndexFileFormat, ALoadedGraphIsMappedAndNeverWritesItsFile) {
  const std::vector<float> data = ClusteredVectors(1200, kDims, 8, 4);
  for (VectorEncoding encoding : {VectorEncoding::kFloat32, VectorEncoding::kInt8}) {
    const SavedHnsw file(data, 600, {.encoding = encoding});
    const fs::path& path = file.path;
    const std::string saved = ReadAll(path);
    auto loaded = LoadIndexFile(path, kSignature, kStore, kDims, VerifyMode::kNow);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    auto* hnsw = dynamic_cast<HnswIndex*>(loaded->index.get());
    ASSERT_NE(hnsw, nullptr);
    EXPECT_TRUE(hnsw->maps_file());
    // Updates and removals write into the mapped pages: this process's copies.
    ASSERT_TRUE(hnsw->Upsert(7, Row(data, kDims, 900)).ok());
    ASSERT_TRUE(hnsw->Remove(8).ok());
    EXPECT_TRUE(hnsw->maps_file());
    EXPECT_EQ(ReadAll(path), saved);
    auto moved = hnsw->Search(Row(data, kDims, 900), 1);
    ASSERT_TRUE(moved.ok() && !moved->empty());
    EXPECT_EQ((*moved)[0].id, 7u);
    EXPECT_FALSE(hnsw->Contains(8));
    // New vectors need room: the block leaves the file and grows.
    std::vector<uint64_t> ids;
    std::vector<float> more;
    for (size_t i = 600; i < 1200; ++i) {
      ids.push_back(i + 1);
      const auto row = Row(data, kDims, i);
      more.insert(more.end(), row.begin(), row.end());
    }
    ASSERT_TRUE(hnsw->UpsertBatch(ids, more).ok());
    EXPECT_FALSE(hnsw->maps_file());
    EXPECT_EQ(hnsw->size(), 1199u);
    EXPECT_EQ(ReadAll(path), saved);
    for (size_t q = 0; q < 1200; q += 97) {
      auto exact = hnsw->SearchExact(Row(data, kDims, q), 5);
      auto found = hnsw->Search(Row(data, kDims, q), 5);
      ASSERT_TRUE(exact.ok() && found.ok());
      ASSERT_FALSE(found->empty());
      EXPECT_EQ((*found)[0].id, (*exact)[0].id) << q;
    }
    ASSERT_TRUE(hnsw->Compact().ok());
    EXPECT_EQ(hnsw->size(), 1199u);
    // A loaded graph dropped while still mapped unmaps it (ASan: no leak, no
    // free of the mapping).
    auto again = LoadIndexFile(path, kSignature, kStore, kDims, VerifyMode::kNow);
    ASSERT_TRUE(again.ok());
    EXPECT_TRUE(dynamic_cast<const HnswIndex&>(*again->index).maps_file());
  }
}

// Two elements with one label (a file written wrong and resealed) are
// refused by name: the label map is built on a helper thread beside the
// graph check, and its verdict must still reach the caller.
TEST(IndexFileFormat, AnIdStoredTwiceIsCorrupt) {
  const SavedHnsw saved(ClusteredVectors(200, kDims, 4, 5), 200);
  const fs::path& path = saved.path;
  std::string bytes = ReadAll(path);
  const char* fields = bytes.data() + HeaderSize(kSignature) + 4;
  const uint64_t per_element = Get64(fields + 24);
  const uint64_t label_at = Get64(fields + 32);
  const size_t level0 = Level0At(bytes, kSignature);
  // Element 150 takes element 3's label.
  std::memcpy(bytes.data() + level0 + 150 * per_element + label_at,
              bytes.data() + level0 + 3 * per_element + label_at, 8);
  Reseal(bytes, kSignature);
  WriteAll(path, bytes);
  auto loaded = LoadIndexFile(path, kSignature, kStore, kDims, VerifyMode::kNow);
  EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
  EXPECT_NE(loaded.status().message().find("is stored twice"), std::string::npos)
      << loaded.status().message();
}

// An int8 index saves and loads with its encoding, answering the same.
TEST(IndexFileFormat, AnInt8HnswFileRoundTrips) {
  const std::vector<float> data = ClusteredVectors(400, kDims, 6, 10);
  const SavedHnsw saved(data, 400, {.encoding = VectorEncoding::kInt8});
  const fs::path& path = saved.path;
  auto loaded = LoadIndexFile(path, kSignature, kStore, kDims, VerifyMode::kNow);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const auto* hnsw = dynamic_cast<const HnswIndex*>(loaded->index.get());
  ASSERT_NE(hnsw, nullptr);
  EXPECT_EQ(hnsw->params().encoding, VectorEncoding::kInt8);
  for (size_t q = 0; q < 400; q += 31) {
    auto a = saved.index->Search(Row(data, kDims, q), 5);
    auto b = loaded->index->Search(Row(data, kDims, q), 5);
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_EQ(*a, *b);
  }
  // An unknown encoding is corrupt, not a crash.
  std::string bytes = ReadAll(path);
  bytes[HeaderSize(kSignature)] = 7;
  Reseal(bytes, kSignature);
  WriteAll(path, bytes);
  auto bad = LoadIndexFile(path, kSignature, kStore, kDims, VerifyMode::kNow);
  EXPECT_EQ(bad.status().code(), StatusCode::kCorruption);
  EXPECT_NE(bad.status().message().find("encoding"), std::string::npos) << bad.status().message();
}

INSTANTIATE_TEST_SUITE_P(AllKinds, IndexFileTest,
                         ::testing::Values(IndexKind::kFlat, IndexKind::kHnsw),
                         [](const auto& info) { return std::string(IndexKindName(info.param)); });

TEST(IndexFilePath, SanitisesTheSignatureAndKeepsNamesApart) {
  EXPECT_EQ(IndexFilePath("/w", "hash-v1-384", IndexKind::kHnsw),
            fs::path("/w/hash-v1-384.hnsw.idx"));
  const fs::path a = IndexFilePath("/w", "openai:nomic-embed-text:768", IndexKind::kFlat);
  const fs::path b = IndexFilePath("/w", "openai_nomic-embed-text_768", IndexKind::kFlat);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.filename().string().find(':'), std::string::npos);
  EXPECT_EQ(a.filename().string().rfind("openai_nomic-embed-text_768-", 0), 0u);
  const fs::path dots = IndexFilePath("/w", "../../etc/passwd", IndexKind::kFlat);
  EXPECT_EQ(dots.parent_path(), fs::path("/w"));
  EXPECT_NE(dots.filename().string()[0], '.');
  EXPECT_LT(
      IndexFilePath("/w", std::string(5000, 'x'), IndexKind::kFlat).filename().string().size(),
      140u);
}

// The hnsw payload follows hnswlib 0.6.2's saveIndex layout: 13 fields
// (offsetLevel0, max_elements, count, size_data_per_element, label_offset,
// offsetData, maxlevel, enterpoint, maxM, maxM0, M, mult, ef_construction),
// the level-0 block, then per element a u32 size and its upper links. (The
// test cannot include hnswlib itself: its header defines globals that
// libmnemo defines too, an ODR violation under ASan.)
TEST(IndexFileFormat, HnswPayloadHasHnswlibsSaveIndexLayout) {
  const fs::path dir =
      fs::temp_directory_path() / ("mnemo_hnsw_layout_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<float> data = ClusteredVectors(500, kDims, 10, 3);
  auto index = HnswIndex::Make(kDims, {.m = 12, .ef_construction = 50}).value();
  for (size_t i = 0; i < 500; ++i) ASSERT_TRUE(index->Upsert(i + 1, Row(data, kDims, i)).ok());
  const fs::path path = dir / "x.hnsw.idx";
  ASSERT_TRUE(SaveIndexFile(path, *index, "s", kStore, 1).ok());
  const std::string bytes = ReadAll(path);
  fs::remove_all(dir);
  uint32_t encoding = 9;
  std::memcpy(&encoding, bytes.data() + HeaderSize("s"), 4);
  EXPECT_EQ(encoding, static_cast<uint32_t>(VectorEncoding::kFloat32));
  const char* p = bytes.data() + HeaderSize("s") + 4;  // after the encoding
  auto u64 = [&](size_t at) { return Get64(p + at); };
  const size_t links0 = 2 * 12 * 4 + 4;
  const size_t per_element = links0 + kDims * 4 + 8;
  EXPECT_EQ(u64(0), 0u);                   // offsetLevel0
  EXPECT_EQ(u64(16), 500u);                // cur_element_count
  EXPECT_EQ(u64(24), per_element);         // size_data_per_element
  EXPECT_EQ(u64(32), links0 + kDims * 4);  // label_offset
  EXPECT_EQ(u64(40), links0);              // offsetData
  const size_t fields = 6 * 8 + 4 + 4 + 3 * 8 + 8 + 8;
  EXPECT_EQ(u64(56), 12u);  // maxM
  EXPECT_EQ(u64(64), 24u);  // maxM0
  EXPECT_EQ(u64(72), 12u);  // M
  EXPECT_EQ(u64(88), 50u);  // ef_construction
  // Format 4's padding puts the level-0 block at a multiple of 64 KiB.
  const size_t level0 = Level0At(bytes, "s");
  EXPECT_EQ(level0 % kLevel0Alignment, 0u);
  EXPECT_LT(level0 - (HeaderSize("s") + 4 + fields + 4), kLevel0Alignment);
  p = bytes.data() + level0 - fields;  // as if the block followed the fields
  // The label of element 0 sits at label_offset inside its level-0 record.
  EXPECT_EQ(Get64(p + fields + links0 + kDims * 4), 1u);
  size_t at = fields + 500 * per_element;
  for (size_t i = 0; i < 500; ++i) {
    uint32_t size;
    std::memcpy(&size, p + at, 4);
    ASSERT_EQ(size % (12 * 4 + 4), 0u);
    at += 4 + size;
  }
  EXPECT_EQ(level0 - fields + at, bytes.size());
}

}  // namespace
}  // namespace mnemo::index
