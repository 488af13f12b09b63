// The tool registry (spec 50, "Tool registry"): per tool, whether its output
// takes part in computation (`no_memory`) and how it is cleaned first
// (`cleaner`). It decides only what is indexed; stored text never changes.
//
// Thread-safety: every member may be called from many threads at once; a
// spec handed out by Find stays valid (and unchanged) while it is held.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "text/cleaner.h"

namespace mnemo::context {

struct ToolSpec {
  std::string name;  // the registry key (already normalised by the caller)
  std::string plugin;
  std::string description;
  bool no_memory = false;
  text::Cleaner cleaner;     // declarative steps (empty: none)
  ToolCleanerFn cleaner_fn;  // C++ only; used instead of `cleaner` when set
};

// Where a spec comes from. For one name the latest source in this order is
// in force: the config file, then the persisted registrations
// (memory.tool_register), then in-process C++ registrations.
enum class ToolSource { kConfig = 0, kStored = 1, kCode = 2 };

std::string_view ToolSourceName(ToolSource source);  // "config" | "registered" | "code"

class ToolRegistry {
 public:
  // Maps a tool name as called to a registry key (the engine passes
  // rules::NormalizeToolName); null: names are keys as given.
  using NameNormalizer = std::function<std::string(std::string_view)>;
  explicit ToolRegistry(NameNormalizer normalize = nullptr);

  // Adds or replaces `spec` (under its normalised name) for `source`.
  void Put(ToolSource source, ToolSpec spec);
  // Replaces every spec of `source` (a reload of the persisted ones).
  void ReplaceAll(ToolSource source, std::vector<ToolSpec> specs);

  // The spec in force for `name`, or null for an unknown tool (its output
  // takes part as is: no_memory = false, no cleaner).
  std::shared_ptr<const ToolSpec> Find(std::string_view name) const;

  struct Listed {
    std::shared_ptr<const ToolSpec> spec;
    ToolSource source = ToolSource::kConfig;
  };
  // Every spec in force, by name.
  std::vector<Listed> All() const;

 private:
  std::string Key(std::string_view name) const;

  NameNormalizer normalize_;
  mutable std::shared_mutex mu_;
  using Layer = std::map<std::string, std::shared_ptr<const ToolSpec>, std::less<>>;
  std::array<Layer, 3> layers_;  // by ToolSource
};

// The text one output of `spec`'s tool contributes to computation (no_memory
// is the caller's business): the cleaned output, or `output` byte for byte
// with `failed` set when the cleaner fails or leaves only whitespace.
// Without a cleaner: `output`, not failed.
text::CleanedOutput CleanToolOutput(const ToolSpec& spec, std::string_view output);

}  // namespace mnemo::context
