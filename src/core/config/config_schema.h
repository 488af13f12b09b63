// The schema table of every scalar configuration key (spec 15). It drives the
// TOML loader, the MNEMO_* environment overrides, validation messages and the
// generated reference (docs/config.md).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "mnemo/config.h"

namespace mnemo::internal {

// kStringList: a TOML array of strings (a std::vector<std::string> field);
// in the environment and overrides, comma-separated.
enum class KeyType { kBool, kInt, kFloat, kOptFloat, kString, kEnum, kStringList };

struct KeySpec {
  std::string_view path;  // "memory.backend", "security.audit.enabled"
  KeyType type;
  std::string_view default_text;
  std::string_view allowed;  // enums: "a|b|c"; numbers: a human range
  double min;                // numbers only
  double max;
  std::string_view doc;
  void* (*field)(Config&);  // the Config member this key sets
};

std::span<const KeySpec> ConfigKeys();

// MNEMO_ + path with '.' -> '_', upper-cased.
std::string EnvName(std::string_view path);

}  // namespace mnemo::internal
