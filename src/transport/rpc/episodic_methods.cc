// The Archivist's methods (spec 40): episodic search, a session's turns and
// the MEMORY.md / SKILL.md writer.
#include <optional>

#include "base/time.h"
#include "core/validation.h"
#include "transport/rpc/method_table.h"
#include "transport/rpc/rule_wire.h"

namespace mnemo::transport {
namespace {

ParamSpec SessionParam(bool required) {
  return {.name = "session_id",
          .description = required ? "The conversation's id." : "Only this conversation.",
          .required = required,
          .non_blank = true,
          .max_bytes = kMaxKeyBytes};
}

Result<json> HandleEpisodicSearch(const MethodContext& ctx, const json& p) {
  EpisodicQuery q{.query = p.at("query"),
                  .limit = p.at("limit").get<int>(),
                  .context_turns = p.at("context_turns").get<int>()};
  if (p.contains("session_id")) q.session_id = p.at("session_id").get<std::string>();
  if (p.contains("agent_id")) q.agent_id = p.at("agent_id").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(q.window, TimeWindowOf(p));
  q.recency_weight = p.at("recency_weight").get<double>();
  MNEMO_ASSIGN_OR_RETURN(std::vector<EpisodicHit> hits,
                         ctx.engine.archivist().EpisodicSearch(ctx.principal, q));
  json results = json::array();
  for (const EpisodicHit& h : hits) {
    json row = EpisodicTurnToJson(h.turn);
    row["score"] = h.score;
    row["snippet"] = h.snippet;
    if (q.context_turns > 0) {
      json context = json::array();
      for (const EpisodicTurn& t : h.context) context.push_back(EpisodicTurnToJson(t));
      row["context"] = std::move(context);
    }
    results.push_back(std::move(row));
  }
  return json{{"results", std::move(results)}};
}

std::string RenderEpisodicSearch(const json& params, const json& result) {
  const json& hits = result.at("results");
  if (hits.empty()) return "No turns found for: " + params.at("query").get<std::string>();
  std::string out;
  for (const json& h : hits) {
    if (!out.empty()) out += "\n";
    out += "- [" + h.at("session_id").get<std::string>() + "#" +
           std::to_string(h.at("seq").get<int64_t>()) + " " + h.at("role").get<std::string>() +
           "] " + h.at("snippet").get<std::string>();
  }
  return out;
}

Result<json> HandleSessionTurns(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<EpisodicTurn> turns,
      ctx.engine.archivist().SessionTurns(ctx.principal, p.at("session_id").get<std::string>()));
  json rows = json::array();
  for (const EpisodicTurn& t : turns) rows.push_back(EpisodicTurnToJson(t));
  return json{{"session_id", p.at("session_id")}, {"turns", std::move(rows)}};
}

Result<json> HandleUpdateMemoryMd(const MethodContext& ctx, const json& p) {
  MemoryMdRequest req{.file = p.at("file"), .action = p.at("action"), .content = p.at("content")};
  if (p.contains("section_title")) req.section_title = p.at("section_title").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(MemoryMdReport r,
                         ctx.engine.archivist().UpdateMemoryMd(ctx.principal, req));
  return json{{"file", r.file}, {"bytes", r.bytes}, {"section_created", r.section_created}};
}

std::string RenderUpdateMemoryMd(const json& params, const json& result) {
  return "Updated " + result.at("file").get<std::string>() + " (" +
         params.at("action").get<std::string>() + ").";
}

Result<json> HandleSessionEnd(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      SessionEndResult r,
      ctx.engine.archivist().SessionEnd(ctx.principal, p.at("session_id").get<std::string>(),
                                        p.at("sync").get<bool>()));
  return json{{"closed", r.closed}, {"segment_id", r.segment_id}};
}

json SegmentToJson(const SegmentInfo& s) {
  return {{"id", s.id},
          {"session_id", s.session_id},
          {"status", s.status},
          {"first_seq", s.first_seq},
          {"last_seq", s.last_seq},
          {"turn_count", s.turn_count},
          {"started_at", internal::FormatRfc3339(s.started_at)},
          {"last_turn_at", internal::FormatRfc3339(s.last_turn_at)},
          {"closed_at", s.closed_at > 0 ? json(internal::FormatRfc3339(s.closed_at)) : json()},
          {"recap", s.recap},
          {"recap_source", s.recap_source}};
}

