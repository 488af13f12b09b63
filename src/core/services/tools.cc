// mnemo::Tools (mnemo/tools.h), the tool registry of spec 50: the enabled
// check, validation, the registry and its persisted registrations.
#include "mnemo/tools.h"

#include <utility>

#include "base/json_limits.h"
#include "context/tool_registry.h"
#include "core/access.h"
#include "core/audit_record.h"
#include "core/services/tool_specs.h"
#include "core/services/tools_options.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "storage/entry_store.h"

namespace mnemo {
namespace {

Result<context::ToolSpec> CompileStoredTool(std::string_view content) {
  MNEMO_ASSIGN_OR_RETURN(ToolSpec decoded, internal::DecodeStoredTool(content));
  return internal::CompileToolSpec(decoded);
}

}  // namespace

internal::ToolsOptions internal::ToolsOptionsOf(const Config& config) {
  return {.enabled = config.memory.enabled,
          .acl_enabled = config.memory.acl_enabled,
          .max_body_bytes = config.server.max_body_bytes,
          .declared = config.tools};
}

Tools::Tools(storage::EntryStore& entries, internal::AuditLog* audit, std::shared_ptr<Clock> clock,
             std::shared_ptr<Logger> logger, internal::ToolsOptions options)
    : entries_(entries),
      audit_(audit),
      clock_(std::move(clock)),
      logger_(std::move(logger)),
      options_(std::make_unique<const internal::ToolsOptions>(std::move(options))),
      registry_(std::make_unique<context::ToolRegistry>(
          [](std::string_view name) { return rules::NormalizeToolName(name); })) {}

Tools::~Tools() = default;

const context::ToolRegistry& Tools::registry() const { return *registry_; }

Result<std::unique_ptr<Tools>> Tools::Open(storage::EntryStore& entries, internal::AuditLog* audit,
                                           std::shared_ptr<Clock> clock,
                                           std::shared_ptr<Logger> logger,
                                           internal::ToolsOptions options) {
  std::unique_ptr<Tools> service(
      new Tools(entries, audit, std::move(clock), std::move(logger), std::move(options)));
  std::vector<context::ToolSpec> from_config;
  for (const ToolConfig& t : service->options_->declared) {
    MNEMO_ASSIGN_OR_RETURN(context::ToolSpec spec,
                           internal::CompileToolSpec({.name = t.name,
                                                      .plugin = t.plugin,
                                                      .description = t.description,
                                                      .no_memory = t.no_memory,
                                                      .cleaner = t.cleaner_json}));
    from_config.push_back(std::move(spec));
  }
  service->registry_->ReplaceAll(context::ToolSource::kConfig, std::move(from_config));
  MNEMO_RETURN_IF_ERROR(service->Refresh());
  return service;
}

Result<const context::ToolRegistry*> Tools::Current() {
  MNEMO_RETURN_IF_ERROR(Refresh());
  return registry_.get();
}

Status Tools::Refresh() {
  // Another process may have registered a tool: one counter read tells, and
  // then the few entries of the namespace are read (and recompiled only when
  // they changed). The counter is read first, so a write racing the read
  // below shows as a newer counter next time.
  MNEMO_ASSIGN_OR_RETURN(const int64_t generation,
                         entries_.Generation(storage::Counter::kToolRegistry));
  {
    std::lock_guard lock(stored_mu_);
    if (generation == stored_generation_) return Status::Ok();
  }
  std::map<std::string, std::string> current;
  MNEMO_RETURN_IF_ERROR(entries_.ForEach(
      {.all = true}, storage::kToolRegistryNamespace, [&](const Entry& e) -> Status {
        if (e.ns == storage::kToolRegistryNamespace && e.owner == internal::kToolRegistryOwner) {
          current.emplace(e.key, e.content);
        }
        return Status::Ok();
      }));
  std::lock_guard lock(stored_mu_);
  stored_generation_ = generation;
  if (current == stored_seen_) return Status::Ok();
  std::vector<context::ToolSpec> specs;
  for (const auto& [key, content] : current) {
    Result<context::ToolSpec> spec = CompileStoredTool(content);
    if (!spec.ok()) {
      // A hand-edited entry must not stop the engine: that tool is unknown.
      logger_->Log(LogLevel::kWarn, "tool registration " + key + " in namespace " +
                                        std::string(storage::kToolRegistryNamespace) +
                                        " is ignored: " + spec.status().message());
      continue;
    }
    specs.push_back(std::move(spec).value());
  }
  registry_->ReplaceAll(context::ToolSource::kStored, std::move(specs));
  stored_seen_ = std::move(current);
  return Status::Ok();
}

Result<ToolInfo> Tools::RegisterFor(const Principal* who, const ToolSpec& spec) {
  MNEMO_RETURN_IF_ERROR(
      internal::CheckJsonLimits(spec.cleaner, "cleaner", options_->max_body_bytes));
  MNEMO_ASSIGN_OR_RETURN(context::ToolSpec compiled, internal::CompileToolSpec(spec));
  if (who == nullptr) {
    ToolInfo info = internal::ToolInfoOf(compiled, context::ToolSource::kCode);
    registry_->Put(context::ToolSource::kCode, std::move(compiled));
    return info;
  }
  if (!IsAdmin(*who, options_->acl_enabled)) {
    return PermissionDenied(
        "registering a tool needs the admin role: it changes what is indexed "
        "for every principal");
  }
  if (compiled.cleaner_fn) {
    return InvalidArgument("a C++ cleaner function cannot be persisted: use the declarative steps",
                           "cleaner");
  }
  MNEMO_RETURN_IF_ERROR(entries_
                            .Upsert({.owner = std::string(internal::kToolRegistryOwner),
                                     .ns = std::string(storage::kToolRegistryNamespace),
                                     .key = compiled.name,
                                     .content = internal::EncodeStoredTool(compiled),
                                     .category = "core",
                                     .now = clock_->NowMs()})
                            .status());
  MNEMO_RETURN_IF_ERROR(Refresh());
  // A C++ registration of the same name still hides it: report what is in force.
  std::shared_ptr<const context::ToolSpec> in_force = registry_->Find(compiled.name);
  for (const context::ToolRegistry::Listed& l : registry_->All()) {
    if (l.spec == in_force) return internal::ToolInfoOf(*l.spec, l.source);
  }
  return internal::ToolInfoOf(compiled, context::ToolSource::kStored);
}

Result<ToolInfo> Tools::Register(const Principal& who, const ToolSpec& spec) {
  internal::AuditRecord audit(audit_, who, "memory.tool_register");
  return audit.End([&]() -> Result<ToolInfo> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    return RegisterFor(&who, spec);
  }());
}

Result<ToolInfo> Tools::Register(const ToolSpec& spec) { return RegisterFor(nullptr, spec); }

Result<std::vector<ToolInfo>> Tools::List(const Principal& who) {
  internal::AuditRecord audit(audit_, who, "memory.tool_list");
  return audit.End([&]() -> Result<std::vector<ToolInfo>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_RETURN_IF_ERROR(Refresh());
    std::vector<ToolInfo> out;
    for (const context::ToolRegistry::Listed& l : registry_->All()) {
      out.push_back(internal::ToolInfoOf(*l.spec, l.source));
    }
    return out;
  }());
}

}  // namespace mnemo
