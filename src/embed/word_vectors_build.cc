#include "embed/word_vectors_build.h"

#include <sys/stat.h>

#include <cmath>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "embed/word_vectors.h"

namespace mnemo::embed {
namespace {

using Json = nlohmann::json;

const std::set<std::string, std::less<>>& KnownKeys() {
  static const auto* keys =
      new std::set<std::string, std::less<>>{"precision",  "l2NormIndex", "wordIndex", "size",
                                             "dimensions", "words",       "vectors",   "unkVector"};
  return *keys;
}

// A SAX handler for the package's one object; the first problem stops the
// parse and is kept in `error`.
class WinkHandler final : public nlohmann::json_sax<Json> {
 public:
  std::string error;
  int64_t size = -1;
  int64_t dimensions = -1;
  std::vector<std::string> words;
  std::vector<std::string> vector_words;  // in the order the vectors came
  std::vector<float> values;              // each vector's `dimensions` values, in that order
  std::vector<int64_t> indexes;           // each vector's index into `words`
  bool saw_words = false;
  bool saw_vectors = false;

  bool null() override { return Fail("null is not expected in the word-vector JSON"); }
  bool boolean(bool /*v*/) override { return Fail("a boolean is not expected"); }
  bool number_integer(number_integer_t v) override { return Number(static_cast<double>(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Number(static_cast<double>(v)); }
  bool number_float(number_float_t v, const string_t& /*s*/) override { return Number(v); }
  bool binary(binary_t& /*b*/) override { return Fail("binary values are not expected"); }

  bool string(string_t& s) override {
    if (depth_ == 2 && key_ == "words" && in_array_) {
      if (s.empty()) return Fail("\"words\" holds an empty word");
      words.push_back(std::move(s));
      return true;
    }
    return Fail("a string is not expected under \"" + key_ + "\"");
  }

  bool start_object(std::size_t /*n*/) override {
    ++depth_;
    if (depth_ == 1) return true;
    if (depth_ == 2 && key_ == "vectors") {
      saw_vectors = true;
      return true;
    }
    return Fail("an object is not expected under \"" + key_ + "\"");
  }

  bool key(string_t& k) override {
    if (depth_ == 1) {
      if (!KnownKeys().contains(k)) {
        return Fail("unknown key \"" + k +
                    "\": expected precision, l2NormIndex, wordIndex, size, dimensions, words, "
                    "vectors, unkVector");
      }
      key_ = std::move(k);
      return true;
    }
    vector_word_ = std::move(k);
    return true;
  }

  bool end_object() override {
    --depth_;
    return true;
  }

  bool start_array(std::size_t /*n*/) override {
    ++depth_;
    if (depth_ == 2 && (key_ == "words" || key_ == "unkVector")) {
      if (key_ == "words") saw_words = true;
      in_array_ = true;
      return true;
    }
    if (depth_ == 3 && key_ == "vectors") {
      in_array_ = true;
      current_.clear();
      return true;
    }
    return Fail("an array is not expected under \"" + key_ + "\"");
  }

  bool end_array() override {
    --depth_;
    in_array_ = false;
    if (depth_ == 2 && key_ == "vectors") {
      // dimensions values, then the norm, then the index.
      if (dimensions <= 0) return Fail("\"dimensions\" must come before \"vectors\"");
      if (static_cast<int64_t>(current_.size()) != dimensions + 2) {
        return Fail("the vector of \"" + vector_word_ + "\" has " +
                    std::to_string(current_.size()) + " values, expected " +
                    std::to_string(dimensions + 2) + " (dimensions, norm, index)");
      }
      const double index = current_.back();
      if (index < 0 || index != std::floor(index)) {
        return Fail("the vector of \"" + vector_word_ + "\" has a bad index");
      }
      for (int64_t i = 0; i < dimensions; ++i) values.push_back(static_cast<float>(current_[i]));
      indexes.push_back(static_cast<int64_t>(index));
      vector_words.push_back(std::move(vector_word_));
    }
    return true;
  }

  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override {
    if (error.empty()) {
      error = "not valid JSON at byte " + std::to_string(position) + " (" + ex.what() + ")";
    }
    return false;
  }

 private:
  bool Fail(std::string why) {
    if (error.empty()) error = std::move(why);
    return false;
  }

  bool Number(double v) {
    if (!std::isfinite(v)) return Fail("a number that is not finite");
    if (depth_ == 1) {
      if (key_ == "size") size = static_cast<int64_t>(v);
      if (key_ == "dimensions") {
        dimensions = static_cast<int64_t>(v);
        if (dimensions != kWordVectorsDimensions) {
          return Fail("\"dimensions\" is " + std::to_string(dimensions) + ", expected " +
                      std::to_string(kWordVectorsDimensions));
        }
      }
      return true;
    }
    if (depth_ == 2 && key_ == "unkVector") return true;
    if (depth_ == 3 && key_ == "vectors") {
      current_.push_back(v);
      return true;
    }
    return Fail("a number is not expected under \"" + key_ + "\"");
  }

  int depth_ = 0;
  std::string key_;
  std::string vector_word_;
  bool in_array_ = false;
  std::vector<double> current_;
};

}  // namespace

Result<WordVectorsBuildReport> BuildWordVectors(std::FILE* in, std::string_view source_name,
                                                const std::string& out_path) {
  const std::string what = "word-vector source " + std::string(source_name) + ": ";
  WinkHandler h;
  bool parsed = false;
  try {
    parsed = Json::sax_parse(in, &h);
  } catch (const std::exception& e) {
    if (h.error.empty()) h.error = e.what();
  }
  if (!parsed || !h.error.empty()) {
    return InvalidArgument(what + (h.error.empty() ? "not valid JSON" : h.error) +
                           "; expected the JSON file of the npm package " +
                           std::string(kWordVectorsSource));
  }
  auto bad = [&](const std::string& why) {
    return InvalidArgument(what + why + "; expected the JSON file of the npm package " +
                           std::string(kWordVectorsSource));
  };
  if (!h.saw_words || !h.saw_vectors || h.size < 0 || h.dimensions < 0)
    return bad("missing keys (it needs size, dimensions, words and vectors)");
  if (static_cast<int64_t>(h.words.size()) != h.size)
    return bad("\"size\" is " + std::to_string(h.size) + " but \"words\" holds " +
               std::to_string(h.words.size()));
  if (h.vector_words.size() != h.words.size())
    return bad("\"words\" holds " + std::to_string(h.words.size()) + " words but \"vectors\" " +
               std::to_string(h.vector_words.size()));
  const auto dims = static_cast<size_t>(h.dimensions);
  std::vector<float> ordered(h.words.size() * dims);
  std::vector<bool> seen(h.words.size(), false);
  for (size_t v = 0; v < h.vector_words.size(); ++v) {
    const auto index = static_cast<size_t>(h.indexes[v]);
    if (index >= h.words.size() || seen[index] || h.words[index] != h.vector_words[v])
      return bad("the vector of \"" + h.vector_words[v] + "\" names index " +
                 std::to_string(h.indexes[v]) + ", which is not that word's place in \"words\"");
    seen[index] = true;
    std::copy_n(h.values.begin() + static_cast<std::ptrdiff_t>(v * dims), dims,
                ordered.begin() + static_cast<std::ptrdiff_t>(index * dims));
  }
  h.values.clear();
  h.values.shrink_to_fit();
  MNEMO_RETURN_IF_ERROR(WriteWordVectors(out_path, h.words, ordered, static_cast<uint32_t>(dims),
                                         kWordVectorsSource));
  MNEMO_ASSIGN_OR_RETURN(auto written, WordVectors::Open(out_path));
  return WordVectorsBuildReport{
      .words = written->size(), .bytes = written->file_bytes(), .checksum = written->checksum()};
}

}  // namespace mnemo::embed
