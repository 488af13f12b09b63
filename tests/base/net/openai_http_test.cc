// What the OpenAI-compatible clients share (base/net/openai_http.h).
#include "base/net/openai_http.h"

#include <gtest/gtest.h>

#include <string>

namespace mnemo::internal {
namespace {

TEST(OpenAiHttp, ARequestCarriesJsonTheKeyAndReplacesInvalidUtf8) {
  const HttpRequest r = OpenAiJsonRequest("http://127.0.0.1:9/v1/embeddings",
                                          {{"input", "caf\xC3"}}, 1234, "sk-test");
  EXPECT_EQ(r.url, "http://127.0.0.1:9/v1/embeddings");
  EXPECT_EQ(r.timeout_ms, 1234);
  EXPECT_EQ(r.body, "{\"input\":\"caf\xEF\xBF\xBD\"}");
  EXPECT_EQ(r.headers,
            (HttpHeaders{{"Accept", "application/json"}, {"Authorization", "Bearer sk-test"}}));
  EXPECT_EQ(OpenAiJsonRequest("u", nlohmann::json::object(), 1, "").headers,
            (HttpHeaders{{"Accept", "application/json"}}));
}

TEST(OpenAiHttp, ASnippetIsAShortJsonLiteral) {
  EXPECT_EQ(BodySnippet(""), "(empty body)");
  EXPECT_EQ(BodySnippet("line\nbreak"), "\"line\\nbreak\"");
  const std::string page = "<html>" + std::string(5000, 'x') + "</html>";
  const std::string cut = BodySnippet(page);
  EXPECT_EQ(cut.substr(0, 8), "\"<html>x");
  EXPECT_EQ(cut.substr(cut.size() - 3), "...");
  EXPECT_LE(cut.size(), 310u);
  // Never cut inside a code point: 299 bytes of 'a' then a 3-byte character.
  const std::string han = std::string(299, 'a') + "\xE4\xB8\xAD" + "tail";
  EXPECT_EQ(BodySnippet(han), "\"" + std::string(299, 'a') + "\"...");
}

TEST(OpenAiHttp, TheServersOwnExplanationIsQuoted) {
  EXPECT_EQ(ServerErrorText(R"({"error":{"message":"Incorrect API key provided"}})"),
            "\"Incorrect API key provided\"");
  EXPECT_EQ(ServerErrorText(R"({"error":"model \"nomic\" not found"})"),
            "\"model \\\"nomic\\\" not found\"");
  EXPECT_EQ(ServerErrorText("Bad Gateway"), "\"Bad Gateway\"");
}

TEST(OpenAiHttp, RetryAfterReadsSecondsOnly) {
  HttpResponse r;
  EXPECT_FALSE(RetryAfterSeconds(r).has_value());
  r.headers = {{"retry-after", "7"}};
  EXPECT_EQ(RetryAfterSeconds(r), 7);
  r.headers = {{"Retry-After", "Wed, 21 Oct 2026 07:28:00 GMT"}};
  EXPECT_FALSE(RetryAfterSeconds(r).has_value());
  r.headers = {{"Retry-After", "-1"}};
  EXPECT_FALSE(RetryAfterSeconds(r).has_value());
}

}  // namespace
}  // namespace mnemo::internal
