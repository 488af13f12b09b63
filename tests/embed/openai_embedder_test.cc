#include "embed/openai_embedder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

#include "embed/local_embeddings_server.h"

namespace mnemo::embed {
namespace {

using ::testing::HasSubstr;
using testing::LocalEmbeddingsServer;

constexpr int kDim = 8;

std::unique_ptr<OpenAiEmbedder> Make(const LocalEmbeddingsServer& server,
                                     OpenAiEmbedderOptions options = {}) {
  options.base_url = server.base_url();
  if (options.model.empty()) options.model = "test-model";
  if (options.dimensions == 0) options.dimensions = kDim;
  options.retry_base_delay = std::chrono::milliseconds(1);
  auto embedder = OpenAiEmbedder::Create(std::move(options), internal::NewHttpClient());
  EXPECT_TRUE(embedder.ok()) << embedder.status().ToString();
  return std::move(embedder).value();
}

std::vector<std::string> Texts(int n) {
  std::vector<std::string> texts;
  for (int i = 0; i < n; ++i) texts.push_back("t" + std::to_string(i));
  return texts;
}

// The number VectorFor encoded in a (normalised) vector.
double Tag(const Vector& v) { return std::round(v[0] / v[1]); }

void AnswerStatus(httplib::Response& res, int status, std::string body = "{}") {
  res.status = status;
  res.set_content(body, "application/json");
}

TEST(OpenAiEmbedder, ReturnsNormalisedVectorsInInputOrder) {
  LocalEmbeddingsServer server(kDim);
  auto embedder = Make(server);
  const auto texts = Texts(5);
  auto vectors = embedder->Embed(texts);
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  ASSERT_EQ(vectors->size(), 5u);
  for (int i = 0; i < 5; ++i) {
    const Vector& v = (*vectors)[static_cast<size_t>(i)];
    ASSERT_EQ(v.size(), static_cast<size_t>(kDim));
    EXPECT_NEAR(Dot(v, v), 1.0, 1e-6);
    EXPECT_EQ(Tag(v), i);
  }
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/embeddings");
  EXPECT_EQ(requests[0].body["model"], "test-model");
  EXPECT_EQ(requests[0].body["input"], nlohmann::json(texts));
  EXPECT_FALSE(requests[0].body.contains("dimensions"));
  EXPECT_EQ(requests[0].authorization, "");
  EXPECT_EQ(embedder->signature(), "openai:test-model:8");
  EXPECT_EQ(embedder->dimensions(), kDim);
}

TEST(OpenAiEmbedder, SplitsIntoBatchesAndKeepsOrder) {
  LocalEmbeddingsServer server(kDim);
  auto embedder = Make(server, {.batch_size = 4});
  auto vectors = embedder->Embed(Texts(10));
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  ASSERT_EQ(vectors->size(), 10u);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(Tag((*vectors)[static_cast<size_t>(i)]), i);
  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);  // ceil(10 / 4)
  EXPECT_EQ(requests[0].body["input"], nlohmann::json({"t0", "t1", "t2", "t3"}));
  EXPECT_EQ(requests[1].body["input"], nlohmann::json({"t4", "t5", "t6", "t7"}));
  EXPECT_EQ(requests[2].body["input"], nlohmann::json({"t8", "t9"}));
}

TEST(OpenAiEmbedder, EmptyInputSendsNothing) {
  LocalEmbeddingsServer server(kDim);
  auto embedder = Make(server);
  auto vectors = embedder->Embed({});
  ASSERT_TRUE(vectors.ok());
  EXPECT_TRUE(vectors->empty());
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(OpenAiEmbedder, EmptyTextsAreNotSentAndGetZeroVectors) {
  LocalEmbeddingsServer server(kDim);
  auto embedder = Make(server);
  auto vectors = embedder->Embed(std::vector<std::string>{"", "t3", ""});
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  ASSERT_EQ(vectors->size(), 3u);
  EXPECT_EQ((*vectors)[0], Vector(kDim, 0.0f));
  EXPECT_EQ(Tag((*vectors)[1]), 3);
  EXPECT_EQ((*vectors)[2], Vector(kDim, 0.0f));
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.requests()[0].body["input"], nlohmann::json({"t3"}));
}

TEST(OpenAiEmbedder, InvalidUtf8IsSentAsReplacementCharacters) {
  LocalEmbeddingsServer server(kDim);
  auto embedder = Make(server);
  auto vectors = embedder->Embed(std::vector<std::string>{"bad \xff byte 1"});
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(server.requests()[0].body["input"][0], "bad \xEF\xBF\xBD byte 1");
}

TEST(OpenAiEmbedder, RetriesAfter429ThenSucceeds) {
  LocalEmbeddingsServer server([](int n, const nlohmann::json& body, httplib::Response& res) {
    if (n == 0) return AnswerStatus(res, 429, R"({"error":{"message":"slow down"}})");
    res.set_content(testing::EmbeddingsAnswer(body, kDim), "application/json");
  });
  auto embedder = Make(server);
  auto vectors = embedder->Embed(Texts(2));
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(Tag((*vectors)[1]), 1);
  EXPECT_EQ(server.request_count(), 2u);
}

TEST(OpenAiEmbedder, RetriesAfter503ThenSucceeds) {
  LocalEmbeddingsServer server([](int n, const nlohmann::json& body, httplib::Response& res) {
    if (n < 2) return AnswerStatus(res, 503, "busy");
    res.set_content(testing::EmbeddingsAnswer(body, kDim), "application/json");
  });
  auto embedder = Make(server);
  auto vectors = embedder->Embed(Texts(3));
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(OpenAiEmbedder, PersistentServerErrorIsUnavailableAfterRetries) {
  LocalEmbeddingsServer server([](int, const nlohmann::json&, httplib::Response& res) {
    AnswerStatus(res, 500, R"({"error":{"message":"model exploded"}})");
  });
  auto embedder = Make(server, {.max_retries = 3});
  auto vectors = embedder->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(vectors.status().message(), HasSubstr("HTTP 500 after 4 attempts"));
  EXPECT_THAT(vectors.status().message(), HasSubstr("model exploded"));
  EXPECT_EQ(server.request_count(), 4u);
}

TEST(OpenAiEmbedder, BacksOffExponentially) {
  LocalEmbeddingsServer server([](int, const nlohmann::json&, httplib::Response& res) {
    AnswerStatus(res, 502, "bad gateway");
  });
  OpenAiEmbedderOptions options{.base_url = server.base_url(),
                                .model = "m",
                                .dimensions = kDim,
                                .max_retries = 3,
                                .retry_base_delay = std::chrono::milliseconds(40)};
  auto embedder = OpenAiEmbedder::Create(options, internal::NewHttpClient());
  ASSERT_TRUE(embedder.ok());
  const auto start = std::chrono::steady_clock::now();
  ASSERT_FALSE((*embedder)->Embed(Texts(1)).ok());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(40 + 80 + 160));
  EXPECT_LT(elapsed, std::chrono::milliseconds(3000));
}

TEST(OpenAiEmbedder, HonoursRetryAfterUpToTheCap) {
  LocalEmbeddingsServer server([](int n, const nlohmann::json& body, httplib::Response& res) {
    if (n == 0) {
      res.set_header("Retry-After", "3600");
      return AnswerStatus(res, 429);
    }
    res.set_content(testing::EmbeddingsAnswer(body, kDim), "application/json");
  });
  auto embedder = Make(server, {.max_retry_delay = std::chrono::milliseconds(250)});
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(embedder->Embed(Texts(1)).ok());
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_GE(elapsed, std::chrono::milliseconds(250));   // not the 1 ms base delay
  EXPECT_LT(elapsed, std::chrono::milliseconds(3000));  // not an hour
}

TEST(OpenAiEmbedder, ClientErrorIsNotRetried) {
  LocalEmbeddingsServer server([](int, const nlohmann::json&, httplib::Response& res) {
    AnswerStatus(res, 401, R"({"error":{"message":"Incorrect API key provided"}})");
  });
  auto embedder = Make(server);
  auto vectors = embedder->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(vectors.status().message(), HasSubstr("HTTP 401"));
  EXPECT_THAT(vectors.status().message(), HasSubstr("Incorrect API key provided"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(OpenAiEmbedder, OllamaStyleErrorStringIsQuoted) {
  LocalEmbeddingsServer server([](int, const nlohmann::json&, httplib::Response& res) {
    AnswerStatus(res, 404, R"({"error":"model \"nomic\" not found, try pulling it first"})");
  });
  auto vectors = Make(server)->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_THAT(vectors.status().message(), HasSubstr("try pulling it first"));
}

TEST(OpenAiEmbedder, TimeoutIsUnavailableAndQuick) {
  LocalEmbeddingsServer server([](int, const nlohmann::json& body, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    res.set_content(testing::EmbeddingsAnswer(body, kDim), "application/json");
  });
  auto embedder = Make(server, {.timeout_ms = 200});
  const auto start = std::chrono::steady_clock::now();
  auto vectors = embedder->Embed(Texts(1));
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(vectors.status().message(), HasSubstr("127.0.0.1"));
  EXPECT_LT(elapsed, std::chrono::milliseconds(1000));
  EXPECT_EQ(server.request_count(), 1u);  // timeouts are not retried
}

TEST(OpenAiEmbedder, ConnectionRefusedIsUnavailable) {
  std::string base_url;
  {
    LocalEmbeddingsServer gone(kDim);
    base_url = gone.base_url();
  }
  auto embedder = OpenAiEmbedder::Create({.base_url = base_url, .model = "m", .dimensions = kDim},
                                         internal::NewHttpClient());
  ASSERT_TRUE(embedder.ok());
  auto vectors = (*embedder)->Embed(Texts(1));
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(vectors.status().message(), HasSubstr("127.0.0.1"));
}

TEST(OpenAiEmbedder, WrongDimensionIsUnavailableNamingBoth) {
  LocalEmbeddingsServer server(12);
  auto embedder = Make(server, {.dimensions = 8});
  auto vectors = embedder->Embed(Texts(2));
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(vectors.status().message(), HasSubstr("returned 12-dimensional vectors, expected 8"));
  EXPECT_THAT(vectors.status().message(), HasSubstr("embedding.dimensions"));
}

struct MalformedCase {
  const char* name;
  const char* body;
  const char* message;
};

class OpenAiEmbedderMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(OpenAiEmbedderMalformed, IsUnavailableWithAClearMessage) {
  const MalformedCase& c = GetParam();
  LocalEmbeddingsServer server([&c](int, const nlohmann::json&, httplib::Response& res) {
    res.set_content(c.body, "application/json");
  });
  auto vectors = Make(server, {.dimensions = 2})->Embed(Texts(2));
  ASSERT_FALSE(vectors.ok());
  EXPECT_EQ(vectors.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(vectors.status().message(), HasSubstr("malformed answer"));
  EXPECT_THAT(vectors.status().message(), HasSubstr(c.message));
  EXPECT_EQ(server.request_count(), 1u);  // a broken answer is not retried
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, OpenAiEmbedderMalformed,
    ::testing::Values(
        MalformedCase{"NotJson", "<html>502 Bad Gateway</html>", "not JSON"},
        MalformedCase{"Empty", "", "not JSON"},
        MalformedCase{"NoData", R"({"object":"list"})", "no \"data\" array"},
        MalformedCase{"DataNotArray", R"({"data":{"embedding":[1,2]}})", "no \"data\" array"},
        MalformedCase{"TopLevelArray", R"([[1,2],[3,4]])", "no \"data\" array"},
        MalformedCase{"TooFew", R"({"data":[{"index":0,"embedding":[1,2]}]})",
                      "1 embeddings for 2 inputs"},
        MalformedCase{"NonNumbers",
                      R"({"data":[{"index":0,"embedding":[1,"x"]},{"index":1,"embedding":[1,2]}]})",
                      "data[0].embedding[1] is not a number"},
        MalformedCase{
            "NullNumber",
            R"({"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[null,2]}]})",
            "data[1].embedding[0] is not a number"},
        MalformedCase{
            "Overflow",
            R"({"data":[{"index":0,"embedding":[1e300,2]},{"index":1,"embedding":[1,2]}]})",
            "not a number in float range"},
        MalformedCase{"Base64",
                      R"({"data":[{"index":0,"embedding":"AAAA"},{"index":1,"embedding":"AAAA"}]})",
                      "data[0].embedding is missing or not an array"},
        MalformedCase{"ItemNotObject", R"({"data":[[1,2],[3,4]]})", "data[0] is not an object"},
        MalformedCase{"IndexOutOfRange",
                      R"({"data":[{"index":0,"embedding":[1,2]},{"index":2,"embedding":[1,2]}]})",
                      "data[1].index is not an integer in [0, 2)"},
        MalformedCase{"IndexRepeated",
                      R"({"data":[{"index":1,"embedding":[1,2]},{"index":1,"embedding":[1,2]}]})",
                      "index 1 appears twice"}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(OpenAiEmbedder, MissingIndexMeansListOrder) {
  LocalEmbeddingsServer server([](int, const nlohmann::json&, httplib::Response& res) {
    res.set_content(R"({"data":[{"embedding":[5,1]},{"embedding":[7,1]}]})", "application/json");
  });
  auto vectors = Make(server, {.dimensions = 2})->Embed(Texts(2));
  ASSERT_TRUE(vectors.ok()) << vectors.status().ToString();
  EXPECT_EQ(Tag((*vectors)[0]), 5);
  EXPECT_EQ(Tag((*vectors)[1]), 7);
}

TEST(OpenAiEmbedder, SendsBearerTokenWhenKeySet) {
  LocalEmbeddingsServer server(kDim);
  auto embedder = Make(server, {.api_key = "sk-test-123"});
  ASSERT_TRUE(embedder->Embed(Texts(1)).ok());
  EXPECT_EQ(server.requests()[0].authorization, "Bearer sk-test-123");
}

TEST(OpenAiEmbedder, SendsDimensionsOnlyWhenAsked) {
  LocalEmbeddingsServer server(kDim);
  auto embedder = Make(server, {.send_dimensions = true});
  ASSERT_TRUE(embedder->Embed(Texts(1)).ok());
  EXPECT_EQ(server.requests()[0].body["dimensions"], kDim);
}

TEST(OpenAiEmbedder, AcceptsBaseUrlWithOrWithoutV1) {
  EXPECT_EQ(EmbeddingsEndpoint("http://h:11434"), "http://h:11434/v1/embeddings");
  EXPECT_EQ(EmbeddingsEndpoint("http://h:11434/"), "http://h:11434/v1/embeddings");
  EXPECT_EQ(EmbeddingsEndpoint("http://h:11434/v1"), "http://h:11434/v1/embeddings");
  EXPECT_EQ(EmbeddingsEndpoint("http://h:11434/v1/"), "http://h:11434/v1/embeddings");
  EXPECT_EQ(EmbeddingsEndpoint("https://api.openai.com/v1"),
            "https://api.openai.com/v1/embeddings");
  EXPECT_EQ(EmbeddingsEndpoint("http://h/proxy"), "http://h/proxy/v1/embeddings");

  LocalEmbeddingsServer server(kDim);
  auto embedder = OpenAiEmbedder::Create(
      {.base_url = server.base_url() + "/v1/", .model = "m", .dimensions = kDim},
      internal::NewHttpClient());
  ASSERT_TRUE(embedder.ok());
  ASSERT_TRUE((*embedder)->Embed(Texts(1)).ok());
  EXPECT_EQ(server.requests()[0].path, "/v1/embeddings");
}

TEST(OpenAiEmbedder, CreateRejectsBadOptionsNamingTheKey) {
  auto http = internal::NewHttpClient();
  const OpenAiEmbedderOptions good{.base_url = "http://localhost:1", .model = "m", .dimensions = 4};
  ASSERT_TRUE(OpenAiEmbedder::Create(good, http).ok());
  struct Case {
    OpenAiEmbedderOptions options;
    const char* field;
  };
  auto with = [&](auto edit) {
    OpenAiEmbedderOptions o = good;
    edit(o);
    return o;
  };
  const Case cases[] = {
      {with([](auto& o) { o.model = ""; }), "embedding.model"},
      {with([](auto& o) { o.base_url = ""; }), "embedding.base_url"},
      {with([](auto& o) { o.base_url = "ftp://h/"; }), "embedding.base_url"},
      {with([](auto& o) { o.base_url = "localhost:11434"; }), "embedding.base_url"},
      {with([](auto& o) { o.dimensions = 0; }), "embedding.dimensions"},
      {with([](auto& o) { o.timeout_ms = 0; }), "embedding.timeout_ms"},
      {with([](auto& o) { o.batch_size = 0; }), "embedding.batch_size"},
  };
  for (const Case& c : cases) {
    auto embedder = OpenAiEmbedder::Create(c.options, http);
    ASSERT_FALSE(embedder.ok()) << c.field;
    EXPECT_EQ(embedder.status().code(), StatusCode::kInvalidArgument) << c.field;
    EXPECT_EQ(embedder.status().field(), c.field);
    EXPECT_THAT(embedder.status().message(), HasSubstr(c.field));
  }
}

}  // namespace
}  // namespace mnemo::embed
