#include "llm/chat_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/components.h"
#include "llm/local_chat_server.h"

namespace mnemo::llm {
namespace {

using ::testing::HasSubstr;
using testing::LocalChatServer;
using ::testing::Not;
using testing::Raw;
using testing::Reply;

constexpr char kKey[] = "sk-test-secret-0123456789";

std::unique_ptr<ChatClient> Make(const LocalChatServer& server, ChatOptions options = {}) {
  options.base_url = server.base_url();
  if (options.model.empty()) options.model = "test-model";
  auto client = NewOpenAiChatClient(options);
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return std::move(client).value();
}

const std::vector<ChatMessage> kHello = {{"system", "Be brief."}, {"user", "Say hello."}};

// The error of a call that must fail with kUnavailable.
std::string UnavailableMessage(const Result<std::string>& answer) {
  EXPECT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable) << answer.status().ToString();
  return answer.status().message();
}

TEST(ChatClient, ReturnsTheAnswerAndSendsModelMessagesMaxTokensAndKey) {
  LocalChatServer server("Hello there.");
  auto client = Make(server, {.model = "llama3", .api_key = kKey});
  auto answer = client->Complete(kHello, 123);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "Hello there.");

  const auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].path, "/v1/chat/completions");
  EXPECT_EQ(requests[0].authorization, std::string("Bearer ") + kKey);
  const nlohmann::json& body = requests[0].body;
  EXPECT_EQ(body["model"], "llama3");
  EXPECT_EQ(body["messages"], nlohmann::json::parse(R"([{"role":"system","content":"Be brief."},
                                                        {"role":"user","content":"Say hello."}])"));
  EXPECT_EQ(body["max_tokens"], 123);
  EXPECT_EQ(body["temperature"], 0);
}

TEST(ChatClient, SendsNoAuthorizationHeaderWithoutKey) {
  LocalChatServer server("ok");
  ASSERT_TRUE(Make(server)->Complete(kHello, 10).ok());
  ASSERT_EQ(server.request_count(), 1u);
  EXPECT_EQ(server.requests()[0].authorization, std::nullopt);
}

TEST(ChatClient, TrimsWhiteSpaceAndDropsALeadingThinkBlock) {
  LocalChatServer server([](int n, const nlohmann::json&) {
    return n == 0 ? Reply("\n  The recap.  \n")
                  : Reply("<think>\nThe user wants a recap.\n</think>\n\nThe recap.");
  });
  auto client = Make(server);
  EXPECT_EQ(client->Complete(kHello, 10).value(), "The recap.");
  EXPECT_EQ(client->Complete(kHello, 10).value(), "The recap.");
}

TEST(ChatClient, KeepsThinkTagsThatDoNotOpenTheAnswer) {
  LocalChatServer server("Use <think> tags for reasoning.</think> Done.");
  EXPECT_EQ(Make(server)->Complete(kHello, 10).value(),
            "Use <think> tags for reasoning.</think> Done.");
}

TEST(ChatClient, InvalidUtf8IsSentAsReplacementCharacters) {
  LocalChatServer server("ok");
  ASSERT_TRUE(Make(server)->Complete({{"user", "bad \xff byte"}}, 10).ok());
  EXPECT_EQ(server.requests()[0].body["messages"][0]["content"], "bad \xEF\xBF\xBD byte");
}

TEST(ChatClient, ServerErrorIsUnavailableNamingTheStatusAndReasonWithoutRetrying) {
  LocalChatServer server([](int, const nlohmann::json&) {
    return Raw(R"({"error":{"message":"model exploded"}})", 500);
  });
  const std::string message = UnavailableMessage(Make(server)->Complete(kHello, 10));
  EXPECT_THAT(message, HasSubstr("HTTP 500"));
  EXPECT_THAT(message, HasSubstr("model exploded"));
  EXPECT_THAT(message, HasSubstr(server.base_url() + "/chat/completions"));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(ChatClient, OllamaStyleErrorStringIsQuoted) {
  LocalChatServer server([](int, const nlohmann::json&) {
    return Raw(R"({"error":"model \"llama9\" not found, try pulling it first"})", 404);
  });
  const std::string message = UnavailableMessage(Make(server)->Complete(kHello, 10));
  EXPECT_THAT(message, HasSubstr("HTTP 404"));
  EXPECT_THAT(message, HasSubstr("try pulling it first"));
}

