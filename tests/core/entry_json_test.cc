#include "core/formats/entry_json.h"

#include <gtest/gtest.h>

#include <string>

#include "mnemo/limits.h"

namespace mnemo {
namespace {

TEST(EntryJson, HasTheSpec60Shape) {
  Entry e;
  e.id = "id-1";
  e.key = "k";
  e.content = "v";
  e.tags = {"a"};
  e.created_at = 0;
  e.updated_at = 1000;
  nlohmann::json j = EntryToJson(e);
  for (const char* f :
       {"id", "key", "namespace", "category", "content", "tags", "owner", "visibility",
        "created_at", "updated_at", "access_count", "useful_count", "archived"}) {
    EXPECT_TRUE(j.contains(f)) << f;
  }
  EXPECT_EQ(j.size(), 13u);
  EXPECT_EQ(j["updated_at"], "1970-01-01T00:00:01.000Z");
  EXPECT_EQ(j["visibility"], "private");
}

TEST(EntryJson, ImportRoundTripsEveryField) {
  Entry e;
  e.id = "6f1c0c1e-0000-4000-8000-000000000001";
  e.key = "k";
  e.content = "服务器";
  e.category = "daily";
  e.ns = "skill-git";
  e.tags = {"x", "y"};
  e.owner = "user-2";
  e.visibility = Visibility::kPublic;
  e.created_at = 1795946400000;
  e.updated_at = 1795946401000;
  e.access_count = 3;
  e.useful_count = 4;
  e.archived = true;
  auto back = EntryFromImportJson(EntryToJson(e), "local");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(EntryToJson(*back), EntryToJson(e));
}

TEST(EntryJson, ImportNeedsOnlyKeyAndContent) {
  auto e = EntryFromImportJson(nlohmann::json{{"key", "k"}, {"content", "v"}}, "me");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->owner, "me");
  EXPECT_EQ(e->category, "core");
  EXPECT_EQ(e->ns, "global");
}

TEST(EntryJson, ImportErrorsNameTheField) {
  auto no_content = EntryFromImportJson(nlohmann::json{{"key", "k"}}, "me");
  EXPECT_EQ(no_content.status().field(), "content");
  auto bad_tags =
      EntryFromImportJson(nlohmann::json{{"key", "k"}, {"content", "v"}, {"tags", "x"}}, "me");
  EXPECT_EQ(bad_tags.status().field(), "tags");
  auto bad_time = EntryFromImportJson(
      nlohmann::json{{"key", "k"}, {"content", "v"}, {"created_at", "yesterday"}}, "me");
  EXPECT_EQ(bad_time.status().field(), "created_at");
  auto bad_cat = EntryFromImportJson(
      nlohmann::json{{"key", "k"}, {"content", "v"}, {"category", "Core!"}}, "me");
  EXPECT_EQ(bad_cat.status().field(), "category");
  EXPECT_FALSE(EntryFromImportJson(nlohmann::json::array(), "me").ok());
}

TEST(EntryJson, ImportRefusesAnOwnerThatIsNoPrincipalName) {
  // The rule of every principal's name (PrincipalId): the import door
  // refuses what memory.principal_forget and a request's owner refuse.
  for (const std::string& owner : {std::string(" \t "),
                                   std::string("a\x01"
                                               "b"),
                                   std::string(kMaxPrincipalBytes + 1, 'o')}) {
    auto e =
        EntryFromImportJson(nlohmann::json{{"key", "k"}, {"content", "v"}, {"owner", owner}}, "me");
    ASSERT_FALSE(e.ok()) << owner;
    EXPECT_EQ(e.status().field(), "owner");
    EXPECT_NE(e.status().message().find("a principal name is 1-" +
                                        std::to_string(kMaxPrincipalBytes) + " bytes"),
              std::string::npos)
        << e.status().message();
  }
  EXPECT_TRUE(EntryFromImportJson(nlohmann::json{{"key", "k"},
                                                 {"content", "v"},
                                                 {"owner", std::string(kMaxPrincipalBytes, 'o')}},
                                  "me")
                  .ok());
}

}  // namespace
}  // namespace mnemo
