#include "storage/values.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "mnemo/limits.h"
#include "storage/context_event_store.h"
#include "storage/entry_store.h"
#include "storage/episodic_store.h"
#include "storage/rules/erasure.h"

namespace mnemo {
namespace {

// A refusal names the field and says what is allowed.
void ExpectRefused(const Status& s, const std::string& field, const std::string& says) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_EQ(s.field(), field) << s.message();
  EXPECT_NE(s.message().find(says), std::string::npos) << s.message();
}

TEST(Values, QueryAtTheLimitParsesOnePastIsRefused) {
  const std::string at(kMaxContentBytes, 'q');
  auto ok = Query::Parse(at);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->view().size(), kMaxContentBytes);
  EXPECT_EQ(ok->view().data(), at.data());  // a view: nothing copied
  ExpectRefused(Query::Parse(at + "q").status(), "query", std::to_string(kMaxContentBytes));
  ExpectRefused(Query::Parse(" \t\n").status(), "query", "whitespace");
  ExpectRefused(Query::Parse("").status(), "query", "whitespace");
}

TEST(Values, KeyAtTheLimitParsesOnePastIsRefused) {
  auto ok = Key::Parse(std::string(kMaxKeyBytes, 'k'));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->str(), std::string(kMaxKeyBytes, 'k'));
  ExpectRefused(Key::Parse(std::string(kMaxKeyBytes + 1, 'k')).status(), "key",
                std::to_string(kMaxKeyBytes));
  ExpectRefused(Key::Parse("\xE3\x80\x80").status(), "key", "blank");
  EXPECT_EQ(Key::Parse("\xC3\x28").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Key::Parse("\xC3\x28").status().field(), "key");
  // The caller names the parameter.
  EXPECT_EQ(Key::Parse("", "agent_id").status().field(), "agent_id");
}

TEST(Values, NamespaceAtTheLimitParsesOnePastIsRefused) {
  EXPECT_TRUE(Namespace::Parse(std::string(kMaxNamespaceBytes, 'n')).ok());
  ExpectRefused(Namespace::Parse(std::string(kMaxNamespaceBytes + 1, 'n')).status(), "namespace",
                std::to_string(kMaxNamespaceBytes));
  EXPECT_EQ(Namespace::Parse("").status().field(), "namespace");
  EXPECT_EQ(Namespace::Parse("a b").status().field(), "namespace");
  EXPECT_EQ(Namespace::Parse("\xC3\x28").status().field(), "namespace");
}

TEST(Values, SessionIdAtTheLimitParsesOnePastIsRefused) {
  auto ok = SessionId::Parse(std::string(kMaxKeyBytes, 's'));
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  std::string taken = std::move(*ok).take();
  EXPECT_EQ(taken.size(), kMaxKeyBytes);
  ExpectRefused(SessionId::Parse(std::string(kMaxKeyBytes + 1, 's')).status(), "session_id",
                std::to_string(kMaxKeyBytes));
  ExpectRefused(SessionId::Parse("  ").status(), "session_id", "blank");
  EXPECT_EQ(SessionId::Parse("\xC3\x28").status().field(), "session_id");
}

TEST(Values, TurnIdAtTheLimitParsesOnePastIsRefused) {
  EXPECT_TRUE(TurnId::Parse(std::string(kMaxTurnIdBytes, 't')).ok());
  ExpectRefused(TurnId::Parse(std::string(kMaxTurnIdBytes + 1, 't')).status(), "turn_id",
                std::to_string(kMaxTurnIdBytes));
  ExpectRefused(TurnId::Parse("").status(), "turn_id", std::to_string(kMaxTurnIdBytes));
  ExpectRefused(TurnId::Parse("\xC3\x28").status(), "turn_id", "UTF-8");
}

TEST(Values, CategoryAtTheLimitParsesOnePastIsRefused) {
  EXPECT_TRUE(Category::Parse(std::string(kMaxCategoryBytes, 'c')).ok());
  ExpectRefused(Category::Parse(std::string(kMaxCategoryBytes + 1, 'c')).status(), "category",
                std::to_string(kMaxCategoryBytes));
  ExpectRefused(Category::Parse("").status(), "category", "core, daily, conversation");
  ExpectRefused(Category::Parse("Core!").status(), "category", "[a-z0-9_-]");
  EXPECT_EQ(Category::Parse("\xC3\x28").status().field(), "category");
  EXPECT_EQ(Category::Parse("x y", "facet_type").status().field(), "facet_type");
}

TEST(Values, PrincipalIdAtTheLimitParsesOnePastIsRefused) {
  // Four-byte characters up to the limit: bytes are counted, not characters.
  std::string at;
  while (at.size() + 4 <= kMaxPrincipalBytes) at += "\xF0\x9F\x98\x80";
  at.append(kMaxPrincipalBytes - at.size(), 'p');
  auto ok = PrincipalId::Parse(at);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->str(), at);
  ExpectRefused(PrincipalId::Parse(at + "p").status(), "principal",
                std::to_string(kMaxPrincipalBytes + 1) + " bytes long: a principal name is 1-" +
                    std::to_string(kMaxPrincipalBytes) + " bytes");
  // The caller names the parameter.
  ExpectRefused(PrincipalId::Parse(std::string(kMaxPrincipalBytes + 1, 'o'), "owner").status(),
                "owner", std::to_string(kMaxPrincipalBytes));
}