Result<json> HandleSegments(const MethodContext& ctx, const json& p) {
  std::string session;
  if (p.contains("session_id")) session = p.at("session_id").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(std::vector<SegmentInfo> segments,
                         ctx.engine.archivist().Segments(ctx.principal, session));
  json out = json::array();
  for (const SegmentInfo& s : segments) out.push_back(SegmentToJson(s));
  return json{{"segments", std::move(out)}};
}

// An event on the wire (memory.events adds its score).
json EventJson(const EventInfo& e) {
  return {
      {"id", e.id},
      {"session_id", e.session_id},
      {"segment_id", e.segment_id},
      {"type", e.type},
      {"text", e.text},
      {"confidence", e.confidence},
      {"created_at", internal::FormatRfc3339(e.created_at)},
      {"closed_at", e.closed_at == 0 ? json(nullptr) : json(internal::FormatRfc3339(e.closed_at))}};
}

Result<json> HandleEvents(const MethodContext& ctx, const json& p) {
  EventsQuery q{.limit = p.at("limit").get<int>()};
  if (p.contains("type")) q.type = p.at("type").get<std::string>();
  if (p.contains("query")) q.query = p.at("query").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(std::vector<EventInfo> events,
                         ctx.engine.archivist().Events(ctx.principal, q));
  json out = json::array();
  for (const EventInfo& e : events) {
    json row = EventJson(e);
    row["score"] = e.score;
    out.push_back(std::move(row));
  }
  return json{{"events", std::move(out)}};
}

// A facet on the wire: its current value, and with `history` its earlier
// values (spec 40 §5).
json FacetJson(const ProfileFacet& f, bool history) {
  json out{{"owner", f.owner},
           {"facet_type", f.facet_type},
           {"key", f.key},
           {"value", f.value},
           {"confidence", f.confidence},
           {"evidence_count", f.evidence_count},
           {"segment_ids", f.segment_ids},
           {"evidence", f.evidence},
           {"valid_from", internal::FormatRfc3339(f.valid_from)},
           {"updated_at", internal::FormatRfc3339(f.updated_at)}};
  if (history) {
    json earlier = json::array();
    for (const ProfileValue& v : f.history) {
      earlier.push_back({{"value", v.value},
                         {"confidence", v.confidence},
                         {"evidence", v.evidence},
                         {"valid_from", internal::FormatRfc3339(v.valid_from)},
                         {"valid_to", internal::FormatRfc3339(v.valid_to)}});
    }
    out["history"] = std::move(earlier);
  }
  return out;
}

Result<json> HandleProfile(const MethodContext& ctx, const json& p) {
  ProfileRequest req;
  MNEMO_ASSIGN_OR_RETURN(req.as_of, TimeOf(p, "as_of"));
  MNEMO_ASSIGN_OR_RETURN(std::vector<ProfileFacet> facets,
                         ctx.engine.knowledge().Profile(ctx.principal, req));
  const bool history = p.at("include_history").get<bool>();
  json out = json::array();
  for (const ProfileFacet& f : facets) out.push_back(FacetJson(f, history));
  return json{{"facets", std::move(out)}};
}

Result<json> HandleProfilePut(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(ProfileFacet f,
                         ctx.engine.knowledge().ProfilePut(
                             ctx.principal, p.at("facet_type").get<std::string>(),
                             p.at("key").get<std::string>(), p.at("value").get<std::string>()));
  return FacetJson(f, /*history=*/true);
}

Result<json> HandleProfileRender(const MethodContext& ctx, const json&) {
  MNEMO_ASSIGN_OR_RETURN(std::string rendered, ctx.engine.knowledge().ProfileRender(ctx.principal));
  return json{{"rendered", rendered}};
}

std::string RenderProfileText(const json&, const json& result) {
  const std::string rendered = result.at("rendered").get<std::string>();
  return rendered.empty() ? "No profile facets yet." : rendered;
}

MethodSpec SessionEndSpec() {
  return {.name = "memory.session_end",
          .description =
              "End a conversation: close its open segment and summarise it (recap, "
              "events, profile). Calling it again does nothing.",
          .params = {SessionParam(true),
                     {.name = "sync",
                      .type = ParamType::kBoolean,
                      .description = "Wait until the segment is summarised (default false).",
                      .default_value = false}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"closed", {{"type", "boolean"}}},
                              {"segment_id", {{"type", "string"}}}}}},
          .handler = HandleSessionEnd};
}

MethodSpec SegmentsSpec() {
  return {
      .name = "memory.segments",
      .read_only = true,
      .description =
          "The segments of a conversation (every conversation when session_id is "
          "absent), oldest first, with their recaps.",
      .params = {SessionParam(false)},
      .result_schema = {{"type", "object"}, {"properties", {{"segments", {{"type", "array"}}}}}},
      .handler = HandleSegments};
}

