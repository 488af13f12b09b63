// docs/methods.md, generated from the method table (spec 60: the API
// reference comes from the table; a test fails when the file drifts).
#pragma once

#include <string>

#include "transport/method_table.h"

namespace mnemo::transport {

std::string MethodReferenceMarkdown(const MethodTable& table);

}  // namespace mnemo::transport
