#include "embed/openai_embedder.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <thread>

#include <nlohmann/json.hpp>

#include "base/net/openai_http.h"

namespace mnemo::embed {
namespace {

using internal::HttpRequest;
using internal::HttpResponse;
using Json = nlohmann::json;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::string EmbeddingsEndpoint(std::string_view base_url) {
  while (!base_url.empty() && base_url.back() == '/') base_url.remove_suffix(1);
  return std::string(base_url) + (EndsWith(base_url, "/v1") ? "/embeddings" : "/v1/embeddings");
}

Result<std::unique_ptr<OpenAiEmbedder>> OpenAiEmbedder::Create(
    OpenAiEmbedderOptions options, std::shared_ptr<internal::HttpClient> http) {
  if (options.model.empty()) {
    return InvalidArgument("embedding.model is required for provider \"openai\"",
                           "embedding.model");
  }
  if (options.base_url.empty()) {
    return InvalidArgument(
        "embedding.base_url is required for provider \"openai\" (e.g. "
        "\"http://localhost:11434\")",
        "embedding.base_url");
  }
  const std::string endpoint = EmbeddingsEndpoint(options.base_url);
  if (auto url = internal::ParseHttpUrl(endpoint); !url.ok()) {
    return InvalidArgument("embedding.base_url: " + url.status().message(), "embedding.base_url");
  }
  if (options.dimensions < 1 || options.dimensions > kMaxDimensions) {
    return InvalidArgument("embedding.dimensions must be from 1 to " +
                               std::to_string(kMaxDimensions) + ", got " +
                               std::to_string(options.dimensions),
                           "embedding.dimensions");
  }
  if (options.timeout_ms <= 0) {
    return InvalidArgument("embedding.timeout_ms must be > 0", "embedding.timeout_ms");
  }
  if (options.batch_size <= 0) {
    return InvalidArgument("embedding.batch_size must be > 0", "embedding.batch_size");
  }
  if (http == nullptr) return Internal("OpenAiEmbedder needs an HttpClient");
  options.max_retries = std::max(options.max_retries, 0);
  return std::unique_ptr<OpenAiEmbedder>(new OpenAiEmbedder(std::move(options), std::move(http)));
}

OpenAiEmbedder::OpenAiEmbedder(OpenAiEmbedderOptions options,
                               std::shared_ptr<internal::HttpClient> http)
    : options_(std::move(options)),
      http_(std::move(http)),
      endpoint_(EmbeddingsEndpoint(options_.base_url)),
      signature_("openai:" + options_.model + ":" + std::to_string(options_.dimensions)) {}

Result<std::vector<Vector>> OpenAiEmbedder::Embed(std::span<const std::string> texts) {
  try {
    const auto dim = static_cast<size_t>(options_.dimensions);
    std::vector<Vector> out(texts.size());
    std::vector<const std::string*> inputs;
    std::vector<size_t> positions;
    for (size_t i = 0; i < texts.size(); ++i) {
      if (texts[i].empty()) {
        out[i].assign(dim, 0.0f);
      } else {
        inputs.push_back(&texts[i]);
        positions.push_back(i);
      }
    }
    const auto batch_size = static_cast<size_t>(options_.batch_size);
    std::vector<Vector> batch;
    for (size_t begin = 0; begin < inputs.size(); begin += batch_size) {
      const size_t n = std::min(batch_size, inputs.size() - begin);
      batch.assign(n, Vector());
      MNEMO_RETURN_IF_ERROR(EmbedBatch(std::span(inputs).subspan(begin, n), batch));
      for (size_t k = 0; k < n; ++k) out[positions[begin + k]] = std::move(batch[k]);
    }
    return out;
  } catch (const std::exception& e) {
    return Internal("embedding via " + endpoint_ + " failed unexpectedly: " + e.what());
  }
}

Status OpenAiEmbedder::EmbedBatch(std::span<const std::string* const> inputs,
                                  std::span<Vector> out) const {
  Json body = {{"model", options_.model}, {"input", Json::array()}};
  for (const std::string* text : inputs) body["input"].push_back(*text);
  if (options_.send_dimensions) body["dimensions"] = options_.dimensions;

  MNEMO_ASSIGN_OR_RETURN(
      HttpResponse response,
      Post(internal::OpenAiJsonRequest(endpoint_, body, options_.timeout_ms, options_.api_key)));

  const std::string where = "embedding server " + endpoint_ + " (model " + options_.model + ")";
  auto malformed = [&](const std::string& what) {
    return Unavailable(where + " sent a malformed answer: " + what);
  };
  const Json json = Json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return malformed("not JSON: " + internal::BodySnippet(response.body));
  const auto data = json.is_object() ? json.find("data") : json.end();
  if (data == json.end() || !data->is_array()) {
    return malformed("no \"data\" array: " + internal::BodySnippet(response.body));
  }
  if (data->size() != inputs.size()) {
    return malformed(std::to_string(data->size()) + " embeddings for " +
                     std::to_string(inputs.size()) + " inputs");
  }
  const auto dim = static_cast<size_t>(options_.dimensions);
  std::vector<bool> seen(inputs.size(), false);
  for (size_t i = 0; i < data->size(); ++i) {
    const Json& item = (*data)[i];
    const std::string name = "data[" + std::to_string(i) + "]";
    if (!item.is_object()) return malformed(name + " is not an object");
    size_t index = i;
    if (const auto it = item.find("index"); it != item.end()) {
      if (!it->is_number_integer() || it->get<int64_t>() < 0 ||
          it->get<int64_t>() >= static_cast<int64_t>(inputs.size())) {
        return malformed(name + ".index is not an integer in [0, " + std::to_string(inputs.size()) +
                         ")");
      }
      index = static_cast<size_t>(it->get<int64_t>());
    }
    if (seen[index]) return malformed("index " + std::to_string(index) + " appears twice");
    seen[index] = true;
    const auto embedding = item.find("embedding");
    if (embedding == item.end() || !embedding->is_array()) {
      return malformed(name + ".embedding is missing or not an array of numbers");
    }
    if (embedding->size() != dim) {
      return Unavailable(where + " returned " + std::to_string(embedding->size()) +
                         "-dimensional vectors, expected " + std::to_string(dim) +
                         ": set embedding.dimensions = " + std::to_string(embedding->size()) +
                         " (vectors are then re-embedded) or use a model of " +
                         std::to_string(dim) + " dimensions");
    }
    Vector& v = out[index];
    v.resize(dim);
    for (size_t k = 0; k < dim; ++k) {
      const Json& x = (*embedding)[k];
      const float value = x.is_number() ? static_cast<float>(x.get<double>()) : NAN;
      if (!std::isfinite(value)) {
        return malformed(name + ".embedding[" + std::to_string(k) +
                         "] is not a number in float range");
      }
      v[k] = value;
    }
    NormalizeL2(v);
  }
  return Status::Ok();
}

Result<HttpResponse> OpenAiEmbedder::Post(const HttpRequest& request) const {
  for (int attempt = 0;; ++attempt) {
    auto response = http_->Post(request);
    if (!response.ok()) {
      return Unavailable("embedding server unreachable: " + response.status().message());
    }
    const int status = response->status;
    if (status >= 200 && status < 300) return response;
    const bool retryable = status == 429 || (status >= 500 && status < 600);
    if (!retryable || attempt >= options_.max_retries) {
      return Unavailable(
          "embedding server " + endpoint_ + " answered HTTP " + std::to_string(status) +
          (attempt > 0 ? " after " + std::to_string(attempt + 1) + " attempts" : "") + ": " +
          internal::ServerErrorText(response->body));
    }
    auto delay = options_.retry_base_delay * (int64_t{1} << std::min(attempt, 20));
    if (const auto seconds = internal::RetryAfterSeconds(*response)) {
      delay = std::chrono::milliseconds(std::min<int64_t>(*seconds, 86400) * 1000);
    }
    std::this_thread::sleep_for(std::min(delay, options_.max_retry_delay));
  }
}

}  // namespace mnemo::embed