MethodSpec EventsSpec() {
  return {.name = "memory.events",
          .read_only = true,
          .description =
              "Decisions, commitments, reminders, preferences and facts found in past "
              "conversations; newest first, or by relevance to a query. A commitment or "
              "reminder the user said was done has its closed_at (null while open).",
          .params = {{.name = "type",
                      .description = "Only this type.",
                      .allowed = {"decision", "commitment", "reminder", "preference", "fact"}},
                     {.name = "query",
                      .description = "Rank by relevance to these words.",
                      .max_bytes = kMaxContentBytes},
                     {.name = "limit",
                      .type = ParamType::kInteger,
                      .description = "Maximum number of events (1-100, default 20).",
                      .default_value = 20,
                      .minimum = 1,
                      .maximum = kMaxResults}},
          .result_schema = {{"type", "object"}, {"properties", {{"events", {{"type", "array"}}}}}},
          .handler = HandleEvents};
}

MethodSpec ProfileSpec() {
  return {.name = "memory.profile",
          .read_only = true,
          .description =
              "The user's profile facets (preferences and context): each slot's current "
              "value with its evidence.",
          .params = {{.name = "include_history",
                      .type = ParamType::kBoolean,
                      .description = "Also each slot's earlier values with the time they held "
                                     "(default false).",
                      .default_value = false},
                     AsOfParam()},
          .result_schema = {{"type", "object"}, {"properties", {{"facets", {{"type", "array"}}}}}},
          .handler = HandleProfile};
}

MethodSpec ProfilePutSpec() {
  return {.name = "memory.profile_put",
          .description =
              "State a profile facet directly (confidence 0.9): e.g. facet_type "
              "preference, key editor, value \"Helix\".",
          .params = {{.name = "facet_type",
                      .description = "preference, context or another [a-z0-9_-] name.",
                      .required = true,
                      .max_bytes = kMaxCategoryBytes},
                     {.name = "key",
                      .description = "The facet's key.",
                      .required = true,
                      .max_bytes = kMaxKeyBytes},
                     {.name = "value",
                      .description = "The facet's value.",
                      .required = true,
                      .max_bytes = kMaxFacetValueBytes}},
          .result_schema = {{"type", "object"}},
          .handler = HandleProfilePut};
}

MethodSpec ProfileRenderSpec() {
  return {
      .name = "memory.profile_render",
      .read_only = true,
      .description = "The user's profile as markdown sections for a system prompt.",
      .result_schema = {{"type", "object"}, {"properties", {{"rendered", {{"type", "string"}}}}}},
      .handler = HandleProfileRender,
      .render = RenderProfileText};
}

// --- Corrections (issue 44 section 3): a facet or an event corrected or
// deleted. Not tools: correcting memory is the person's decision.

FacetAddress FacetAddressOf(const json& p) {
  FacetAddress at{.facet_type = p.at("facet_type"), .key = p.at("key")};
  if (p.contains("owner")) at.owner = p.at("owner").get<std::string>();
  return at;
}

Result<json> HandleProfileCorrect(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(ProfileFacet f,
                         ctx.engine.knowledge().ProfileCorrect(ctx.principal, FacetAddressOf(p),
                                                               p.at("value").get<std::string>()));
  return FacetJson(f, /*history=*/true);
}

Result<json> HandleProfileDelete(const MethodContext& ctx, const json& p) {
  MNEMO_RETURN_IF_ERROR(ctx.engine.knowledge().ProfileDelete(ctx.principal, FacetAddressOf(p)));
  return json{{"deleted", true}, {"facet_type", p.at("facet_type")}, {"key", p.at("key")}};
}

Result<json> HandleEventCorrect(const MethodContext& ctx, const json& p) {
  EventCorrection req{.id = p.at("id")};
  if (p.contains("type")) req.type = p.at("type").get<std::string>();
  if (p.contains("text")) req.text = p.at("text").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(EventInfo e, ctx.engine.archivist().EventCorrect(ctx.principal, req));
  return EventJson(e);
}

Result<json> HandleEventDelete(const MethodContext& ctx, const json& p) {
  MNEMO_RETURN_IF_ERROR(
      ctx.engine.archivist().EventDelete(ctx.principal, p.at("id").get<std::string>()));
  return json{{"deleted", true}, {"id", p.at("id")}};
}