TEST(Values, PrincipalIdRefusesBlankControlCharactersAndInvalidUtf8) {
  ExpectRefused(PrincipalId::Parse("").status(), "principal", "must not be blank");
  ExpectRefused(PrincipalId::Parse(" \t").status(), "principal", "must not be blank");
  ExpectRefused(PrincipalId::Parse("\xE3\x80\x80").status(), "principal", "must not be blank");
  // One line: no newline, tab or other control character.
  for (const char* name : {"ali\nce", "ali\rce", "ali\tce",
                           "ali\x01"
                           "ce",
                           "ali\x7f"
                           "ce"}) {
    ExpectRefused(PrincipalId::Parse(name, "owner").status(), "owner",
                  "contains a control character: a principal name is 1-" +
                      std::to_string(kMaxPrincipalBytes) + " bytes of UTF-8 text on one line");
  }
  ExpectRefused(PrincipalId::Parse("ali\xC3\x28", "owner").status(), "owner", "is not valid UTF-8");
  // What is allowed: any printable text, spaces inside included.
  for (const char* name : {"alice", "local", "team:ops", "Zoë Müller", "user@example.com"}) {
    EXPECT_TRUE(PrincipalId::Parse(name).ok()) << name;
  }
}

// The stores take the checked values, and only Parse makes one: an
// identifier from a request cannot reach the turn path or an entry lookup
// unchecked, so the stores check nothing again. (On a tree where the stores
// take strings this file does not compile.)
TEST(Values, TheStoresTakeOnlyParsedIdentifiers) {
  static_assert(!std::is_constructible_v<TurnId, std::string>);
  static_assert(!std::is_constructible_v<TurnId, std::string_view>);
  static_assert(!std::is_default_constructible_v<TurnId>);
  static_assert(!std::is_constructible_v<SessionId, std::string>);
  static_assert(!std::is_default_constructible_v<SessionId>);
  static_assert(!std::is_default_constructible_v<storage::TurnKey>);
  using Store = storage::EpisodicStore;
  static_assert(!std::is_invocable_v<decltype(&Store::SessionTurns), Store&, std::string_view,
                                     std::string_view, int64_t, int64_t>);
  static_assert(std::is_invocable_v<decltype(&Store::SessionTurns), Store&, std::string_view,
                                    const SessionId&, int64_t, int64_t>);
  static_assert(
      !std::is_invocable_v<decltype(&Store::OpenSegment), Store&, std::string_view, std::string>);
  static_assert(std::is_invocable_v<decltype(&Store::OpenSegment), Store&, std::string_view,
                                    const SessionId&>);
  static_assert(!std::is_invocable_v<decltype(&Store::StepSegment), Store&, std::string_view,
                                     std::string_view, const Store::SegmentDecision&>);
  // The other store methods that take a session from a request: a segment
  // listing's session filter, a turn search's, a session's erasure.
  static_assert(!std::is_invocable_v<decltype(&Store::Segments), Store&, bool, std::string_view,
                                     std::optional<std::string_view>>);
  static_assert(!std::is_invocable_v<decltype(&Store::Segments), Store&, bool, std::string_view,
                                     std::string>);
  static_assert(std::is_invocable_v<decltype(&Store::Segments), Store&, bool, std::string_view,
                                    const SessionId&>);
  static_assert(std::is_invocable_v<decltype(&Store::Segments), Store&, bool, std::string_view,
                                    std::nullopt_t>);
  static_assert(std::is_same_v<decltype(storage::TurnQuery::session_id), std::optional<SessionId>>);
  static_assert(!std::is_assignable_v<std::optional<SessionId>&, std::string>);
  static_assert(std::is_same_v<decltype(storage::SessionErasure::session_id), SessionId>);
  static_assert(!std::is_default_constructible_v<storage::SessionErasure>);
  // A rule capture's session (the turn's, parsed at memory.turn_complete).
  static_assert(std::is_same_v<decltype(storage::RuleCaptureWrite::session_id), SessionId>);
  static_assert(!std::is_default_constructible_v<storage::RuleCaptureWrite>);
  static_assert(
      !std::is_invocable_v<decltype(&Store::AddRuleCapture), Store&, const storage::RuleCapture&>);
  static_assert(std::is_invocable_v<decltype(&Store::AddRuleCapture), Store&,
                                    const storage::RuleCaptureWrite&>);
  // A context window's reads and its prune.
  using Events = storage::ContextEventStore;
  static_assert(!std::is_invocable_v<decltype(&Events::ContextEvents), Events&, std::string_view,
                                     std::string_view>);
  static_assert(std::is_invocable_v<decltype(&Events::ContextEvents), Events&, std::string_view,
                                    const SessionId&>);
  static_assert(!std::is_invocable_v<decltype(&Events::DeleteContextEventsUpTo), Events&,
                                     std::string_view, std::string_view, int64_t>);
  static_assert(
      std::is_same_v<decltype(storage::ContextEventQuery::session_id), std::optional<SessionId>>);
  using Entries = storage::EntryStore;
  static_assert(!std::is_invocable_v<decltype(&Entries::FindExact), Entries&, std::string_view,
                                     std::string_view, std::string_view>);
  static_assert(std::is_invocable_v<decltype(&Entries::FindExact), Entries&, std::string_view,
                                    const Namespace&, const Key&>);
  static_assert(!std::is_invocable_v<decltype(&Entries::Resolve), Entries&, std::string_view,
                                     std::string_view, const storage::ReadScope&>);
  static_assert(!std::is_constructible_v<Key, std::string>);
  static_assert(!std::is_constructible_v<Namespace, std::string>);
  // What the type stands for: the parse is the one door, and it refuses.
  EXPECT_FALSE(TurnId::Parse("").ok());
  EXPECT_FALSE(TurnId::Parse(std::string(kMaxTurnIdBytes + 1, 't')).ok());
  EXPECT_FALSE(SessionId::Parse(" ").ok());
}

}  // namespace
}  // namespace mnemo
