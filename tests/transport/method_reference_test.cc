#include "transport/method_reference.h"

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

}  // namespace
}  // namespace mnemo::transport