std::vector<ParamSpec> FacetAddressParams() {
  return {
      {.name = "facet_type",
       .description = "The facet's type, as memory.profile lists it (preference, context, ...).",
       .required = true,
       .max_bytes = kMaxCategoryBytes},
      {.name = "key",
       .description = "The facet's key, as memory.profile lists it.",
       .required = true,
       .max_bytes = kMaxKeyBytes},
      {.name = "owner",
       .description = "Admin: the principal whose facet it is (default: the caller). "
                      "Ignored for a user under ACL.",
       .non_blank = true,
       .max_bytes = kMaxPrincipalBytes}};
}

ParamSpec EventIdParam() {
  return {.name = "id",
          .description = "The event's id, as memory.events lists it.",
          .required = true,
          .non_blank = true,
          .max_bytes = kMaxKeyBytes};
}

json DeletedSchema(std::initializer_list<const char*> fields) {
  json properties{{"deleted", {{"type", "boolean"}}}};
  for (const char* f : fields) properties[f] = {{"type", "string"}};
  return {{"type", "object"}, {"properties", std::move(properties)}};
}

MethodSpec ProfileCorrectSpec() {
  std::vector<ParamSpec> params = FacetAddressParams();
  params.insert(params.begin() + 2, {.name = "value",
                                     .description = "The right value.",
                                     .required = true,
                                     .max_bytes = kMaxFacetValueBytes});
  return {.name = "memory.profile_correct",
          .description =
              "Correct a profile facet: the value given becomes its current value at full "
              "confidence and the wrong one goes to its history. The facet must exist "
              "(memory.profile_put states a new one).",
          .params = std::move(params),
          .result_schema = {{"type", "object"}},
          .handler = HandleProfileCorrect};
}

MethodSpec ProfileDeleteSpec() {
  return {.name = "memory.profile_delete",
          .description =
              "Delete a profile facet with its history and the evidence it was built from: it "
              "leaves the profile, its rendering, the context block and the export.",
          .params = FacetAddressParams(),
          .result_schema = DeletedSchema({"facet_type", "key"}),
          .handler = HandleProfileDelete};
}

MethodSpec EventCorrectSpec() {
  return {.name = "memory.event_correct",
          .description = "Correct an event's text, its type, or both.",
          .params = {EventIdParam(),
                     {.name = "type",
                      .description = "The right type (as memory.events lists the types).",
                      .non_blank = true,
                      .max_bytes = kMaxCategoryBytes},
                     {.name = "text",
                      .description = "The right text.",
                      .non_blank = true,
                      .max_bytes = kMaxContentBytes}},
          .result_schema = {{"type", "object"}},
          .handler = HandleEventCorrect};
}

MethodSpec EventDeleteSpec() {
  return {.name = "memory.event_delete",
          .description =
              "Delete an event: it leaves memory.events, recall, the context block, the "
              "export and the text index.",
          .params = {EventIdParam()},
          .result_schema = DeletedSchema({"id"}),
          .handler = HandleEventDelete};
}

// A turn row with its score, snippet and (context_turns > 0) neighbours.
json EpisodicHitSchema() {
  json hit = EpisodicTurnSchema();
  hit["properties"]["score"] = {{"type", "number"}};
  hit["properties"]["snippet"] = {{"type", "string"}};
  hit["properties"]["context"] = {{"type", "array"}, {"items", EpisodicTurnSchema()}};
  return hit;
}

MethodSpec EpisodicSearchSpec() {
  return {.name = "memory.episodic_search",
          .read_only = true,
          .description =
              "Search past conversation turns (what the user and the assistant said, "
              "and what tools returned).",
          .params = {{.name = "query",
                      .description = "What to look for, in plain words.",
                      .required = true,
                      .max_bytes = kMaxContentBytes},
                     SessionParam(false),
                     {.name = "limit",
                      .type = ParamType::kInteger,
                      .description = "Maximum number of turns (1-100, default 20).",
                      .default_value = 20,
                      .minimum = 1,
                      .maximum = kMaxResults,
                      .aliases = {"max_results"}},
                     ContextTurnsParam(),
                     SinceParam(),
                     UntilParam(),
                     AgentIdFilterParam(),
                     RecencyWeightParam()},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"results", {{"type", "array"}, {"items", EpisodicHitSchema()}}}}}},
          .handler = HandleEpisodicSearch,
          .render = RenderEpisodicSearch,
          .tool_name = "episodic_search"};
}

MethodSpec SessionTurnsSpec() {
  return {.name = "memory.session_turns",
          .read_only = true,
          .description = "Every stored turn row of one conversation, in order.",
          .params = {SessionParam(true)},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"session_id", {{"type", "string"}}},
                              {"turns", {{"type", "array"}, {"items", EpisodicTurnSchema()}}}}}},
          .handler = HandleSessionTurns};
}

