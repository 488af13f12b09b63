// docs/methods.md, generated from the method table (spec 60: the API
// reference comes from the table; a test fails when the file drifts).
#pragma once

#include <string>

#include "transport/rpc/method_table.h"

namespace mnemo::transport {

std::string MethodReferenceMarkdown(const MethodTable& table);

// Every method as `memory.methods` lists it: name, description, params and
// result schemas, aliases, the tool name and who sees the tool ("llm" and
// "mcp", "mcp" only, or none; memory_recall is hidden from both under ACL),
// and whether it only reads (a client may retry it).
nlohmann::json MethodListJson(const MethodTable& table);

// docs/schema.json (`mnemo docs schema`): {"version", "methods"} with the
// list above. The TypeScript and Python clients are generated from it
// (clients/*/generate*); a test fails when the file drifts.
std::string MethodSchemaDocument(const MethodTable& table);

}  // namespace mnemo::transport
