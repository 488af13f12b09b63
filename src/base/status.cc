#include "mnemo/status.h"

namespace mnemo {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid_argument";
    case StatusCode::kNotFound: return "not_found";
    case StatusCode::kPermissionDenied: return "permission_denied";
    case StatusCode::kDisabled: return "disabled";
    case StatusCode::kConflict: return "conflict";
    case StatusCode::kUnavailable: return "unavailable";
    case StatusCode::kCorruption: return "corruption";
    case StatusCode::kInternal: return "internal";
  }
  return "unknown";
}

const Status& OkStatus() {
  static const Status kOk;
  return kOk;
}

std::string Status::ToString() const {
  if (ok()) return "ok";
  std::string s(StatusCodeName(code_));
  s += ": ";
  s += message_;
  return s;
}

}  // namespace mnemo
