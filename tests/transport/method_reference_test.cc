#include "transport/rpc/method_reference.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace mnemo::transport {
namespace {

TEST(MethodReference, ListsEveryMethodAndTool) {
  std::string md = MethodReferenceMarkdown(DefaultMethodTable());
  for (const MethodSpec& m : DefaultMethodTable().All()) {
    EXPECT_NE(md.find("## `" + m.name + "`"), std::string::npos) << m.name;
    if (!m.tool_name.empty()) {
      EXPECT_NE(md.find("`" + m.tool_name + "`"), std::string::npos);
    }
  }
}

TEST(MethodReference, DocsFileIsGeneratedFromTheTable) {
  std::ifstream in(std::string(MNEMO_SOURCE_DIR) + "/docs/methods.md");
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(buf.str(), MethodReferenceMarkdown(DefaultMethodTable()))
      << "docs/methods.md is stale: regenerate it with `mnemo docs methods > docs/methods.md`";
}

TEST(MethodReference, SchemaFileIsGeneratedFromTheTable) {
  std::ifstream in(std::string(MNEMO_SOURCE_DIR) + "/docs/schema.json");
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(buf.str(), MethodSchemaDocument(DefaultMethodTable()))
      << "docs/schema.json is stale: regenerate it with `mnemo docs schema > docs/schema.json`";
}

TEST(MethodReference, SchemaNamesEveryMethodWithItsToolAudience) {
  json doc = json::parse(MethodSchemaDocument(DefaultMethodTable()));
  ASSERT_EQ(doc.at("methods").size(), DefaultMethodTable().All().size());
  for (const json& m : doc.at("methods")) {
    const MethodSpec* spec = DefaultMethodTable().Find(m.at("name").get<std::string>());
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(m.at("params").at("type"), "object");
    if (spec->tool_name.empty()) {
      EXPECT_TRUE(m.at("tool_for").empty()) << spec->name;
    } else {
      EXPECT_EQ(m.at("tool_for").size(), spec->tool_mcp_only ? 1U : 2U) << spec->name;
    }
  }
}

}  // namespace
}  // namespace mnemo::transport
