// Trimming Unicode White_Space (text::IsWhiteSpace) off both ends. Trimming
// a set of ASCII bytes, which needs no decoder, is internal::Trim
// (base/strings.h).
#pragma once

#include <string_view>

namespace mnemo::text {

// `s` without leading and trailing White_Space code points; an ill-formed
// sequence is not white space. A view into `s`.
std::string_view TrimWhiteSpace(std::string_view s);

}  // namespace mnemo::text
