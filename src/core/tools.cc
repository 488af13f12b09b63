// The tool registry's engine side (spec 50): declarations from mnemo.toml,
// memory.tool_register (persisted in namespace `tool_registry`) and C++, and
// `mnemo reindex` of everything derived from text through it.

#include <algorithm>
#include <map>
#include <tuple>

#include <nlohmann/json.hpp>

#include "archivist/turn_indexer.h"
#include "base/json_limits.h"
#include "context/computation_text.h"
#include "context/documents.h"
#include "context/graph.h"
#include "core/engine_impl.h"
#include "core/tool_specs.h"
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

namespace {

constexpr int kReindexPage = 256;

Result<context::ToolSpec> CompileStoredTool(std::string_view content) {
  MNEMO_ASSIGN_OR_RETURN(ToolSpec decoded, internal::DecodeStoredTool(content));
  return internal::CompileToolSpec(decoded);
}

}  // namespace

Status Engine::Impl::OpenTools() {
  tools = std::make_unique<context::ToolRegistry>(
      [](std::string_view name) { return rules::NormalizeToolName(name); });
  std::vector<context::ToolSpec> from_config;
  for (const ToolConfig& t : config.tools) {
    MNEMO_ASSIGN_OR_RETURN(context::ToolSpec spec,
                           internal::CompileToolSpec({.name = t.name,
                                                      .plugin = t.plugin,
                                                      .description = t.description,
                                                      .no_memory = t.no_memory,
                                                      .cleaner = t.cleaner_json}));
    from_config.push_back(std::move(spec));
  }
  tools->ReplaceAll(context::ToolSource::kConfig, std::move(from_config));
  return RefreshStoredTools();
}

Status Engine::Impl::RefreshStoredTools() {
  // Another process may have registered a tool: one counter read tells, and
  // then the few entries of the namespace are read (and recompiled only when
  // they changed). The counter is read first, so a write racing the read
  // below shows as a newer counter next time.
  MNEMO_ASSIGN_OR_RETURN(const int64_t generation,
                         stores.entries->Generation(storage::Counter::kToolRegistry));
  {
    std::lock_guard lock(stored_tools_mu);
    if (generation == stored_tools_generation) return Status::Ok();
  }
  std::map<std::string, std::string> current;
  MNEMO_RETURN_IF_ERROR(stores.entries->ForEach(
      {.all = true}, storage::kToolRegistryNamespace, [&](const Entry& e) -> Status {
        if (e.ns == storage::kToolRegistryNamespace && e.owner == internal::kToolRegistryOwner) {
          current.emplace(e.key, e.content);
        }
        return Status::Ok();
      }));
  std::lock_guard lock(stored_tools_mu);
  stored_tools_generation = generation;
  if (current == stored_tools_seen) return Status::Ok();
  std::vector<context::ToolSpec> specs;
  for (const auto& [key, content] : current) {
    Result<context::ToolSpec> spec = CompileStoredTool(content);
    if (!spec.ok()) {
      // A hand-edited entry must not stop the engine: that tool is unknown.
      logger->Log(LogLevel::kWarn, "tool registration " + key + " in namespace " +
                                       std::string(storage::kToolRegistryNamespace) +
                                       " is ignored: " + spec.status().message());
      continue;
    }
    specs.push_back(std::move(spec).value());
  }
  tools->ReplaceAll(context::ToolSource::kStored, std::move(specs));
  stored_tools_seen = std::move(current);
  return Status::Ok();
}

Result<ToolInfo> Engine::Impl::RegisterTool(const Principal* who, const ToolSpec& spec) {
  MNEMO_RETURN_IF_ERROR(
      internal::CheckJsonLimits(spec.cleaner, "cleaner", config.server.max_body_bytes));
  MNEMO_ASSIGN_OR_RETURN(context::ToolSpec compiled, internal::CompileToolSpec(spec));
  if (who == nullptr) {
    ToolInfo info = internal::ToolInfoOf(compiled, context::ToolSource::kCode);
    tools->Put(context::ToolSource::kCode, std::move(compiled));
    return info;
  }
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (!IsAdmin(*who)) {
    return PermissionDenied(
        "registering a tool needs the admin role: it changes what is indexed "
        "for every principal");
  }
  if (compiled.cleaner_fn) {
    return InvalidArgument("a C++ cleaner function cannot be persisted: use the declarative steps",
                           "cleaner");
  }
  MNEMO_RETURN_IF_ERROR(stores.entries
                            ->Upsert({.owner = std::string(internal::kToolRegistryOwner),
                                      .ns = std::string(storage::kToolRegistryNamespace),
                                      .key = compiled.name,
                                      .content = internal::EncodeStoredTool(compiled),
                                      .category = "core",
                                      .now = clock->NowMs()})
                            .status());
  MNEMO_RETURN_IF_ERROR(RefreshStoredTools());
  // A C++ registration of the same name still hides it: report what is in force.
  std::shared_ptr<const context::ToolSpec> in_force = tools->Find(compiled.name);
  for (const context::ToolRegistry::Listed& l : tools->All()) {
    if (l.spec == in_force) return internal::ToolInfoOf(*l.spec, l.source);
  }
  return internal::ToolInfoOf(compiled, context::ToolSource::kStored);
}

