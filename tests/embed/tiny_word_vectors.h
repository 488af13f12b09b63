// A small word-vector source of the npm package's shape (word_vectors_build.h)
// for tests: a few groups of related words, each group along its own axis, so
// that words of one group have cosine 0.84 and words of different groups
// 0.22 (a component every word shares, as in real vectors). Function words
// come first (most frequent) on an axis of their own.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace mnemo::testing {

inline const std::vector<std::vector<std::string>>& TinyWordGroups() {
  static const auto* groups = new std::vector<std::vector<std::string>>{
      {"the", "a", "of", "does", "what", "kind", "own", "in", "is", "did", "which"},
      {"dog", "puppy", "retriever", "hound"},
      {"car", "automobile", "vehicle", "truck"},
      {"violin", "guitar", "instrument", "instruments"},
      {"son", "children", "daughter", "kids"},
  };
  return *groups;
}

// Words of no group ("pad0", ...) that follow the function words, so that
// the groups' words have the frequency ranks (and SIF weights) of real
// content words.
inline constexpr int kTinyPadding = 1000;

// The source JSON; `dimensions` and `drop_key` let tests spoil it.
inline std::string TinyWordVectorsJson(int dimensions = 100, const std::string& drop_key = "") {
  std::vector<std::string> words;
  std::vector<std::vector<double>> vectors;
  int unique = 10;
  for (size_t g = 0; g < TinyWordGroups().size(); ++g) {
    if (g == 1) {
      for (int p = 0; p < kTinyPadding; ++p) {
        std::vector<double> v(static_cast<size_t>(dimensions), 0.0);
        v[static_cast<size_t>(50 + p % 40) % static_cast<size_t>(dimensions)] = 1.0;
        v[static_cast<size_t>(dimensions) - 1] = 0.6;
        words.push_back("pad" + std::to_string(p));
        vectors.push_back(v);
      }
    }
    for (const std::string& w : TinyWordGroups()[g]) {
      std::vector<double> v(static_cast<size_t>(dimensions), 0.0);
      v[g % static_cast<size_t>(dimensions)] = 1.0;
      v[static_cast<size_t>(unique++) % static_cast<size_t>(dimensions)] = 0.5;
      v[static_cast<size_t>(dimensions) - 1] = 0.6;  // what every word shares
      words.push_back(w);
      vectors.push_back(v);
    }
  }
  std::string out = "{\"precision\":8,\"l2NormIndex\":" + std::to_string(dimensions) +
                    ",\"wordIndex\":" + std::to_string(dimensions + 1) +
                    ",\"size\":" + std::to_string(words.size()) +
                    ",\"dimensions\":" + std::to_string(dimensions);
  if (drop_key != "words") {
    out += ",\"words\":[";
    for (size_t i = 0; i < words.size(); ++i) out += (i ? ",\"" : "\"") + words[i] + "\"";
    out += "]";
  }
  if (drop_key != "vectors") {
    out += ",\"vectors\":{";
    for (size_t i = 0; i < words.size(); ++i) {
      out += (i ? ",\"" : "\"") + words[i] + "\":[";
      for (double x : vectors[i]) out += std::to_string(x) + ",";
      out += "1.118," + std::to_string(i) + "]";
    }
    out += "}";
  }
  out += ",\"unkVector\":[";
  for (int i = 0; i < dimensions; ++i) out += "0,";
  out += "-1]}";
  return out;
}

inline void WriteText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

}  // namespace mnemo::testing
