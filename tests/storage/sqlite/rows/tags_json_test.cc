#include "storage/sqlite/rows/tags_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

namespace mnemo::storage::internal {
namespace {

using ::testing::ElementsAre;

// The values SQLite's json_each() reads from `json`, as a tag filter does.
std::vector<std::string> JsonEach(const std::string& json) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT value FROM json_each(?)", -1, &stmt, nullptr),
            SQLITE_OK);
  sqlite3_bind_text(stmt, 1, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
  std::vector<std::string> out;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
                     static_cast<size_t>(sqlite3_column_bytes(stmt, 0)));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return out;
}

// The bytes the hand-written codec stored before nlohmann::json replaced it,
// for what tags can hold (UTF-8 without control characters): the same bytes
// now, so existing rows and new rows compare and filter alike.
TEST(TagsJson, WritesTheBytesTheEarlierCodecStored) {
  EXPECT_EQ(EncodeTags({}), "[]");
  EXPECT_EQ(EncodeTags({""}), R"([""])");
  EXPECT_EQ(EncodeTags({"a", "b"}), R"(["a","b"])");
  EXPECT_EQ(EncodeTags({"say \"hi\""}), R"(["say \"hi\""])");
  EXPECT_EQ(EncodeTags({"back\\slash", "\\\\"}), R"(["back\\slash","\\\\"])");
  EXPECT_EQ(EncodeTags({"slash/ok", "del\x7f"}), "[\"slash/ok\",\"del\x7f\"]");
  EXPECT_EQ(EncodeTags({"caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "\xf0\x9f\x98\x80"}),
            "[\"caf\xc3\xa9\",\"\xe6\x97\xa5\xe6\x9c\xac\",\"\xf0\x9f\x98\x80\"]");
}

// Control characters (facet evidence may hold a tab or a newline) are
// escaped in nlohmann's short forms where the earlier codec wrote \u00XX;
// both spellings read back as the same strings, here and in SQLite.
TEST(TagsJson, ReadsControlCharactersInBothEscapeForms) {
  const std::vector<std::string> tags = {
      "tab\there", "nl\nx", "cr\r", "bs\b", "ff\f", std::string("z\0y", 3), "\x01\x1f"};
  const std::string now = EncodeTags(tags);
  EXPECT_EQ(now, R"(["tab\there","nl\nx","cr\r","bs\b","ff\f","z\u0000y","\u0001\u001f"])");
  const std::string before =
      R"(["tab\u0009here","nl\u000ax","cr\u000d","bs\u0008","ff\u000c","z\u0000y","\u0001\u001f"])";
  ASSERT_TRUE(DecodeTags(now).has_value());
  ASSERT_TRUE(DecodeTags(before).has_value());
  EXPECT_EQ(*DecodeTags(now), tags);
  EXPECT_EQ(*DecodeTags(before), tags);
  EXPECT_EQ(JsonEach(now), JsonEach(before));
  EXPECT_EQ(JsonEach(now)[1], "nl\nx");
}

TEST(TagsJson, RoundTripsUtf8ByteForByte) {
  const std::vector<std::string> tags = {
      "", "plain", "q\"uote", "back\\slash", "ctl\x01\n", "\xE4\xB8\xAD\xE6\x96\x87"};
  const std::string json = EncodeTags(tags);
  auto back = DecodeTags(json);
  ASSERT_TRUE(back.has_value()) << json;
  EXPECT_EQ(*back, tags);
  EXPECT_EQ(JsonEach(json), tags);
}

TEST(TagsJson, ReadsAnyJsonArrayOfStrings) {
  EXPECT_THAT(*DecodeTags(R"( [ "a\u00e9\ud83d\ude00" , "b\/c" ] )"),
              ElementsAre("a\xC3\xA9\xF0\x9F\x98\x80", "b/c"));
  EXPECT_THAT(*DecodeTags("[]"), ElementsAre());
  EXPECT_FALSE(DecodeTags("[1]").has_value());
  EXPECT_FALSE(DecodeTags("[\"a\"").has_value());
  EXPECT_FALSE(DecodeTags("{\"a\":\"b\"}").has_value());
  EXPECT_FALSE(DecodeTags("[\"a\"] x").has_value());
  EXPECT_FALSE(DecodeTags("").has_value());
}

// No validated input holds bytes that are not UTF-8, but a row the earlier
// codec wrote might: it is read, not lost, and writing one does not fail.
TEST(TagsJson, BytesThatAreNotUtf8BecomeReplacementCharacters) {
  EXPECT_THAT(*DecodeTags("[\"\xFF raw\",\"ok\"]"), ElementsAre("\xEF\xBF\xBD raw", "ok"));
  EXPECT_THAT(*DecodeTags(EncodeTags({"\xFF raw"})), ElementsAre("\xEF\xBF\xBD raw"));
}

}  // namespace
}  // namespace mnemo::storage::internal
