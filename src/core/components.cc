// The engine's parts built from the configuration (core/components.h).

#include "core/components.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "embed/hash_embedder.h"
#include "embed/openai_embedder.h"
#include "embed/word_embedder.h"
#include "embed/word_vectors.h"
#include "embed/word_vectors_build.h"

namespace mnemo {
namespace {

// OpenAI documents `dimensions` (shortened embeddings) for these models
// only; see openai_embedder.h for why other models never get the field.
bool SupportsDimensionsParameter(std::string_view model) {
  return model.starts_with("text-embedding-3");
}

Result<std::string> ReadApiKey(const std::string& variable) {
  if (variable.empty()) return std::string();
  const char* value = std::getenv(variable.c_str());
  if (value == nullptr || *value == '\0') {
    return InvalidArgument("embedding.api_key_env names the environment variable " + variable +
                               ", which is not set (or empty): set it to the API key, or "
                               "set embedding.api_key_env = \"\" for a server without one",
                           "embedding.api_key_env");
  }
  return std::string(value);
}

}  // namespace

std::string DefaultWordVectorsPath() {
  const char* dir = std::getenv("MNEMO_DATA_DIR");
  const std::string folder = dir != nullptr && *dir != '\0' ? dir : "/usr/share/mnemo";
  return folder + "/" + std::string(embed::kWordVectorsFileName);
}

Result<std::unique_ptr<embed::Embedder>> MakeEmbedder(const Config::Embedding& config,
                                                      std::shared_ptr<internal::HttpClient> http,
                                                      Logger* logger,
                                                      const std::string& verified_record) {
  if (config.provider == "none") return std::unique_ptr<embed::Embedder>();
  if (config.provider != "hash" && config.provider != "words" &&
      !IsSemanticProvider(config.provider)) {
    return InvalidArgument("embedding.provider \"" + config.provider +
                               "\" is invalid: use words, hash, openai, ollama or none",
                           "embedding.provider");
  }
  if (config.dimensions < 1 || config.dimensions > embed::kMaxDimensions) {
    return InvalidArgument("embedding.dimensions must be from 1 to " +
                               std::to_string(embed::kMaxDimensions) + ", got " +
                               std::to_string(config.dimensions),
                           "embedding.dimensions");
  }
  if (config.provider == "words") {
    if (!config.words_path.empty()) {
      auto vectors = embed::WordVectors::Open(config.words_path, verified_record);
      if (!vectors.ok()) {
        return InvalidArgument("embedding.words_path: " + vectors.status().message(),
                               "embedding.words_path");
      }
      return std::unique_ptr<embed::Embedder>(new embed::WordEmbedder(*std::move(vectors)));
    }
    const std::string path = DefaultWordVectorsPath();
    auto vectors = embed::WordVectors::Open(path, verified_record);
    if (vectors.ok())
      return std::unique_ptr<embed::Embedder>(new embed::WordEmbedder(*std::move(vectors)));
    // Once per process: a process that opens engines again and again (the
    // benchmark, a host embedding the library) gets one warning, not one per open.
    static std::atomic<bool> warned{false};
    if (logger != nullptr && !warned.exchange(true)) {
      logger->Log(LogLevel::kWarn,
                  vectors.status().message() +
                      ": using the hash embedder (lexical only); build the file with `mnemo "
                      "wordvectors build` or set embedding.words_path");
    }
    return std::unique_ptr<embed::Embedder>(
        new embed::HashEmbedder(static_cast<int>(config.dimensions)));
  }
  const int dimensions = static_cast<int>(config.dimensions);
  if (config.provider == "hash")
    return std::unique_ptr<embed::Embedder>(new embed::HashEmbedder(dimensions));

  MNEMO_ASSIGN_OR_RETURN(std::string api_key, ReadApiKey(config.api_key_env));
  // Ollama serves the OpenAI embeddings API; only its address is implied.
  const bool ollama_default = config.provider == "ollama" && config.base_url.empty();
  embed::OpenAiEmbedderOptions options{
      .base_url = ollama_default ? std::string(kOllamaBaseUrl) : config.base_url,
      .model = config.model,
      .dimensions = dimensions,
      .send_dimensions = SupportsDimensionsParameter(config.model),
      .api_key = std::move(api_key),
      .timeout_ms = config.timeout_ms,
      .batch_size = config.batch_size,
  };
  if (http == nullptr) http = internal::NewHttpClient();
  MNEMO_ASSIGN_OR_RETURN(auto embedder,
                         embed::OpenAiEmbedder::Create(std::move(options), std::move(http)));
  return std::unique_ptr<embed::Embedder>(std::move(embedder));
}

Result<index::IndexOptions> IndexOptionsFromConfig(const Config::Index& config) {
  index::IndexOptions options;
  if (config.kind == "auto") {
    options.kind = index::KindChoice::kAuto;
  } else if (config.kind == "flat") {
    options.kind = index::KindChoice::kFlat;
  } else if (config.kind == "hnsw") {
    options.kind = index::KindChoice::kHnsw;
  } else {
    return InvalidArgument("index.kind \"" + config.kind + "\" is invalid: use auto, flat or hnsw",
                           "index.kind");
  }
  if (config.hnsw_threshold < 0) {
    return InvalidArgument("index.hnsw_threshold must be 0 or more", "index.hnsw_threshold");
  }
  if (config.m < 2 || config.m > 1024) {
    return InvalidArgument("index.m is " + std::to_string(config.m) + ": use 2 to 1024", "index.m");
  }
  if (config.ef_construction < 1) {
    return InvalidArgument("index.ef_construction must be at least 1", "index.ef_construction");
  }
  if (config.ef_search < 1) {
    return InvalidArgument("index.ef_search must be at least 1", "index.ef_search");
  }
  options.hnsw_threshold = static_cast<size_t>(config.hnsw_threshold);
  options.hnsw.m = static_cast<size_t>(config.m);
  options.hnsw.ef_construction = static_cast<size_t>(config.ef_construction);
  options.hnsw.ef_search = static_cast<size_t>(config.ef_search);
  return options;
}

Result<std::unique_ptr<llm::ChatClient>> MakeChatClient(
    const Config::Llm& config, std::shared_ptr<internal::HttpClient> http) {
  if (config.base_url.empty()) return std::unique_ptr<llm::ChatClient>();
  llm::ChatOptions options{
      .base_url = config.base_url, .model = config.model, .timeout_ms = config.timeout_ms};
  if (!config.api_key_env.empty()) {
    const char* value = std::getenv(config.api_key_env.c_str());
    if (value == nullptr || *value == '\0') {
      return InvalidArgument("llm.api_key_env names the environment variable " +
                                 config.api_key_env +
                                 ", which is not set (or empty): set it to the API key, or "
                                 "set llm.api_key_env = \"\" for a server without one",
                             "llm.api_key_env");
    }
    options.api_key = value;
  }
  return llm::NewOpenAiChatClient(options, std::move(http));
}

Result<WordVectorFileReport> BuildWordVectorFile(std::FILE* in, std::string_view source_name,
                                                 const std::string& out_path) {
  MNEMO_ASSIGN_OR_RETURN(embed::WordVectorsBuildReport report,
                         embed::BuildWordVectors(in, source_name, out_path));
  return WordVectorFileReport{
      .words = report.words, .bytes = report.bytes, .checksum = std::move(report.checksum)};
}

Result<std::string> DescribeWordVectorFile(const std::string& path) {
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<const embed::WordVectors> vectors,
                         embed::WordVectors::Open(path));
  return vectors->source() + ", " + std::to_string(vectors->size()) + " words, " +
         std::to_string(vectors->dimensions()) + " dimensions, sha256 " + vectors->checksum();
}

}  // namespace mnemo
