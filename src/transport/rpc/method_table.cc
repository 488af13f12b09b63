#include "transport/rpc/method_table.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <exception>

#include "base/request_trace.h"
#include "core/audit_record.h"
#include "transport/rpc/param_schema.h"

namespace mnemo::transport {

void MethodTable::Add(MethodSpec spec) {
  assert(Find(spec.name) == nullptr && "duplicate method name");
  assert((spec.tool_name.empty() || FindTool(spec.tool_name) == nullptr) && "duplicate tool name");
  methods_.push_back(std::move(spec));
}

const MethodSpec* MethodTable::Find(std::string_view name) const {
  for (const MethodSpec& m : methods_) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

const MethodSpec* MethodTable::FindTool(std::string_view tool_name) const {
  if (tool_name.empty()) return nullptr;
  for (const MethodSpec& m : methods_) {
    if (m.tool_name == tool_name) return &m;
  }
  return nullptr;
}

std::string MethodTable::NameList() const {
  std::string out;
  for (const MethodSpec& m : methods_) out += (out.empty() ? "" : ", ") + m.name;
  return out;
}

const MethodTable& DefaultMethodTable() {
  static const MethodTable* table = [] {
    auto* t = new MethodTable();
    AddMemoryMethods(*t);
    AddRuleMethods(*t);
    AddTurnMethods(*t);
    AddEpisodicMethods(*t);
    AddErasureMethods(*t);
    AddGraphMethods(*t);
    AddDocumentMethods(*t);
    AddContextMethods(*t);
    AddContextBuildMethods(*t);
    AddToolMethods(*t);
    AddMetaMethods(*t);
    return t;
  }();
  return *table;
}

namespace {

Result<json> RunHandler(const MethodSpec& spec, const MethodContext& ctx, json& checked) {
  // Third-party code (nlohmann) may throw inside a handler; nothing escapes
  // this boundary, and the message is kept for the server log only.
  try {
    return spec.handler(ctx, checked);
  } catch (const std::exception& e) {
    return Internal(spec.name + " failed: " + e.what());
  }
}

// The address fields of the params, never content (spec 10, "Audit").
std::string ParamText(const json& params, const char* name) {
  auto it = params.find(name);
  return it != params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Result<json> CallMethod(const MethodSpec& spec, const MethodContext& ctx, json params,
                        json* validated) {
  const auto start = std::chrono::steady_clock::now();
  const int64_t lines_before = internal::AuditLinesOnThisThread();
  Result<json> checked = [&] {
    internal::ScopedStage stage("parse");
    return ValidateParams(spec, params);
  }();
  Result<json> result = checked.ok() ? RunHandler(spec, ctx, *checked) : checked.status();
  // A call that reached a service was audited there (core/audit_record.h);
  // the table audits the others: params refused by their schema or by the
  // handler before any service ran, and the methods about the table itself.
  if (ctx.engine.config().security.audit.enabled &&
      internal::AuditLinesOnThisThread() == lines_before) {
    const json& address = checked.ok() ? *checked : params;
    ctx.engine.admin().Audit(
        ctx.principal,
        AuditEvent{.method = spec.name,
                   .ns = address.is_object() ? ParamText(address, "namespace") : "",
                   .key = address.is_object() ? ParamText(address, "key") : "",
                   .category = address.is_object() ? ParamText(address, "category") : "",
                   .outcome = internal::AuditOutcome(result.status()),
                   .duration_ms = std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - start)
                                      .count()});
  }
  if (checked.ok() && validated != nullptr) *validated = std::move(checked).value();
  return result;
}

std::string RenderText(const MethodSpec& spec, const json& params, const json& result) {
  if (spec.render) {
    try {
      return spec.render(params, result);
    } catch (const std::exception&) {
      // Fall through to the JSON form: a renderer bug must not lose the result.
    }
  }
  return DumpJson(result);
}

json ResultObject(json properties, const std::vector<std::string>& optional) {
  json required = json::array();
  for (const auto& [name, schema] : properties.items()) {
    if (std::find(optional.begin(), optional.end(), name) == optional.end()) {
      required.push_back(name);
    }
  }
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", required}};
}

std::string DumpJson(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

}  // namespace mnemo::transport
