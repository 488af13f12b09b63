#include "embed/embedder.h"

#include <cmath>
#include <cstdlib>

#include "embed/hash_embedder.h"
#include "embed/openai_embedder.h"

namespace mnemo::embed {
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

Result<std::unique_ptr<Embedder>> MakeEmbedder(const Config::Embedding& config,
                                               std::shared_ptr<internal::HttpClient> http) {
  if (config.provider == "none") return std::unique_ptr<Embedder>();
  if (config.provider != "hash" && config.provider != "openai") {
    return InvalidArgument(
        "embedding.provider \"" + config.provider + "\" is invalid: use hash, openai or none",
        "embedding.provider");
  }
  if (config.dimensions < 1 || config.dimensions > kMaxDimensions) {
    return InvalidArgument("embedding.dimensions must be from 1 to " +
                               std::to_string(kMaxDimensions) + ", got " +
                               std::to_string(config.dimensions),
                           "embedding.dimensions");
  }
  const int dimensions = static_cast<int>(config.dimensions);
  if (config.provider == "hash") return std::unique_ptr<Embedder>(new HashEmbedder(dimensions));

  MNEMO_ASSIGN_OR_RETURN(std::string api_key, ReadApiKey(config.api_key_env));
  OpenAiEmbedderOptions options{
      .base_url = config.base_url,
      .model = config.model,
      .dimensions = dimensions,
      .send_dimensions = SupportsDimensionsParameter(config.model),
      .api_key = std::move(api_key),
      .timeout_ms = config.timeout_ms,
      .batch_size = config.batch_size,
  };
  if (http == nullptr) http = internal::NewHttpClient();
  MNEMO_ASSIGN_OR_RETURN(auto embedder,
                         OpenAiEmbedder::Create(std::move(options), std::move(http)));
  return std::unique_ptr<Embedder>(std::move(embedder));
}

namespace {
constexpr std::string_view kExternalPrefix = "external:";
}  // namespace

std::string ExternalSignature(int dimensions) {
  return std::string(kExternalPrefix) + std::to_string(dimensions);
}
bool IsExternalSignature(std::string_view signature) {
  return signature.starts_with(kExternalPrefix);
}

bool NormalizeL2(std::span<float> v) {
  double norm2 = 0;
  for (float x : v) norm2 += static_cast<double>(x) * x;
  if (!(norm2 > 0) || !std::isfinite(norm2)) return false;
  const double scale = 1.0 / std::sqrt(norm2);
  for (float& x : v) x = static_cast<float>(x * scale);
  return true;
}

double Dot(std::span<const float> a, std::span<const float> b) {
  double sum = 0;
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

}  // namespace mnemo::embed
