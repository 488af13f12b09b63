// Erasure methods (spec 10, "Erasure"): memory.session_forget and
// memory.principal_forget. Neither is a tool: erasing is the person's
// decision, not the model's. Both answer {"erased": {kind: count}}; the
// erasure's audit line carries the same counts (Admin's, never content).
#include <string>

#include "core/validation.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {
namespace {

json ErasedToJson(const ErasureCounts& counts) {
  json erased = json::object();
  for (const auto& [kind, n] : counts.Named()) erased[kind] = n;
  return erased;
}

json ErasedSchema() {
  json properties = json::object();
  for (const auto& [kind, n] : ErasureCounts{}.Named()) properties[kind] = {{"type", "integer"}};
  return {{"type", "object"},
          {"properties", {{"erased", {{"type", "object"}, {"properties", properties}}}}}};
}

std::string RenderErased(const json& result) {
  std::string out;
  for (const auto& [kind, n] : result.at("erased").items()) {
    if (n.get<int64_t>() == 0) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(n.get<int64_t>()) + " " + kind;
  }
  return out.empty() ? "Nothing to erase." : "Erased " + out + ".";
}

Result<json> HandleSessionForget(const MethodContext& ctx, const json& p) {
  SessionForgetRequest req{.session_id = p.at("session_id").get<std::string>()};
  if (p.contains("owner")) req.owner = p.at("owner").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(ErasureCounts counts,
                         ctx.engine.admin().SessionForget(ctx.principal, req));
  return json{{"erased", ErasedToJson(counts)}};
}

Result<json> HandlePrincipalForget(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      ErasureCounts counts,
      ctx.engine.admin().PrincipalForget(ctx.principal, p.at("principal").get<std::string>()));
  return json{{"erased", ErasedToJson(counts)}};
}

MethodSpec SessionForgetSpec() {
  return {.name = "memory.session_forget",
          .description =
              "Erase a conversation and everything derived from it: turns, segments and "
              "recaps, events, the profile evidence it gave, its documents and context "
              "events, the triples extracted from them, its archive files, vectors and "
              "index rows. Returns the counts per kind (all 0 for an unknown session).",
          .params = {{.name = "session_id",
                      .description = "The conversation's id.",
                      .required = true,
                      .non_blank = true,
                      .max_bytes = kMaxKeyBytes},
                     {.name = "owner",
                      .description = "Admin: the principal whose conversation it is "
                                     "(default: the caller). Ignored for a user under ACL.",
                      .non_blank = true,
                      .max_bytes = kMaxPrincipalBytes}},
          .result_schema = ErasedSchema(),
          .handler = HandleSessionForget,
          .render = [](const json&, const json& result) { return RenderErased(result); }};
}

MethodSpec PrincipalForgetSpec() {
  return {.name = "memory.principal_forget",
          .description =
              "Admin: erase everything a principal owns (entries, tool rules, turns and "
              "sessions with all that memory.session_forget removes, facets, documents, "
              "context events, triples). Returns the counts per kind.",
          .params = {{.name = "principal",
                      .description = "The principal to erase.",
                      .required = true,
                      .non_blank = true,
                      .max_bytes = kMaxPrincipalBytes}},
          .result_schema = ErasedSchema(),
          .handler = HandlePrincipalForget,
          .render = [](const json&, const json& result) { return RenderErased(result); }};
}

}  // namespace

void AddErasureMethods(MethodTable& table) {
  table.Add(SessionForgetSpec());
  table.Add(PrincipalForgetSpec());
}

}  // namespace mnemo::transport
