#include "text/entities/entities.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "text/utf8.h"

namespace mnemo::text {
namespace {

using K = EntityKind;

struct Expected {
  K kind;
  std::string text;
};

struct Case {
  std::string input;
  std::vector<Expected> entities;  // all of them, in order
};

std::string Describe(const std::vector<Entity>& entities) {
  std::string out;
  for (const Entity& e : entities) {
    out += "  ";
    out += EntityKindName(e.kind);
    out += " \"" + e.text + "\" @" + std::to_string(e.offset) + "\n";
  }
  return out;
}

TEST(ExtractEntities, FindsEveryKindInEnglishAndChinese) {
  const std::vector<Case> cases = {
      // e-mails and URLs
      {"Email sarah.chen@example.com today.", {{K::kEmail, "sarah.chen@example.com"}}},
      {"See https://github.com/acme/atlas/pull/12. Or http://x.io/a_(b).",
       {{K::kUrl, "https://github.com/acme/atlas/pull/12"}, {K::kUrl, "http://x.io/a_(b)"}}},
      {"(docs at www.example.org/guide)", {{K::kUrl, "www.example.org/guide"}}},
      {"FTP://files.example.net/pub is old", {{K::kUrl, "FTP://files.example.net/pub"}}},
      {"请发邮件到ops@example.cn，或者看https://example.cn/帮助",
       {{K::kEmail, "ops@example.cn"}, {K::kUrl, "https://example.cn/"}}},
      // paths and files
      {"Logs are in /var/log/nginx/ and ~/notes.",
       {{K::kPath, "/var/log/nginx/"}, {K::kPath, "~/notes"}}},
      {"Run ./deploy.sh then open ~/work/todo.md",
       {{K::kPath, "./deploy.sh"}, {K::kPath, "~/work/todo.md"}}},
      {"Copy C:\\Users\\sarah\\report.docx to ../backup/",
       {{K::kPath, "C:\\Users\\sarah\\report.docx"}, {K::kPath, "../backup/"}}},
      {"Edit src/text/pipeline/tokenizer.cc and/or TCP/IP docs",
       {{K::kPath, "src/text/pipeline/tokenizer.cc"}}},
      {R"({"path":"/srv/app","file":"deploy.yaml"})",
       {{K::kPath, "/srv/app"}, {K::kFile, "deploy.yaml"}}},
      {"Open main.py, report.PDF and archive.tar.gz.",
       {{K::kFile, "main.py"}, {K::kFile, "report.PDF"}, {K::kFile, "archive.tar.gz"}}},
      {"打开main.py文件，然后读.env", {{K::kFile, "main.py"}, {K::kFile, ".env"}}},
      // identifiers
      {"call send_email and getUserName on HttpClient with MAX_RETRIES",
       {{K::kIdentifier, "send_email"},
        {K::kIdentifier, "getUserName"},
        {K::kIdentifier, "HttpClient"},
        {K::kIdentifier, "MAX_RETRIES"}}},
      {"Fixed in ABC-123 (see #456), shipped in v1.2.3 and 2.0.1",
       {{K::kIdentifier, "ABC-123"},
        {K::kIdentifier, "#456"},
        {K::kIdentifier, "v1.2.3"},
        {K::kIdentifier, "2.0.1"}}},
      {"Call __init__ and _really_ mean it, not snake_", {{K::kIdentifier, "__init__"}}},
      {"用send_email发送，版本v2.1", {{K::kIdentifier, "send_email"}, {K::kIdentifier, "v2.1"}}},
      // quantities
      {"The disk has 10 GB free, latency is 5ms and the walk is 3.5 km.",
       {{K::kQuantity, "10 GB"}, {K::kQuantity, "5ms"}, {K::kQuantity, "3.5 km"}}},
      {"CPU at 20%, costs $30 or €9.99 for 1,500 tokens",
       {{K::kQuantity, "20%"},
        {K::kQuantity, "$30"},
        {K::kQuantity,
         "\xE2\x82\xAC"
         "9.99"},
        {K::kQuantity, "1,500 tokens"}}},
      {"我们要走3 天，大约5公里，花了100元，开会2小时",
       {{K::kQuantity, "3 天"},
        {K::kQuantity, "5公里"},
        {K::kQuantity, "100元"},
        {K::kQuantity, "2小时"}}},
      {"In 2024 we had 3 users and 2024年 was long; wait 5 s or 5s", {{K::kQuantity, "5s"}}},
      // English names
      {"I met Sarah Chen in Berlin.", {{K::kName, "Sarah Chen"}, {K::kName, "Berlin"}}},
      {"Project Atlas ships soon. Berlin is cold.", {{K::kName, "Project Atlas"}}},
      {"The team talked to Dr. Smith and Sarah's manager on Monday.",
       {{K::kName, "Smith"}, {K::kName, "Sarah"}}},
      {"This is fine. I think We should go. Hello, Alice!", {{K::kName, "Alice"}}},
      {"我在Berlin工作", {{K::kName, "Berlin"}}},
      // Chinese names
      {"我叫张伟，今年三十岁", {{K::kName, "张伟"}}},
      {"我的名字是李小明。", {{K::kName, "李小明"}}},
      {"今天王先生和刘女士来了", {{K::kName, "王先生"}, {K::kName, "刘女士"}}},
      {"见到了李明先生", {{K::kName, "李明"}}},
      {"我和陈静一起去，也跟Sarah Chen一起吃饭，和我们一起的不算",
       {{K::kName, "陈静"}, {K::kName, "Sarah Chen"}}},
      {"读了《三体》和「流浪地球」，他说“阿特拉斯”项目",
       {{K::kName, "三体"}, {K::kName, "流浪地球"}, {K::kName, "阿特拉斯"}}},
      {"He said “never push.” twice", {}},
      // mixed, de-duplicated in order of first appearance
      {"Sarah Chen wrote main.py; Sarah Chen fixed main.py at https://x.io",
       {{K::kName, "Sarah Chen"}, {K::kFile, "main.py"}, {K::kUrl, "https://x.io"}}},
      {"", {}},
      {"just lower case words and 3.14 and 42", {}},
  };
  for (const Case& c : cases) {
    const std::vector<Entity> got = ExtractEntities(c.input);
    bool same = got.size() == c.entities.size();
    for (size_t i = 0; same && i < got.size(); ++i) {
      same = got[i].kind == c.entities[i].kind && got[i].text == c.entities[i].text;
    }
    EXPECT_TRUE(same) << "input: " << c.input << "\ngot:\n" << Describe(got);
  }
}

TEST(ExtractEntities, ReportsByteOffsetsOfFirstOccurrence) {
  const std::string text = "Ping ops@x.io, then ops@x.io again; 我叫张伟";
  const std::vector<Entity> got = ExtractEntities(text);
  ASSERT_EQ(got.size(), 2U) << Describe(got);
  EXPECT_EQ(got[0].offset, text.find("ops@x.io"));
  EXPECT_EQ(got[1].offset, text.find("张伟"));
  for (const Entity& e : got) EXPECT_EQ(text.substr(e.offset, e.text.size()), e.text);
}

TEST(ExtractEntities, NeverCrashesOnInvalidUtf8) {
  const std::vector<std::string> inputs = {"\xFF\xFE Sarah Chen \xC0\xAF",
                                           "我叫\xE4\xB8",
                                           "\xE2\x80\x9C\xE4\xB8\xE2\x80\x9D",
                                           "10 \xE5\x85 GB",
                                           "a@\xFF.com",
                                           "https://x.io/\xFF",
                                           "\xE3\x80\x8A\xF0\x9F\x98",
                                           std::string("Sarah\0Chen", 10),
                                           std::string("Met Sarah\xFF") + "Chen",
                                           "\xE2\x80\x9C\xE9\x98\xBF \xFF\xE2\x80\x9D"};
  for (const std::string& in : inputs) {
    for (const Entity& e : ExtractEntities(in)) {
      EXPECT_TRUE(IsValidUtf8(e.text)) << in;
      EXPECT_FALSE(e.text.empty());
      ASSERT_LE(e.offset + e.text.size(), in.size());
      EXPECT_EQ(in.substr(e.offset, e.text.size()), e.text);  // as written, never a repair
    }
  }
  const std::vector<Entity> got = ExtractEntities("\xFF Sarah Chen");
  ASSERT_EQ(got.size(), 1U);
  EXPECT_EQ(got[0].text, "Sarah Chen");
  EXPECT_EQ(got[0].offset, 2U);
}

TEST(ExtractEntities, StaysFastOnHostileInput) {
  std::string hostile;
  for (int i = 0; i < 20000; ++i) hostile += "a@a.(/www.「“《我叫";
  hostile += std::string(100000, '/');
  hostile += std::string(100000, '.');
  const auto start = std::chrono::steady_clock::now();
  (void)ExtractEntities(hostile);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(EntityKindName, NamesEveryKind) {
  EXPECT_EQ(EntityKindName(K::kName), "name");
  EXPECT_EQ(EntityKindName(K::kIdentifier), "identifier");
  EXPECT_EQ(EntityKindName(K::kFile), "file");
  EXPECT_EQ(EntityKindName(K::kPath), "path");
  EXPECT_EQ(EntityKindName(K::kEmail), "email");
  EXPECT_EQ(EntityKindName(K::kUrl), "url");
  EXPECT_EQ(EntityKindName(K::kQuantity), "quantity");
}

}  // namespace
}  // namespace mnemo::text
