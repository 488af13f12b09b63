// Checked values (issue 45, item 2): each is made only by its Parse, which
// checks it against the limits of mnemo/limits.h once, at a service's entry
// (src/core/services, admin, archivist), and returns kInvalidArgument naming
// the field and what is allowed otherwise. Code below the entry takes the
// type and never checks again. The public request structs keep plain strings
// for callers; the services parse them.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "mnemo/status.h"

namespace mnemo {

// A search query (memory_search, memory_recall, context_build, document
// search): not blank, at most kMaxContentBytes. It views the caller's text
// and copies nothing: it is valid while that text lives, which is the one
// call that parsed it.
class Query {
 public:
  static Result<Query> Parse(std::string_view text);
  std::string_view view() const { return text_; }

 private:
  explicit Query(std::string_view text) : text_(text) {}
  std::string_view text_;
};

// The identifiers own their text (at most a few hundred bytes).
namespace internal {
template <typename Tag>
class CheckedId {
 public:
  const std::string& str() const { return text_; }
  std::string_view view() const { return text_; }
  // Gives the text away (to a row or a reply) without a copy.
  std::string take() && { return std::move(text_); }

 protected:
  explicit CheckedId(std::string text) : text_(std::move(text)) {}

 private:
  std::string text_;
};
}  // namespace internal

// An entry's key: 1-kMaxKeyBytes of UTF-8, no control character, not blank.
class Key : public internal::CheckedId<Key> {
 public:
  // `field` names the parameter in the error ("key", "id", "agent_id"…).
  static Result<Key> Parse(std::string text, std::string_view field = "key");

 private:
  using CheckedId::CheckedId;
};

// A namespace: 1-kMaxNamespaceBytes of [A-Za-z0-9_.:*-].
class Namespace : public internal::CheckedId<Namespace> {
 public:
  static Result<Namespace> Parse(std::string text, std::string_view field = "namespace");

 private:
  using CheckedId::CheckedId;
};

// An entry's category (also a facet type): core, daily, conversation or
// [a-z0-9_-]{1,kMaxCategoryBytes}.
class Category : public internal::CheckedId<Category> {
 public:
  static Result<Category> Parse(std::string text, std::string_view field = "category");

 private:
  using CheckedId::CheckedId;
};

// A session id: not blank, and a valid key (field "session_id").
class SessionId : public internal::CheckedId<SessionId> {
 public:
  static Result<SessionId> Parse(std::string text);

 private:
  using CheckedId::CheckedId;
};

// A turn id of memory.turn_complete: 1-kMaxTurnIdBytes of UTF-8 (field
// "turn_id").
class TurnId : public internal::CheckedId<TurnId> {
 public:
  static Result<TurnId> Parse(std::string text);

 private:
  using CheckedId::CheckedId;
};

// A principal's name, the owner of what it stores: 1-kMaxPrincipalBytes of
// UTF-8 on one line, no control character, not blank. The one door of every
// name that comes from outside: memory.principal_forget's principal, a
// request's owner, the owner an import file names, a configured principal.
class PrincipalId : public internal::CheckedId<PrincipalId> {
 public:
  // `field` names the parameter in the error ("principal", "owner"…).
  static Result<PrincipalId> Parse(std::string text, std::string_view field = "principal");

 private:
  using CheckedId::CheckedId;
};

}  // namespace mnemo
