// The engine's parts built from the configuration: the embedder, the
// vector index options and the LLM client. `embed`, `index` and `llm` take
// their own options (OpenAiEmbedderOptions, index::IndexOptions,
// llm::ChatOptions) and know nothing of mnemo.toml; the keys are read and
// checked here, and each error names its key ("embedding.provider").
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "base/net/http_client.h"
#include "embed/embedder.h"
#include "index/index_factory.h"
#include "llm/chat_client.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"

namespace mnemo {

// Where embedding.provider = "ollama" finds its server when embedding.base_url
// is empty: Ollama's own default address, OpenAI-compatible under /v1.
inline constexpr std::string_view kOllamaBaseUrl = "http://127.0.0.1:11434/v1";

// Whether embedding.provider names a semantic embedder (a model behind an
// OpenAI-compatible server), not the lexical hash or the word vectors.
inline bool IsSemanticProvider(std::string_view provider) {
  return provider == "openai" || provider == "ollama";
}

// Builds the embedder that `config` asks for: nullptr for provider "none".
// kInvalidArgument (field = the config key) for an unknown provider,
// dimensions outside [1, embed::kMaxDimensions], a missing embedding.model or
// embedding.base_url for "openai", non-positive timeout_ms or batch_size,
// or an api_key_env naming a variable that is not set (read here, once).
// `http` is used by "openai"; nullptr means NewHttpClient().
// The result is not cached: wrap it in a CachingEmbedder where repeats are
// likely and embedding is expensive.
// Provider "words" (the default): the word-vector file at
// embedding.words_path, which must then open (kInvalidArgument, field
// "embedding.words_path", naming the path and what is wrong); with no path,
// DefaultWordVectorsPath(), and when that file is missing or unusable one
// warning on `logger` (the first time in the process only) and the hash
// embedder, as before word vectors.
// `verified_record`: the word-vector file's verification record
// (embed/word_vectors_verified.h; the engine's is kWordVectorsRecordName in
// the workspace); empty = the file's checksum is taken at every open.
Result<std::unique_ptr<embed::Embedder>> MakeEmbedder(
    const Config::Embedding& config, std::shared_ptr<internal::HttpClient> http = nullptr,
    Logger* logger = nullptr, const std::string& verified_record = {});

// The workspace file that remembers which word-vector file passed its
// checksum, so that later opens of the same file skip the hash.
inline constexpr std::string_view kWordVectorsRecordName = "wordvectors.verified";

// Where provider "words" looks when embedding.words_path is empty:
// $MNEMO_DATA_DIR/<embed::kWordVectorsFileName> when that variable is set,
// else /usr/share/mnemo/<embed::kWordVectorsFileName> (the Debian package's).
std::string DefaultWordVectorsPath();

// `mnemo wordvectors build`: converts the package's JSON read from `in`
// (`source_name` names it in errors) into the word-vector file `out_path`
// (temp file + rename: a failed conversion never replaces a good file).
// The CLI reaches the embed layer through these two, never directly.
struct WordVectorFileReport {
  uint32_t words = 0;
  uint64_t bytes = 0;    // the written file's size
  std::string checksum;  // SHA-256 of its body, hex
};
Result<WordVectorFileReport> BuildWordVectorFile(std::FILE* in, std::string_view source_name,
                                                 const std::string& out_path);

// `mnemo wordvectors info`: opens and verifies the file at `path` (every check
// the engine makes) and describes it: "<source>, <n> words, <d> dimensions,
// sha256 <hex>". The loader's error when it does not open.
Result<std::string> DescribeWordVectorFile(const std::string& path);

// Validates `[index]`: kind auto|flat|hnsw, hnsw_threshold >= 0, m in
// [2, 1024], ef_construction and ef_search >= 1. kInvalidArgument names the
// key ("index.kind") otherwise.
Result<index::IndexOptions> IndexOptionsFromConfig(const Config::Index& config);

// The client `config` asks for: nullptr when llm.base_url is empty (no LLM:
// extractive recaps). Reads the key from the environment variable named by
// llm.api_key_env, once, here; kInvalidArgument (field "llm.api_key_env")
// when that variable is unset or empty, plus llm::NewOpenAiChatClient's errors.
Result<std::unique_ptr<llm::ChatClient>> MakeChatClient(
    const Config::Llm& config, std::shared_ptr<internal::HttpClient> http = nullptr);

}  // namespace mnemo
