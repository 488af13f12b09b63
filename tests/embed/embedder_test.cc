#include "embed/embedder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "core/components.h"
#include "embed/local_embeddings_server.h"

namespace mnemo::embed {
namespace {

using ::testing::HasSubstr;
using testing::LocalEmbeddingsServer;

Config::Embedding OpenAi(std::string base_url, std::string model = "nomic-embed-text",
                         int64_t dimensions = 768) {
  Config::Embedding config;
  config.provider = "openai";
  config.base_url = std::move(base_url);
  config.model = std::move(model);
  config.dimensions = dimensions;
  return config;
}

void ExpectConfigError(const Config::Embedding& config, std::string_view field,
                       std::string_view mentions = {}) {
  auto embedder = MakeEmbedder(config, nullptr);
  ASSERT_FALSE(embedder.ok()) << field;
  EXPECT_EQ(embedder.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(embedder.status().field(), field);
  EXPECT_THAT(embedder.status().message(), HasSubstr(std::string(field)));
  if (!mentions.empty()) {
    EXPECT_THAT(embedder.status().message(), HasSubstr(std::string(mentions)));
  }
}

TEST(MakeEmbedder, HashIs384) {
  Config::Embedding config;
  config.provider = "hash";
  auto embedder = MakeEmbedder(config, nullptr);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  ASSERT_NE(*embedder, nullptr);
  EXPECT_EQ((*embedder)->signature(), "hash-v2-384");
  EXPECT_EQ((*embedder)->dimensions(), 384);
}

TEST(MakeEmbedder, NoneGivesNoEmbedder) {
  Config::Embedding config;
  config.provider = "none";
  auto embedder = MakeEmbedder(config, nullptr);
  ASSERT_TRUE(embedder.ok());
  EXPECT_EQ(*embedder, nullptr);
}

TEST(MakeEmbedder, OpenAiSignatureNamesModelAndDimensions) {
  auto embedder = MakeEmbedder(OpenAi("http://localhost:11434"), nullptr);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  EXPECT_EQ((*embedder)->signature(), "openai:nomic-embed-text:768");
  EXPECT_EQ((*embedder)->dimensions(), 768);
}

TEST(MakeEmbedder, ConfigErrorsNameTheKey) {
  Config::Embedding bad_provider;
  bad_provider.provider = "word2vec";
  ExpectConfigError(bad_provider, "embedding.provider", "word2vec");
  Config::Embedding zero_dims;
  zero_dims.dimensions = 0;
  ExpectConfigError(zero_dims, "embedding.dimensions");
  Config::Embedding huge_dims;
  huge_dims.dimensions = int64_t{1} << 40;
  ExpectConfigError(huge_dims, "embedding.dimensions");
  ExpectConfigError(OpenAi("http://localhost:11434", ""), "embedding.model");
  ExpectConfigError(OpenAi(""), "embedding.base_url");
  ExpectConfigError(OpenAi("localhost:11434"), "embedding.base_url");
  auto no_timeout = OpenAi("http://localhost:11434");
  no_timeout.timeout_ms = 0;
  ExpectConfigError(no_timeout, "embedding.timeout_ms");
  auto no_batch = OpenAi("http://localhost:11434");
  no_batch.batch_size = -1;
  ExpectConfigError(no_batch, "embedding.batch_size");
}

TEST(MakeEmbedder, UnsetApiKeyVariableIsAnErrorNamingIt) {
  auto config = OpenAi("http://localhost:11434");
  config.api_key_env = "MNEMO_TEST_EMBED_KEY_THAT_IS_NOT_SET";
  ::unsetenv(config.api_key_env.c_str());
  ExpectConfigError(config, "embedding.api_key_env", "MNEMO_TEST_EMBED_KEY_THAT_IS_NOT_SET");
}

TEST(MakeEmbedder, ReadsApiKeyAtConstructionAndSendsIt) {
  LocalEmbeddingsServer server(4);
  auto config = OpenAi(server.base_url(), "m", 4);
  config.api_key_env = "MNEMO_TEST_EMBED_KEY";
  ::setenv("MNEMO_TEST_EMBED_KEY", "sk-from-env", 1);
  auto embedder = MakeEmbedder(config, nullptr);
  ::unsetenv("MNEMO_TEST_EMBED_KEY");  // read once, at construction
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  ASSERT_TRUE((*embedder)->Embed(std::vector<std::string>{"t1"}).ok());
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.requests()[0].authorization, "Bearer sk-from-env");
}

TEST(MakeEmbedder, SendsDimensionsOnlyToModelsDocumentedToAcceptIt) {
  LocalEmbeddingsServer server(4);
  for (const char* model : {"text-embedding-3-small", "nomic-embed-text"}) {
    auto embedder = MakeEmbedder(OpenAi(server.base_url(), model, 4), nullptr);
    ASSERT_TRUE(embedder.ok());
    ASSERT_TRUE((*embedder)->Embed(std::vector<std::string>{"t1"}).ok());
  }
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].body["dimensions"], 4);
  EXPECT_FALSE(requests[1].body.contains("dimensions"));
}