MethodSpec UpdateMemoryMdSpec() {
  return {.name = "memory.update_memory_md",
          .description =
              "Append to, or replace a section of, the workspace's MEMORY.md or "
              "SKILL.md (the knowledge files a harness loads). Admin under ACL: "
              "every principal's agent reads these files.",
          .params = {{.name = "file",
                      .description = "MEMORY.md or SKILL.md.",
                      .required = true,
                      .max_bytes = kMaxMemoryMdTitleBytes},
                     {.name = "action",
                      .description = "append (default) or replace_section.",
                      .default_value = "append",
                      .allowed = {"append", "replace_section"}},
                     {.name = "section_title",
                      .description = "replace_section: the section's title, without \"## \".",
                      .max_bytes = kMaxMemoryMdTitleBytes},
                     {.name = "content",
                      .description = "The text to write.",
                      .required = true,
                      .max_bytes = kMaxContentBytes}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"file", {{"type", "string"}}},
                              {"bytes", {{"type", "integer"}}},
                              {"section_created", {{"type", "boolean"}}}}}},
          .handler = HandleUpdateMemoryMd,
          .render = RenderUpdateMemoryMd,
          .tool_name = "update_memory_md",
          .tool_admin_under_acl = true};
}

}  // namespace

ParamSpec ContextTurnsParam() {
  return {.name = "context_turns",
          .type = ParamType::kInteger,
          .description =
              "Neighbouring turns of the same conversation returned with each turn "
              "hit, this many on each side (0-" +
              std::to_string(kMaxContextTurns) + ", default 0).",
          .default_value = 0,
          .minimum = 0,
          .maximum = kMaxContextTurns};
}

ParamSpec RecencyWeightParam() {
  return {.name = "recency_weight",
          .type = ParamType::kNumber,
          .description =
              "Share of the score given to recency, 0-1 (default 0): "
              "final = (1 - w) * relevance + w * 2^(-age / 30 days), age since the "
              "memory was last written or the turn was said.",
          .default_value = 0.0,
          .minimum = 0,
          .maximum = 1};
}

ParamSpec TimeParam(std::string name, std::string description) {
  return {.name = std::move(name),
          .description = std::move(description),
          .non_blank = true,
          .max_bytes = kMaxTimeBytes};
}

ParamSpec SinceParam() {
  return TimeParam("since",
                   "Only what was said or written at or after this time (RFC 3339, e.g. "
                   "2026-03-01T00:00:00Z).");
}

ParamSpec UntilParam() {
  return TimeParam("until", "Only what was said or written before this time (RFC 3339).");
}

Result<std::optional<TimeMs>> TimeOf(const json& params, const char* field) {
  if (!params.contains(field)) return std::optional<TimeMs>();
  const std::string text = params.at(field).get<std::string>();
  const std::optional<TimeMs> t = internal::ParseRfc3339(text);
  if (!t) {
    return InvalidArgument(std::string(field) + " \"" + text +
                               "\" is not an RFC 3339 date-time: use e.g. "
                               "2026-03-01T00:00:00Z or 2026-03-01T09:30:00+01:00",
                           field);
  }
  return t;
}

Result<TimeWindow> TimeWindowOf(const json& params) {
  TimeWindow w;
  MNEMO_ASSIGN_OR_RETURN(w.since, TimeOf(params, "since"));
  MNEMO_ASSIGN_OR_RETURN(w.until, TimeOf(params, "until"));
  return w;
}

ParamSpec AsOfParam() {
  return TimeParam("as_of",
                   "What was true at this time (RFC 3339), from the validity history; "
                   "default: now.");
}

ParamSpec AgentIdFilterParam() {
  return {.name = "agent_id",
          .description =
              "Only the turns of this agent (the agent_id given to "
              "memory.turn_complete).",
          .non_blank = true,
          .max_bytes = kMaxKeyBytes};
}

void AddEpisodicMethods(MethodTable& table) {
  table.Add(EpisodicSearchSpec());
  table.Add(SessionTurnsSpec());
  table.Add(UpdateMemoryMdSpec());
  table.Add(SessionEndSpec());
  table.Add(SegmentsSpec());
  table.Add(EventsSpec());
  table.Add(ProfileSpec());
  table.Add(ProfileRenderSpec());
  table.Add(ProfilePutSpec());
  table.Add(ProfileCorrectSpec());
  table.Add(ProfileDeleteSpec());
  table.Add(EventCorrectSpec());
  table.Add(EventDeleteSpec());
}

}  // namespace mnemo::transport
