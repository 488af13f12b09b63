// Principals and roles (spec 10 ACL): the one role lookup of every transport.

#include "core/principals.h"

#include <map>
#include <utility>

namespace mnemo {
namespace {

Role RoleOf(std::string_view text) { return text == "admin" ? Role::kAdmin : Role::kUser; }

}  // namespace

Role ConfiguredRole(const Config& config, std::string_view name) {
  for (const PrincipalConfig& p : config.security.principals) {
    if (p.name == name) return RoleOf(p.role);
  }
  for (const TokenConfig& t : config.security.tokens) {
    if (t.principal == name) return RoleOf(t.role);
  }
  // Not security.default_role for a name equal to security.default_principal:
  // that role belongs to the process that names no principal, and
  // `--principal local` must not buy it by spelling the default's name.
  return Role::kUser;
}

Principal ProcessPrincipal(const Config& config, std::string_view requested) {
  if (requested.empty()) {
    return Principal{config.security.default_principal, RoleOf(config.security.default_role)};
  }
  return Principal{std::string(requested), ConfiguredRole(config, requested)};
}

namespace internal {

Status CheckRole(std::string_view role, const std::string& where, const std::string& field) {
  if (role == "admin" || role == "user") return Status::Ok();
  return InvalidArgument(
      where + ": " + field + " is \"" + std::string(role) + "\"; it must be admin or user", field);
}

Status CheckOneRolePerPrincipal(const Config& config) {
  // name -> (role, where it was granted)
  std::map<std::string, std::pair<std::string, std::string>, std::less<>> granted;
  auto grant = [&](const std::string& name, const std::string& role,
                   const std::string& where) -> Status {
    auto [it, inserted] = granted.emplace(name, std::make_pair(role, where));
    if (inserted || it->second.first == role) return Status::Ok();
    return InvalidArgument("principal \"" + name + "\" is granted two roles: " + it->second.first +
                               " by " + it->second.second + " and " + role + " by " + where +
                               "; give one principal one role",
                           "security.principals");
  };
  for (const PrincipalConfig& p : config.security.principals) {
    MNEMO_RETURN_IF_ERROR(grant(p.name, p.role, "[[security.principals]]"));
  }
  for (const TokenConfig& t : config.security.tokens) {
    MNEMO_RETURN_IF_ERROR(grant(t.principal, t.role, "[[security.tokens]]"));
  }
  return grant(config.security.default_principal, config.security.default_role,
               "security.default_role (the role of security.default_principal)");
}

}  // namespace internal
}  // namespace mnemo