TEST(ChatClient, LongErrorPagesAreShortened) {
  LocalChatServer server([](int, const nlohmann::json&) {
    return Raw("<html>" + std::string(5000, 'x') + "</html>", 502);
  });
  const std::string message = UnavailableMessage(Make(server)->Complete(kHello, 10));
  EXPECT_THAT(message, HasSubstr("HTTP 502: \"<html>xxx"));
  EXPECT_THAT(message, HasSubstr("..."));
  EXPECT_LT(message.size(), 600u);
}

struct MalformedCase {
  const char* name;
  const char* body;
  const char* message;
};

class ChatClientMalformed : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(ChatClientMalformed, IsUnavailableAsAnInvalidResponse) {
  const MalformedCase& c = GetParam();
  LocalChatServer server([&c](int, const nlohmann::json&) { return Raw(c.body); });
  const std::string message = UnavailableMessage(Make(server)->Complete(kHello, 10));
  EXPECT_THAT(message, HasSubstr("invalid response from LLM server " + server.base_url() +
                                 "/chat/completions (model test-model)"));
  EXPECT_THAT(message, HasSubstr(c.message));
  EXPECT_EQ(server.request_count(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Bodies, ChatClientMalformed,
    ::testing::Values(
        MalformedCase{"NotJson", "<html>502 Bad Gateway</html>",
                      "not JSON: \"<html>502 Bad Gateway</html>\""},
        MalformedCase{"Empty", "", "not JSON: (empty body)"},
        MalformedCase{"Truncated", R"({"choices":[{"message":{"content":"hel)", "not JSON"},
        MalformedCase{"TopLevelArray", R"(["hello"])", "no \"choices\" array"},
        MalformedCase{"NoChoices", R"({"object":"chat.completion"})", "no \"choices\" array"},
        MalformedCase{"ChoicesEmpty", R"({"choices":[]})", "no \"choices\" array"},
        MalformedCase{"ChoicesNotArray", R"({"choices":{"message":{"content":"x"}}})",
                      "no \"choices\" array"},
        MalformedCase{"ChoiceNotObject", R"({"choices":["hello"]})",
                      "choices[0].message is missing or not an object"},
        MalformedCase{"NoMessage", R"({"choices":[{"text":"hello"}]})",
                      "choices[0].message is missing or not an object"},
        MalformedCase{"NoContent", R"({"choices":[{"message":{"role":"assistant"}}]})",
                      "choices[0].message.content is missing or not a string"},
        MalformedCase{"NullContent",
                      R"({"choices":[{"message":{"role":"assistant","content":null}}]})",
                      "choices[0].message.content is missing or not a string"},
        MalformedCase{"NumberContent", R"({"choices":[{"message":{"content":42}}]})",
                      "choices[0].message.content is missing or not a string"},
        MalformedCase{"ArrayContent",
                      R"({"choices":[{"message":{"content":[{"type":"text","text":"x"}]}}]})",
                      "choices[0].message.content is missing or not a string"}),
    [](const ::testing::TestParamInfo<MalformedCase>& info) { return info.param.name; });

TEST(ChatClient, EmptyAnswerIsUnavailable) {
  LocalChatServer server([](int n, const nlohmann::json&) {
    if (n == 0) return Reply("");
    if (n == 1) return Reply(" \n\t ");
    if (n == 2) return Reply("<think>still thinking about it");
    return Raw(testing::CompletionBody("", "length"));
  });
  auto client = Make(server);
  for (int i = 0; i < 3; ++i) {
    const std::string message = UnavailableMessage(client->Complete(kHello, 10));
    EXPECT_THAT(message, HasSubstr("returned an empty answer")) << i;
    EXPECT_THAT(message, Not(HasSubstr("max_tokens"))) << i;
  }
  EXPECT_THAT(UnavailableMessage(client->Complete(kHello, 10)),
              HasSubstr("returned an empty answer (cut off by max_tokens)"));
}

TEST(ChatClient, TimeoutIsUnavailableAndQuick) {
  LocalChatServer server(
      [](int, const nlohmann::json&) { return testing::Slow(std::chrono::seconds(5), "late"); });
  auto client = Make(server, {.timeout_ms = 200});
  const auto start = std::chrono::steady_clock::now();
  auto answer = client->Complete(kHello, 10);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  const std::string message = UnavailableMessage(answer);
  EXPECT_THAT(message, HasSubstr(server.base_url() + "/chat/completions"));
  EXPECT_THAT(message, HasSubstr("unreachable"));
  EXPECT_THAT(message, HasSubstr("timeout 200 ms"));
  EXPECT_GE(elapsed, std::chrono::milliseconds(150));
  EXPECT_LT(elapsed, std::chrono::milliseconds(1000));
  EXPECT_EQ(server.request_count(), 1u);
}

TEST(ChatClient, UnreachablePortIsUnavailable) {
  std::string base_url;
  {
    LocalChatServer gone("never");
    base_url = gone.base_url();
  }
  auto client = NewOpenAiChatClient({.base_url = base_url, .model = "m", .timeout_ms = 2000});
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  const std::string message = UnavailableMessage((*client)->Complete(kHello, 10));
  EXPECT_THAT(message, HasSubstr(base_url + "/chat/completions"));
  EXPECT_THAT(message, HasSubstr("connection failed"));
}

TEST(ChatClient, ApiKeyNeverAppearsInErrorMessages) {
  const std::string key = kKey;
  const std::vector<testing::ChatAnswer> answers = {
      Raw(R"({"error":{"message":"Incorrect API key provided: )" + key + R"("}})", 401),
      Raw("forbidden for Bearer " + key + " and again " + key, 403),
      Raw("<html>echo: Authorization: Bearer " + key, 200),
      Raw(R"({"echo":")" + key + R"("})", 200),
      testing::Slow(std::chrono::seconds(5), "late"),
  };
  LocalChatServer server([&answers](int n, const nlohmann::json&) {
    return answers[static_cast<size_t>(n) % answers.size()];
  });
  auto client = Make(server, {.api_key = key, .timeout_ms = 200});
  for (size_t i = 0; i < answers.size(); ++i) {
    const std::string message = UnavailableMessage(client->Complete(kHello, 10));
    EXPECT_THAT(message, Not(HasSubstr(key))) << message;
    EXPECT_THAT(message, Not(HasSubstr("0123456789"))) << message;
    if (i < 4) {
      EXPECT_THAT(message, HasSubstr("[REDACTED]")) << message;
    }
  }
  EXPECT_EQ(server.request_count(), answers.size());
  for (const auto& request : server.requests()) {
    EXPECT_EQ(request.authorization, "Bearer " + key);  // the key was really sent each time
  }

  std::string gone_url;
  {
    LocalChatServer gone("never");
    gone_url = gone.base_url();
  }
  auto unreachable = NewOpenAiChatClient({.base_url = gone_url, .model = "m", .api_key = key});
  ASSERT_TRUE(unreachable.ok());
  EXPECT_THAT(UnavailableMessage((*unreachable)->Complete(kHello, 10)), Not(HasSubstr(key)));
}

TEST(ChatClient, CompleteRejectsNoMessagesAndNonPositiveMaxTokens) {
  LocalChatServer server("ok");
  auto client = Make(server);
  auto no_messages = client->Complete({}, 10);
  ASSERT_FALSE(no_messages.ok());
  EXPECT_EQ(no_messages.status().code(), StatusCode::kInvalidArgument);
  auto zero_tokens = client->Complete(kHello, 0);
  ASSERT_FALSE(zero_tokens.ok());
  EXPECT_EQ(zero_tokens.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(zero_tokens.status().message(), HasSubstr("max_tokens must be >= 1, got 0"));
  EXPECT_EQ(server.request_count(), 0u);
}

TEST(ChatClient, ServesManyThreadsAtOnce) {
  LocalChatServer server([](int, const nlohmann::json& body) {
    return Reply("echo " + body["messages"][0]["content"].get<std::string>());
  });
  auto client = Make(server);
  constexpr int kThreads = 8;
  std::vector<std::string> answers(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto answer = client->Complete({{"user", std::to_string(t)}}, 10);
      answers[static_cast<size_t>(t)] = answer.ok() ? *answer : answer.status().ToString();
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(answers[static_cast<size_t>(t)], "echo " + std::to_string(t));
  }
  EXPECT_EQ(server.request_count(), static_cast<size_t>(kThreads));
}

TEST(ChatClient, EndpointAcceptsBaseUrlWithOrWithoutV1) {
  EXPECT_EQ(ChatCompletionsEndpoint("http://h:11434"), "http://h:11434/v1/chat/completions");
  EXPECT_EQ(ChatCompletionsEndpoint("http://h:11434/"), "http://h:11434/v1/chat/completions");
  EXPECT_EQ(ChatCompletionsEndpoint("http://h:11434/v1"), "http://h:11434/v1/chat/completions");
  EXPECT_EQ(ChatCompletionsEndpoint("http://h:11434/v1//"), "http://h:11434/v1/chat/completions");
  EXPECT_EQ(ChatCompletionsEndpoint("https://openrouter.ai/api/v1"),
            "https://openrouter.ai/api/v1/chat/completions");
  EXPECT_EQ(ChatCompletionsEndpoint("https://example.com/v1beta/openai/"),
            "https://example.com/v1beta/openai/chat/completions");

  LocalChatServer server("ok");
  const std::string root = "http://127.0.0.1:" + std::to_string(server.port());
  for (const std::string& base_url : {root, root + "/", root + "/v1/"}) {
    auto client = NewOpenAiChatClient({.base_url = base_url, .model = "m"});
    ASSERT_TRUE(client.ok()) << base_url;
    EXPECT_TRUE((*client)->Complete(kHello, 10).ok()) << base_url;
  }
  for (const auto& request : server.requests()) EXPECT_EQ(request.path, "/v1/chat/completions");
  EXPECT_EQ(server.request_count(), 3u);
}

TEST(ChatClient, NewRejectsBadOptionsNamingTheKey) {
  const ChatOptions good{.base_url = "http://localhost:1/v1", .model = "m"};
  ASSERT_TRUE(NewOpenAiChatClient(good).ok());
  struct Case {
    ChatOptions options;
    const char* field;
  };
  auto with = [&](auto edit) {
    ChatOptions o = good;
    edit(o);
    return o;
  };
  const Case cases[] = {
      {with([](auto& o) { o.base_url = ""; }), "llm.base_url"},
      {with([](auto& o) { o.base_url = "ftp://h/v1"; }), "llm.base_url"},
      {with([](auto& o) { o.base_url = "localhost:11434"; }), "llm.base_url"},
      {with([](auto& o) { o.base_url = "http://:80/v1"; }), "llm.base_url"},
      {with([](auto& o) { o.model = ""; }), "llm.model"},
      {with([](auto& o) { o.timeout_ms = 0; }), "llm.timeout_ms"},
      {with([](auto& o) { o.api_key = std::string(kKey) + "\n"; }), "llm.api_key_env"},
  };
  for (const Case& c : cases) {
    auto client = NewOpenAiChatClient(c.options);
    ASSERT_FALSE(client.ok()) << c.field;
    EXPECT_EQ(client.status().code(), StatusCode::kInvalidArgument) << c.field;
    EXPECT_EQ(client.status().field(), c.field);
    EXPECT_THAT(client.status().message(), HasSubstr(c.field));
    EXPECT_THAT(client.status().message(), Not(HasSubstr(kKey)));
  }
}

TEST(ChatClient, MakeChatClientReadsTheKeyFromTheNamedVariable) {
  Config::Llm config;
  auto none = MakeChatClient(config);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);  // no llm.base_url: no LLM

  LocalChatServer server("ok");
  config.base_url = server.base_url();
  config.model = "m";
  config.api_key_env = "MNEMO_CHAT_CLIENT_TEST_KEY";
  ::unsetenv(config.api_key_env.c_str());
  auto unset = MakeChatClient(config);
  ASSERT_FALSE(unset.ok());
  EXPECT_EQ(unset.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unset.status().field(), "llm.api_key_env");
  EXPECT_THAT(unset.status().message(), HasSubstr("MNEMO_CHAT_CLIENT_TEST_KEY"));

  ASSERT_EQ(::setenv(config.api_key_env.c_str(), kKey, 1), 0);
  auto client = MakeChatClient(config);
  ::unsetenv(config.api_key_env.c_str());
  ASSERT_TRUE(client.ok()) << client.status().ToString();
  ASSERT_NE(*client, nullptr);
  ASSERT_TRUE((*client)->Complete(kHello, 10).ok());
  EXPECT_EQ(server.requests()[0].authorization, std::string("Bearer ") + kKey);

  config.model = "";
  config.api_key_env = "";
  auto no_model = MakeChatClient(config);
  ASSERT_FALSE(no_model.ok());
  EXPECT_EQ(no_model.status().field(), "llm.model");
}

using Turns = std::vector<std::pair<std::string, std::string>>;

TEST(RecapPrompt, AsksForAFactualSummaryWithinTheBudgetInTheConversationsLanguage) {
  const auto prompt = RecapPrompt({{"user", "hi"}}, 750);
  ASSERT_EQ(prompt.size(), 2u);
  EXPECT_EQ(prompt[0].role, "system");
  EXPECT_EQ(prompt[1].role, "user");
  EXPECT_THAT(prompt[0].content, HasSubstr("summary"));
  EXPECT_THAT(prompt[0].content, HasSubstr("at most about 750 tokens"));
  EXPECT_THAT(prompt[0].content, HasSubstr("same language as the conversation"));
  EXPECT_THAT(prompt[0].content, HasSubstr("do not invent"));
}

TEST(RecapPrompt, ContainsEveryTurnInOrder) {
  const Turns turns = {{"user", "Let's use PostgreSQL."},
                       {"assistant", "Noted: PostgreSQL 16."},
                       {"user", "我决定用 Rust。\nSecond line."},
                       {"assistant", "好的。"},
                       {"tool", "exit 0"}};
  EXPECT_EQ(RecapPrompt(turns, 2000)[1].content,
            "User: Let's use PostgreSQL.\n"
            "Assistant: Noted: PostgreSQL 16.\n"
            "User: 我决定用 Rust。\nSecond line.\n"
            "Assistant: 好的。\n"
            "Tool: exit 0");
}

TEST(RecapPrompt, DropsTheOldestTurnsWhenOverFourBytesPerToken) {
  // 13 + 1 + 15 + 1 + 10 = 40 bytes.
  const Turns turns = {{"user", "aaaaaaa"}, {"assistant", "bbbb"}, {"user", "cccc"}};
  EXPECT_EQ(RecapPrompt(turns, 10)[1].content, "User: aaaaaaa\nAssistant: bbbb\nUser: cccc");
  EXPECT_EQ(RecapPrompt(turns, 9)[1].content, "Assistant: bbbb\nUser: cccc");
  EXPECT_EQ(RecapPrompt(turns, 6)[1].content, "User: cccc");
  EXPECT_EQ(RecapPrompt(turns, 2)[1].content, "User: …");  // 8 bytes: not even one whole turn
}

TEST(RecapPrompt, CutsTheFrontOfALastTurnThatAloneIsTooLong) {
  const Turns turns = {{"user", "old"}, {"assistant", std::string(100, 'x') + "END"}};
  const std::string transcript = RecapPrompt(turns, 5)[1].content;
  EXPECT_EQ(transcript, "Assistant: …xxxEND");
  EXPECT_EQ(transcript.size(), 20u);

  // Never splits a UTF-8 sequence: 16 bytes leave room for 7 of the 12 bytes.
  EXPECT_EQ(RecapPrompt({{"user", "éééééé"}}, 4)[1].content, "User: …ééé");
}

TEST(RecapPrompt, NonPositiveBudgetCountsAsOneToken) {
  const Turns turns = {{"user", "abcdefgh"}};
  EXPECT_EQ(RecapPrompt(turns, 0)[1].content, RecapPrompt(turns, 1)[1].content);
  EXPECT_EQ(RecapPrompt(turns, -5)[1].content, "User: …");
  EXPECT_THAT(RecapPrompt(turns, 0)[0].content, HasSubstr("at most about 1 tokens"));
}

TEST(RecapPrompt, NoTurnsGiveAnEmptyTranscript) {
  const auto prompt = RecapPrompt({}, 100);
  ASSERT_EQ(prompt.size(), 2u);
  EXPECT_EQ(prompt[1].content, "");
}

}  // namespace
}  // namespace mnemo::llm
