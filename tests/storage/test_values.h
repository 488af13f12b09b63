// Checked values (storage/values.h) of a test, from text the test knows to
// be valid: the stores take them parsed.
#pragma once

#include <string>
#include <string_view>

#include "storage/values.h"

namespace mnemo {

inline SessionId TestSessionId(std::string_view text) {
  return SessionId::Parse(std::string(text)).value();
}
inline TurnId TestTurnId(std::string_view text) { return TurnId::Parse(std::string(text)).value(); }
inline Namespace TestNamespace(std::string_view text) {
  return Namespace::Parse(std::string(text)).value();
}
inline Key TestKey(std::string_view text) { return Key::Parse(std::string(text)).value(); }

}  // namespace mnemo
