// OpenAiEmbedder: any OpenAI-compatible embeddings endpoint (spec 20):
// Ollama, llama.cpp server, vLLM, LM Studio, OpenAI.
//
// Wire: POST <endpoint> with
//   {"model": "<model>", "input": ["text", ...]}            (+ "dimensions")
// and "Authorization: Bearer <key>" when a key is set; the answer's
// data[].embedding arrays are put in input order by data[].index.
//  - endpoint: base_url without trailing '/', + "/embeddings" when it ends
//    in "/v1", else + "/v1/embeddings". So "http://localhost:11434",
//    "http://localhost:11434/" and "http://localhost:11434/v1" all mean
//    http://localhost:11434/v1/embeddings.
//  - "dimensions" is sent only when `send_dimensions` is set (MakeEmbedder in
//    core/components.h sets it for OpenAI's text-embedding-3-* models, the ones documented to
//    shorten their output). Other servers reject the field or ignore it
//    (vLLM answers 400 for models without Matryoshka support; older OpenAI
//    models reject it), and a silently ignored value would only surface as a
//    dimension mismatch anyway. Every returned vector's length is checked
//    against `dimensions` whatever was sent.
//  - texts are sent in batches of `batch_size`, one request at a time; empty
//    texts are not sent (servers reject them) and get the zero vector.
//  - a 429 or 5xx answer is retried up to `max_retries` times, waiting
//    retry_base_delay * 2^attempt, or the answer's Retry-After seconds; both
//    capped at max_retry_delay. Transport errors (refused, timeout) are not
//    retried: the server is down or too slow, and the engine already keeps
//    the vector pending and fills it later.
//  - every failure is kUnavailable (the caller did nothing wrong; the engine
//    degrades to keyword search): transport errors, 4xx/5xx (message quotes
//    the server's error message), a body that is not the expected JSON, a
//    wrong count, a non-number, or a vector whose length is not
//    `dimensions` (the message names the expected and the received length
//    and the config key to change).
// Returned vectors are L2-normalised here (servers differ on whether they
// normalise).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "base/net/http_client.h"
#include "embed/embedder.h"

namespace mnemo::embed {

struct OpenAiEmbedderOptions {
  std::string base_url;  // required
  std::string model;     // required
  int dimensions = 0;    // required, > 0: the expected vector length
  bool send_dimensions = false;
  std::string api_key;  // the key itself; empty: no Authorization header
  int64_t timeout_ms = 10000;
  int64_t batch_size = 64;
  int max_retries = 3;
  std::chrono::milliseconds retry_base_delay{100};
  std::chrono::milliseconds max_retry_delay{5000};
};

// "http://h:1/v1/embeddings" for base_url "http://h:1", "http://h:1/" or
// "http://h:1/v1" (see above).
std::string EmbeddingsEndpoint(std::string_view base_url);

class OpenAiEmbedder final : public Embedder {
 public:
  // kInvalidArgument (field = the embedding.* key) for a missing model,
  // an unusable base_url, dimensions outside [1, kMaxDimensions], or a
  // non-positive timeout or batch size. `http` must not be null.
  static Result<std::unique_ptr<OpenAiEmbedder>> Create(OpenAiEmbedderOptions options,
                                                        std::shared_ptr<internal::HttpClient> http);

  const std::string& signature() const override { return signature_; }
  int dimensions() const override { return options_.dimensions; }
  Result<std::vector<Vector>> Embed(std::span<const std::string> texts) override;

 private:
  OpenAiEmbedder(OpenAiEmbedderOptions options, std::shared_ptr<internal::HttpClient> http);

  // Sends `inputs` in one request (with retries) and writes their vectors
  // to `out` (same size, same order).
  Status EmbedBatch(std::span<const std::string* const> inputs, std::span<Vector> out) const;
  // The 2xx answer to `request`, retrying 429 and 5xx; any other answer or
  // the last retry's failure becomes kUnavailable.
  Result<internal::HttpResponse> Post(const internal::HttpRequest& request) const;

  OpenAiEmbedderOptions options_;
  std::shared_ptr<internal::HttpClient> http_;
  std::string endpoint_;
  std::string signature_;
};

}  // namespace mnemo::embed