// Issue 21: provider "ollama" is the OpenAI-compatible embedder at Ollama's
// address unless base_url names another, with no key.
Config::Embedding Ollama(std::string base_url, std::string model, int64_t dimensions) {
  Config::Embedding config;
  config.provider = "ollama";
  config.base_url = std::move(base_url);
  config.model = std::move(model);
  config.dimensions = dimensions;
  return config;
}

TEST(MakeEmbedder, OllamaTalksToTheGivenServerWithoutAKey) {
  LocalEmbeddingsServer server(4);
  auto embedder = MakeEmbedder(Ollama(server.base_url(), "nomic-embed-text", 4), nullptr);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  EXPECT_EQ((*embedder)->signature(), "openai:nomic-embed-text:4");
  auto vectors = (*embedder)->Embed(std::vector<std::string>{"hello"});
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  ASSERT_EQ(vectors->size(), 1u);
  EXPECT_EQ((*vectors)[0].size(), 4u);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].authorization, "");
  EXPECT_EQ(requests[0].body["model"], "nomic-embed-text");
  EXPECT_FALSE(requests[0].body.contains("dimensions"));
}

TEST(MakeEmbedder, OllamaWithoutABaseUrlUsesOllamasAddress) {
  struct Recorder : internal::HttpClient {
    Result<internal::HttpResponse> Post(const internal::HttpRequest& request) override {
      url = request.url;
      return Unavailable("not here");
    }
    std::string url;
  };
  auto http = std::make_shared<Recorder>();
  auto embedder = MakeEmbedder(Ollama("", "nomic-embed-text", 768), http);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  EXPECT_FALSE((*embedder)->Embed(std::vector<std::string>{"hello"}).ok());
  EXPECT_EQ(http->url, "http://127.0.0.1:11434/v1/embeddings");
}

TEST(MakeEmbedder, OllamaNeedsAModelAndChecksTheDimensionOnTheFirstCall) {
  ExpectConfigError(Ollama("", "", 768), "embedding.model");
  LocalEmbeddingsServer server(4);
  auto embedder = MakeEmbedder(Ollama(server.base_url(), "nomic-embed-text", 768), nullptr);
  ASSERT_TRUE(embedder.ok()) << embedder.status().ToString();
  auto vectors = (*embedder)->Embed(std::vector<std::string>{"hello"});
  ASSERT_FALSE(vectors.ok());
  EXPECT_THAT(vectors.status().message(), HasSubstr("set embedding.dimensions = 4"));
}

TEST(ExternalSignature, NamesDimensions) { EXPECT_EQ(ExternalSignature(768), "external:768"); }

TEST(NormalizeL2, ScalesToUnitLengthAndLeavesZeroAlone) {
  Vector v = {3, 4};
  EXPECT_TRUE(NormalizeL2(v));
  EXPECT_FLOAT_EQ(v[0], 0.6f);
  EXPECT_FLOAT_EQ(v[1], 0.8f);
  Vector zero = {0, 0, 0};
  EXPECT_FALSE(NormalizeL2(zero));
  EXPECT_EQ(zero, Vector(3, 0.0f));
}

}  // namespace
}  // namespace mnemo::embed