Result<std::vector<ToolInfo>> Engine::Impl::ListTools(const Principal& /*who*/) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(RefreshStoredTools());
  std::vector<ToolInfo> out;
  for (const context::ToolRegistry::Listed& l : tools->All()) {
    out.push_back(internal::ToolInfoOf(*l.spec, l.source));
  }
  return out;
}

Status Engine::Impl::ReindexDerivedText(ReindexReport& report) {
  MNEMO_RETURN_IF_ERROR(RefreshStoredTools());
  // Assistant rows: their search text is the only one a tool changes (a
  // user row's is its message).
  int64_t after = 0;
  for (;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> page,
                           stores.episodic->TurnsAfter(after, kReindexPage));
    if (page.empty()) break;
    after = page.back().id;
    for (const storage::TurnRow& row : page) {
      if (row.role != "assistant") continue;
      std::vector<context::CleanerFailure> failures;
      Result<std::string> text = archivist::RecomputeAssistantSearchText(*tools, row, &failures);
      if (!text.ok()) {
        logger->Log(LogLevel::kWarn, "turn " + std::to_string(row.id) +
                                         " keeps its index: " + text.status().message());
        continue;
      }
      MNEMO_RETURN_IF_ERROR(stores.episodic->ReplaceTurnSearchText(row.id, *text));
      ++report.turns_reindexed;
      report.cleaner_failures += static_cast<int64_t>(failures.size());
    }
  }
  // Documents: summary, tags and entities derived again, and their triples
  // extracted again (a line now from a no_memory tool must stop yielding
  // one). A document's old triples go first; the new ones are stored
  // afterwards in the documents' time order, so supersession replays as it
  // happened (older evidence never ends a newer fact: PlanTripleUpsert).
  struct Distilled {
    TimeMs at;
    std::string id;
    std::string owner;
    std::vector<context::ExtractedTriple> triples;
  };
  std::vector<Distilled> distilled;
  for (int64_t offset = 0;; offset += kReindexPage) {
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::DocumentRow> page,
        stores.documents->ListDocuments(std::nullopt, std::nullopt, kReindexPage, offset));
    if (page.empty()) break;
    for (const storage::DocumentRow& doc : page) {
      const std::string computation = context::DocumentComputationText(*tools, doc);
      MNEMO_ASSIGN_OR_RETURN(context::DocumentFields fields,
                             context::DeriveFields(*stores.documents, computation));
      MNEMO_RETURN_IF_ERROR(stores.documents->UpdateDocumentDerived(
          doc.id, computation, fields.summary, fields.tags, fields.entities, doc.updated_at));
      ++report.documents_reindexed;
      MNEMO_RETURN_IF_ERROR(stores.graph->DeleteTriplesFromSource(doc.id).status());
      std::vector<context::ExtractedTriple> triples = context::ExtractTriplesFromText(computation);
      if (!triples.empty()) {
        distilled.push_back({doc.created_at, doc.id, doc.owner, std::move(triples)});
      }
    }
  }
  std::sort(distilled.begin(), distilled.end(), [](const Distilled& a, const Distilled& b) {
    return std::tie(a.at, a.id) < std::tie(b.at, b.id);
  });
  for (const Distilled& d : distilled) {
    MNEMO_RETURN_IF_ERROR(
        context::StoreTriples(*stores.graph, d.owner, d.id, d.at, d.triples).status());
    report.triples_derived += static_cast<int64_t>(d.triples.size());
  }
  return Status::Ok();
}

}  // namespace mnemo
