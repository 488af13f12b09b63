// Status and Result<T>: errors are values in mnemo; no exception crosses the
// public API. Both types are cheap to move and [[nodiscard]].
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

// Closed set of error classes. Each transport maps them to its wire codes in
// one place (JSON-RPC: invalid_argument -> -32602, not_found -> -32001, ...).
enum class StatusCode {
  kOk = 0,
  kInvalidArgument,   // the caller sent something malformed or out of range
  kNotFound,          // missing, or not readable by the caller (indistinguishable)
  kPermissionDenied,  // the caller may not do this
  kDisabled,          // switched off by configuration
  kConflict,          // a concurrent change or a uniqueness clash
  kUnavailable,       // a dependency (file system, server, embedder) is unreachable
  kCorruption,        // stored data (a database page, an index file, a stored row) is damaged
  kInternal,          // a bug or an unexpected failure below us
};

// The server's own fault, not the caller's: a bug (kInternal) or damaged
// stored data (kCorruption). Transports log these with a request id and
// answer without the details; the CLI exits with 2 for them.
constexpr bool IsServerFault(StatusCode code) {
  return code == StatusCode::kInternal || code == StatusCode::kCorruption;
}

// Returns the stable snake_case name of a code ("invalid_argument", ...).
std::string_view StatusCodeName(StatusCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(StatusCode code, std::string message, std::string field = {})
      : code_(code), message_(std::move(message)), field_(std::move(field)) {}

  static Status Ok() { return {}; }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  // Human-readable: what was wrong and what is allowed.
  const std::string& message() const { return message_; }
  // The request parameter the error is about, when there is one ("key").
  const std::string& field() const { return field_; }

  // "invalid_argument: key must not be blank".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
  std::string field_;
};

inline Status InvalidArgument(std::string msg, std::string field = {}) {
  return {StatusCode::kInvalidArgument, std::move(msg), std::move(field)};
}
inline Status NotFound(std::string msg) { return {StatusCode::kNotFound, std::move(msg)}; }
inline Status PermissionDenied(std::string msg) {
  return {StatusCode::kPermissionDenied, std::move(msg)};
}
inline Status Disabled(std::string msg) { return {StatusCode::kDisabled, std::move(msg)}; }
inline Status Conflict(std::string msg) { return {StatusCode::kConflict, std::move(msg)}; }
inline Status Unavailable(std::string msg) { return {StatusCode::kUnavailable, std::move(msg)}; }
inline Status Corruption(std::string msg) { return {StatusCode::kCorruption, std::move(msg)}; }
inline Status Internal(std::string msg) { return {StatusCode::kInternal, std::move(msg)}; }

// The one OK status every Result without an error returns from status().
const Status& OkStatus();

// Result<T> holds either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT(google-explicit-constructor)
  Result(Status status) : v_(std::move(status)) {  // NOLINT(google-explicit-constructor)
    assert(!std::get<Status>(v_).ok() && "Result built from an OK status");
  }

  bool ok() const { return v_.index() == 0; }
  const Status& status() const { return ok() ? OkStatus() : std::get<Status>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace mnemo

#define MNEMO_INTERNAL_CONCAT2(a, b) a##b
#define MNEMO_INTERNAL_CONCAT(a, b) MNEMO_INTERNAL_CONCAT2(a, b)

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define MNEMO_RETURN_IF_ERROR(expr)                \
  do {                                             \
    ::mnemo::Status mnemo_status_ = (expr);        \
    if (!mnemo_status_.ok()) return mnemo_status_; \
  } while (0)

// `lhs = value of expr` (a Result<T>), or returns its Status.
#define MNEMO_ASSIGN_OR_RETURN(lhs, expr) \
  MNEMO_INTERNAL_ASSIGN_OR_RETURN(MNEMO_INTERNAL_CONCAT(mnemo_result_, __LINE__), lhs, expr)
// NOLINTBEGIN(bugprone-macro-parentheses): `lhs` may be a declaration.
#define MNEMO_INTERNAL_ASSIGN_OR_RETURN(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)

#pragma GCC visibility pop
