// Tool declarations between the public ToolSpec, the registry's compiled
// spec and the persisted registration (core/services/tool_specs.h).

#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "core/services/tool_specs.h"
#include "mnemo/limits.h"
#include "rules/tool_rule.h"
#include "text/strip.h"

namespace mnemo {
namespace internal {
namespace {

using nlohmann::json;

Status CheckText(std::string_view tool, std::string_view value, std::string_view field,
                 size_t max_bytes) {
  if (value.size() > max_bytes) {
    return InvalidArgument("tool \"" + std::string(tool) + "\": " + std::string(field) +
                               " is longer than " + std::to_string(max_bytes) + " bytes",
                           std::string(field));
  }
  return Status::Ok();
}

}  // namespace

Result<context::ToolSpec> CompileToolSpec(const ToolSpec& spec) {
  const std::string name = rules::NormalizeToolName(spec.name);
  MNEMO_RETURN_IF_ERROR(rules::ValidateToolName(name, "name"));
  if (name == rules::kAnyTool) {
    return InvalidArgument("name \"*\" is reserved for unscoped rules: use the tool's name",
                           "name");
  }
  MNEMO_RETURN_IF_ERROR(CheckText(name, spec.plugin, "plugin", kMaxPluginBytes));
  MNEMO_RETURN_IF_ERROR(CheckText(name, spec.description, "description", kMaxDescriptionBytes));
  context::ToolSpec out{.name = name,
                        .plugin = spec.plugin,
                        .description = spec.description,
                        .no_memory = spec.no_memory,
                        .cleaner_fn = spec.cleaner_fn};
  if (!text::IsBlank(spec.cleaner)) {
    Result<text::Cleaner> cleaner = text::Cleaner::Parse(spec.cleaner);
    if (!cleaner.ok()) {
      return InvalidArgument("tool \"" + name + "\": " + cleaner.status().message(), "cleaner");
    }
    out.cleaner = std::move(cleaner).value();
  }
  return out;
}

ToolInfo ToolInfoOf(const context::ToolSpec& spec, context::ToolSource source) {
  return ToolInfo{.name = spec.name,
                  .plugin = spec.plugin,
                  .description = spec.description,
                  .no_memory = spec.no_memory,
                  .cleaner = spec.cleaner.empty() ? std::string() : spec.cleaner.ToJson(),
                  .cleaner_fn = static_cast<bool>(spec.cleaner_fn),
                  .source = std::string(context::ToolSourceName(source))};
}

std::string EncodeStoredTool(const context::ToolSpec& spec) {
  json j{{"name", spec.name},
         {"plugin", spec.plugin},
         {"description", spec.description},
         {"no_memory", spec.no_memory},
         {"cleaner", json::parse(spec.cleaner.ToJson())}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<ToolSpec> DecodeStoredTool(std::string_view json_text) {
  // Written by RegisterTool within the limits, but a stored entry may have
  // been edited or written by an older version: the cleaner is dumped below.
  if (!JsonDepthWithin(json_text)) {
    return InvalidArgument("a stored tool nests deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels");
  }
  const json j = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return InvalidArgument("a stored tool is not a JSON object");
  ToolSpec spec;
  for (const auto& [key, value] : j.items()) {
    if (key == "name" || key == "plugin" || key == "description") {
      if (!value.is_string()) return InvalidArgument("a stored tool's " + key + " is not text");
      std::string& field =
          key == "name" ? spec.name : (key == "plugin" ? spec.plugin : spec.description);
      field = value.get<std::string>();
    } else if (key == "no_memory") {
      if (!value.is_boolean()) return InvalidArgument("a stored tool's no_memory is no boolean");
      spec.no_memory = value.get<bool>();
    } else if (key == "cleaner") {
      if (!value.is_array()) return InvalidArgument("a stored tool's cleaner is no array");
      if (!value.empty()) spec.cleaner = value.dump(-1, ' ', false, json::error_handler_t::replace);
    } else {
      return InvalidArgument("a stored tool has an unknown member \"" + key + "\"");
    }
  }
  return spec;
}

}  // namespace internal

}  // namespace mnemo
