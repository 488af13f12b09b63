// The checks behind "one principal has one role" (spec 10 ACL), used by the
// configuration loader; the lookups themselves are in mnemo/config.h.
#pragma once

#include <string>
#include <string_view>

#include "mnemo/config.h"

namespace mnemo::internal {

// Ok when `role` is admin or user; else an error at `where` naming `field`
// and the allowed values.
Status CheckRole(std::string_view role, const std::string& where, const std::string& field);

// Every grant of a role to one name agrees: [[security.principals]],
// [[security.tokens]] and security.default_role for
// security.default_principal.
Status CheckOneRolePerPrincipal(const Config& config);

}  // namespace mnemo::internal
