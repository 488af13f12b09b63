#include "text/secrets.h"

#include <gtest/gtest.h>

#include <string>

namespace mnemo::text {
namespace {

// The kind found in `text` and the exact secret it covers.
std::pair<std::string, std::string> Found(std::string_view text) {
  const auto m = FindSecret(text);
  if (!m) return {};
  return {std::string(m->kind), std::string(text.substr(m->start, m->end - m->start))};
}

using Kind = std::pair<std::string, std::string>;

TEST(Secrets, FindsBearerTokens) {
  EXPECT_EQ(Found("curl -H 'x' with Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc123 ok"),
            Kind("bearer token", "eyJhbGciOiJIUzI1NiJ9.e30.abc123"));
}

TEST(Secrets, FindsAuthorizationHeaders) {
  EXPECT_EQ(Found("GET /\nAuthorization: Basic dXNlcjpwYXNzd29yZA==\nHost: x"),
            Kind("authorization header", "Basic dXNlcjpwYXNzd29yZA=="));
  EXPECT_EQ(Found(R"({"Authorization": "Token abc123def456"})").first, "authorization header");
}

TEST(Secrets, FindsOpenAiKeys) {
  EXPECT_EQ(Found("key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t end"),
            Kind("OpenAI-style API key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t"));
}

TEST(Secrets, FindsGitHubTokens) {
  EXPECT_EQ(Found("push with ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789").first, "GitHub token");
  EXPECT_EQ(Found("github_pat_11ABCDEFG0123456789_abcdefghij").first, "GitHub token");
}

TEST(Secrets, FindsSlackTokens) {
  EXPECT_EQ(Found("xoxb-1234567890-abcdefghij").first, "Slack token");
  EXPECT_EQ(Found("xoxp-1234-5678-abcdef").first, "Slack token");
}

TEST(Secrets, FindsAwsAccessKeys) {
  EXPECT_EQ(Found("aws id AKIAIOSFODNN7EXAMPLE here"),
            Kind("AWS access key", "AKIAIOSFODNN7EXAMPLE"));
}

TEST(Secrets, FindsPrivateKeyBlocks) {
  const std::string pem =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
  EXPECT_EQ(Found("my key:\n" + pem + "\nthanks"), Kind("private key block", pem));
  EXPECT_EQ(Found("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk").first,
            "private key block");
  EXPECT_FALSE(FindSecret("-----BEGIN CERTIFICATE-----\nMIIB"));
}

TEST(Secrets, FindsPasswordAssignments) {
  EXPECT_EQ(Found("password=hunter2"), Kind("password assignment", "hunter2"));
  EXPECT_EQ(Found("DB_PASSWORD = 'correct horse'"), Kind("password assignment", "correct horse"));
  EXPECT_EQ(Found(R"({"passwd": "s3cr3t"})"), Kind("password assignment", "s3cr3t"));
  EXPECT_EQ(Found("pwd: Tr0ub4dor&3"), Kind("password assignment", "Tr0ub4dor&3"));
  EXPECT_EQ(Found("Password: hunter2"), Kind("password assignment", "hunter2"));
}

TEST(Secrets, FindsSecretTokenAndApiKeyAssignments) {
  EXPECT_EQ(Found("client_secret: abc123xyz"), Kind("secret assignment", "abc123xyz"));
  EXPECT_EQ(Found("https://x.io/cb?token=abc123&x=1"), Kind("token assignment", "abc123"));
  EXPECT_EQ(Found("githubToken := \"q1w2e3\""), Kind("token assignment", "q1w2e3"));
  EXPECT_EQ(Found("OPENAI_API_KEY=sk-test"), Kind("API key assignment", "sk-test"));
  EXPECT_EQ(Found("'api-key' => 'k-9'"), Kind("API key assignment", "k-9"));
}

TEST(Secrets, FindsHighEntropyTokensNextToKeywords) {
  EXPECT_EQ(Found("the deploy key is 9f8e7d6c5b4a39281716a5b4c3d2e1f0aa here").first,
            "high-entropy token");
  EXPECT_EQ(Found("my token is Zm9vYmFyYmF6cXV4/QW5vdGhlcjEyMzQ1Njc4OTA+ ok").first,
            "high-entropy token");
  // The same string without a keyword nearby is a hash, not a secret.
  EXPECT_FALSE(FindSecret("commit 9f8e7d6c5b4a39281716a5b4c3d2e1f0aa fixed it"));
}

TEST(Secrets, IgnoresOrdinaryProse) {
  for (const char* prose : {
           "the token ring network was popular in the 80s",
           "my password manager is great",
           "ask for a passport at the desk",
           "Password: must be at least 8 characters",
           "the bearer of bad news arrived",
           "Bearer bonds are rare",
           "authorization: pending approval from the manager",
           "secret santa is on friday",
           "a skeleton key and a sk-ater",
           "if (token == null) return; // compare tokens",
           "the tokenizer = icu word break",
           "password = ${DB_PASSWORD}",
           "password: [REDACTED]",
           "see /usr/local/lib/python3.11/site-packages/foo for the api",
           "服务器上的 deploy.py 永远不要给 Sarah 发邮件",
       }) {
    const auto m = FindSecret(prose);
    EXPECT_FALSE(m.has_value()) << prose << " -> " << (m ? m->kind : "");
  }
}

TEST(Secrets, RedactsEverySecretAndIsIdempotent) {
  int count = 0;
  const std::string text =
      "password=hunter2 and AKIAIOSFODNN7EXAMPLE then Authorization: Bearer abcDEF123456xyz";
  const std::string redacted = RedactSecrets(text, &count);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(redacted, "password=[REDACTED] and [REDACTED] then Authorization: [REDACTED]");
  int again = -1;
  EXPECT_EQ(RedactSecrets(redacted, &again), redacted);
  EXPECT_EQ(again, 0);
  EXPECT_EQ(RedactSecrets("nothing here", nullptr), "nothing here");
}

// Spec 30: redaction of a secret inside an edict keeps the punctuation that
// follows the secret.
TEST(Secrets, RedactionKeepsThePunctuationAfterTheSecret) {
  EXPECT_EQ(RedactSecrets("Never use password=hunter2abc.", nullptr),
            "Never use password=[REDACTED].");
  EXPECT_EQ(RedactSecrets("Never share my password: Hunter2!", nullptr),
            "Never share my password: [REDACTED]!");
  EXPECT_EQ(RedactSecrets("Don't log api_key=abc123XYZ?!", nullptr),
            "Don't log api_key=[REDACTED]?!");
  EXPECT_EQ(RedactSecrets("不要泄露 token=abc123XYZ。", nullptr), "不要泄露 token=[REDACTED]。");
  EXPECT_EQ(RedactSecrets("Never send Authorization: Bearer abcDEF123456xyz.", nullptr),
            "Never send Authorization: [REDACTED].");
  // Inside the value a dot is the secret's.
  EXPECT_EQ(Found("token=abc.def.123XYZ."), Kind("token assignment", "abc.def.123XYZ"));
  EXPECT_EQ(Found("password=x."), Kind("password assignment", "x"));
}

}  // namespace
}  // namespace mnemo::text
