// The memory methods of spec 10: the five tools plus mark_useful, list and
// stats. One MethodSpec each; AddMemoryMethods appends them to the table.
#include <optional>

#include "base/time.h"
#include "core/formats/entry_json.h"
#include "core/validation.h"
#include "transport/rpc/memory_wire.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {
namespace {

ParamSpec KeyParam() {
  return {.name = "key",
          .description = "The memory's key (1-256 bytes, no control characters).",
          .required = true,
          .max_bytes = kMaxKeyBytes};
}

// `with_default`: key-addressed methods default to "global"; search-like ones
// cover every non-system namespace when it is absent.
ParamSpec NamespaceParam(bool with_default) {
  ParamSpec p{.name = "namespace",
              .description = with_default
                                 ? "Namespace of the memory (default \"global\")."
                                 : "Only this namespace (default: every non-system namespace).",
              .non_blank = true,
              .max_bytes = kMaxNamespaceBytes};
  if (with_default) p.default_value = "global";
  return p;
}

// `namespace_prefix` of memory.search and memory.list.
ParamSpec NamespacePrefixParam() {
  return {.name = "namespace_prefix",
          .description =
              "Only namespaces starting with this (\"users.alice.\" for the tree under "
              "users.alice); not with namespace. System namespaces stay out.",
          .non_blank = true,
          .max_bytes = kMaxNamespaceBytes};
}

ParamSpec OwnerParam() {
  return {.name = "owner",
          .description = "Admin only: address the entry of this principal exactly.",
          .non_blank = true,
          .max_bytes = kMaxPrincipalBytes};
}

ParamSpec CategoryParam(std::optional<std::string> default_value, std::string description) {
  return {.name = "category",
          .description = std::move(description),
          .non_blank = true,
          .max_bytes = kMaxCategoryBytes,
          .default_value = default_value ? std::optional<json>(*default_value) : std::nullopt};
}

ParamSpec QueryParam() {
  return {.name = "query",
          .description = "What to look for, in plain words (any text is allowed).",
          .required = true,
          .max_bytes = kMaxContentBytes};
}

ParamSpec MaxResultsParam() {
  return {.name = "max_results",
          .type = ParamType::kInteger,
          .description = "Maximum number of results (1-100, default 20).",
          .default_value = 20,
          .minimum = 1,
          .maximum = kMaxResults,
          .aliases = {"limit"}};
}

ParamSpec TagsParam(std::string description) {
  return {.name = "tags", .type = ParamType::kStringArray, .description = std::move(description)};
}

ParamSpec EmbeddingParam(std::string description) {
  return {
      .name = "embedding", .type = ParamType::kNumberArray, .description = std::move(description)};
}

std::optional<std::string> OptString(const json& p, const char* name) {
  auto it = p.find(name);
  if (it == p.end()) return std::nullopt;
  return it->get<std::string>();
}

GetRequest ToGetRequest(const json& p) {
  return {.key = p.at("key"), .ns = p.at("namespace"), .owner = OptString(p, "owner")};
}

// A miss gets the spec's text whatever the engine's wording.
Status MissStatus(const Status& s, const std::string& key) {
  if (s.code() == StatusCode::kNotFound) return NotFound(GetMissText(key));
  return s;
}

Result<json> HandleStore(const MethodContext& ctx, const json& p) {
  StoreRequest req{.key = p.at("key"),
                   .content = p.at("value"),
                   .category = p.at("category"),
                   .ns = p.at("namespace")};
  if (p.contains("tags")) req.tags = p.at("tags").get<std::vector<std::string>>();
  if (p.contains("visibility")) {
    MNEMO_ASSIGN_OR_RETURN(req.visibility, ParseVisibility(p.at("visibility").get<std::string>()));
  }
  if (p.contains("embedding")) req.embedding = p.at("embedding").get<std::vector<float>>();
  MNEMO_ASSIGN_OR_RETURN(StoreResult r, ctx.engine.memory().Store(ctx.principal, req));
  return StoreResultToJson(r);
}

Result<json> HandleGet(const MethodContext& ctx, const json& p) {
  Result<Entry> e = ctx.engine.memory().Get(ctx.principal, ToGetRequest(p));
  if (!e.ok()) return MissStatus(e.status(), p.at("key"));
  return EntryToJson(*e);
}

Result<json> HandleForget(const MethodContext& ctx, const json& p) {
  ForgetRequest req{.key = p.at("key"), .ns = p.at("namespace"), .owner = OptString(p, "owner")};
  MNEMO_ASSIGN_OR_RETURN(bool forgotten, ctx.engine.memory().Forget(ctx.principal, req));
  return json{{"forgotten", forgotten}};
}

Result<json> HandleSearch(const MethodContext& ctx, const json& p) {
  SearchRequest req{.query = p.at("query"),
                    .category = OptString(p, "category"),
                    .ns = OptString(p, "namespace"),
                    .ns_prefix = OptString(p, "namespace_prefix"),
                    .max_results = p.at("max_results").get<int>(),
                    .include_archived = p.at("include_archived").get<bool>()};
  if (p.contains("tags")) req.tags = p.at("tags").get<std::vector<std::string>>();
  if (p.contains("min_score")) req.min_score = p.at("min_score").get<double>();
  if (p.contains("embedding")) req.embedding = p.at("embedding").get<std::vector<float>>();
  MNEMO_ASSIGN_OR_RETURN(req.window, TimeWindowOf(p));
  req.recency_weight = p.at("recency_weight").get<double>();
  MNEMO_ASSIGN_OR_RETURN(SearchResponse r, ctx.engine.memory().Search(ctx.principal, req));
  return SearchResponseToJson(r);
}

Result<json> HandleRecall(const MethodContext& ctx, const json& p) {
  RecallRequest req{.query = p.at("query"),
                    .ns = OptString(p, "namespace"),
                    .max_results = p.at("max_results").get<int>(),
                    .context_turns = p.at("context_turns").get<int>()};
  if (p.contains("agent_id")) req.agent_id = p.at("agent_id").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(req.window, TimeWindowOf(p));
  req.recency_weight = p.at("recency_weight").get<double>();
  MNEMO_ASSIGN_OR_RETURN(RecallResponse r, ctx.engine.memory().Recall(ctx.principal, req));
  return RecallResponseToJson(r);
}

Result<json> HandleMarkUseful(const MethodContext& ctx, const json& p) {
  Result<Entry> e = ctx.engine.memory().MarkUseful(ctx.principal, ToGetRequest(p));
  if (!e.ok()) return MissStatus(e.status(), p.at("key"));
  return EntryToJson(*e);
}

Result<json> HandleList(const MethodContext& ctx, const json& p) {
  ListRequest req{.category = OptString(p, "category"),
                  .ns = OptString(p, "namespace"),
                  .ns_prefix = OptString(p, "namespace_prefix"),
                  .limit = p.at("limit").get<int>(),
                  .offset = p.at("offset").get<int64_t>()};
  MNEMO_ASSIGN_OR_RETURN(ListPage page, ctx.engine.memory().List(ctx.principal, req));
  return ListPageToJson(page);
}

Result<json> HandleStats(const MethodContext& ctx, const json&) {
  MNEMO_ASSIGN_OR_RETURN(Stats s, ctx.engine.memory().GetStats(ctx.principal));
  return StatsToJson(s);
}

json EntrySchema() {
  json str = {{"type", "string"}};
  json integer = {{"type", "integer"}};
  return ResultObject({{"id", str},
                       {"key", str},
                       {"namespace", str},
                       {"category", str},
                       {"content", str},
                       {"tags", {{"type", "array"}, {"items", str}}},
                       {"owner", str},
                       {"visibility", {{"type", "string"}, {"enum", {"private", "public"}}}},
                       {"created_at", {{"type", "string"}, {"format", "date-time"}}},
                       {"updated_at", {{"type", "string"}, {"format", "date-time"}}},
                       {"access_count", integer},
                       {"useful_count", integer},
                       {"archived", {{"type", "boolean"}}}});
}

// `hit` is the schema of one result.
json HitsSchema(json hit) {
  return ResultObject({{"results", {{"type", "array"}, {"items", std::move(hit)}}},
                       {"degraded", {{"type", {"string", "null"}}}}});
}

json SearchResultSchema() {
  json str = {{"type", "string"}};
  json num = {{"type", "number"}};
  return HitsSchema(ResultObject(
      {{"id", str},
       {"key", str},
       {"namespace", str},
       {"category", str},
       {"owner", str},
       {"content", str},
       {"snippet", str},
       {"score", num},
       {"keyword_score", num},
       {"vector_score", {{"type", {"number", "null"}}}},
       {"created_at", str},
       {"updated_at", str},
       {"soft_matches",
        {{"type", "array"},
         {"items",
          ResultObject({{"query_word", str}, {"stored_word", str}, {"similarity", num}})}}}},
      {"soft_matches"}));
}

json RecallResultSchema() {
  json str = {{"type", "string"}};
  json hit = {{"source",
               {{"type", "string"},
                {"enum", {"entry", "tool_rule", "turn", "segment", "event", "document"}}}},
              {"id", str},
              {"key", str},
              {"namespace", str},
              {"category", str},
              {"content", str},
              {"score", {{"type", "number"}}}};
  // A context turn is a hit without a score.
  json context = {{"type", "array"}, {"items", ResultObject(hit, {"score"})}};
  hit["context"] = std::move(context);
  return HitsSchema(ResultObject(std::move(hit), {"context"}));
}

MethodSpec StoreSpec() {
  return {.name = "memory.store",
          .description =
              "Store a fact in long-term memory under a key (replaces the memory with "
              "the same key and namespace).",
          .params = {KeyParam(),
                     {.name = "value",
                      .description = "The content to remember, stored byte for byte (up to 1 MiB).",
                      .required = true,
                      .max_bytes = kMaxContentBytes,
                      .aliases = {"content"}},
                     CategoryParam("core",
                                   "core, daily, conversation, or a custom [a-z0-9_-]{1,64} "
                                   "name (default core)."),
                     NamespaceParam(true),
                     TagsParam("Free-form tags."),
                     {.name = "visibility",
                      .description = "private (default) or public; matters when ACL is on.",
                      .allowed = {"private", "public"}},
                     EmbeddingParam("Your own vector for this memory (stored in the space "
                                    "external:<dim> beside the embedder's).")},
          .result_schema = ResultObject({{"key", {{"type", "string"}}},
                                         {"namespace", {{"type", "string"}}},
                                         {"category", {{"type", "string"}}},
                                         {"id", {{"type", "string"}}},
                                         {"created", {{"type", "boolean"}}}}),
          .handler = HandleStore,
          .render = RenderStore,
          .tool_name = "memory_store"};
}

MethodSpec GetSpec() {
  return {.name = "memory.get",
          .read_only = true,
          .description = "Read one memory by its exact key.",
          .params = {KeyParam(), NamespaceParam(true), OwnerParam()},
          .result_schema = EntrySchema(),
          .handler = HandleGet,
          .render = RenderEntry,
          .tool_name = "memory_get"};
}

MethodSpec RecallSpec() {
  return {.name = "memory.recall",
          .read_only = true,
          .description =
              "Recall anything related to a query across every memory layer "
              "(entries, tool rules, conversations, documents). A conversation result is a "
              "passage: the matching turn with the turns around it, one \"role: text\" line "
              "each.",
          .params = {QueryParam(), MaxResultsParam(), NamespaceParam(false), ContextTurnsParam(),
                     SinceParam(), UntilParam(), AgentIdFilterParam(), RecencyWeightParam()},
          .result_schema = RecallResultSchema(),
          .handler = HandleRecall,
          .render = RenderRecall,
          .tool_name = "memory_recall",
          .tool_hidden_under_acl = true};
}

MethodSpec SearchSpec() {
  return {.name = "memory.search",
          .read_only = true,
          .description = "Search stored memories by meaning and keywords.",
          .params = {QueryParam(),
                     CategoryParam(std::nullopt, "Only this category."),
                     NamespaceParam(false),
                     NamespacePrefixParam(),
                     TagsParam("Only memories carrying all of these tags."),
                     MaxResultsParam(),
                     EmbeddingParam("Your own query vector: the vector side searches "
                                    "external:<dim> instead of embedding the query."),
                     {.name = "min_score",
                      .type = ParamType::kNumber,
                      .description = "Minimum final score in [0,1] (default: the configured "
                                     "search.min_relevance_score).",
                      .minimum = 0,
                      .maximum = 1},
                     {.name = "include_archived",
                      .type = ParamType::kBoolean,
                      .description = "Also search archived memories (default false).",
                      .default_value = false},
                     SinceParam(),
                     UntilParam(),
                     RecencyWeightParam()},
          .result_schema = SearchResultSchema(),
          .handler = HandleSearch,
          .render = RenderSearch,
          .tool_name = "memory_search"};
}

MethodSpec ForgetSpec() {
  return {.name = "memory.forget",
          .description = "Delete a memory by its exact key.",
          .params = {KeyParam(), NamespaceParam(true), OwnerParam()},
          .result_schema = ResultObject({{"forgotten", {{"type", "boolean"}}}}),
          .handler = HandleForget,
          .render = RenderForget,
          .tool_name = "memory_forget"};
}

MethodSpec MarkUsefulSpec() {
  return {.name = "memory.mark_useful",
          .description = "Mark a memory as useful (three marks exempt it from hygiene).",
          .params = {KeyParam(), NamespaceParam(true), OwnerParam()},
          .result_schema = EntrySchema(),
          .handler = HandleMarkUseful,
          .render = RenderMarkUseful};
}

MethodSpec ListSpec() {
  return {.name = "memory.list",
          .read_only = true,
          .description = "List memories page by page, most recently updated first.",
          .params = {CategoryParam(std::nullopt, "Only this category."),
                     NamespaceParam(false),
                     NamespacePrefixParam(),
                     {.name = "limit",
                      .type = ParamType::kInteger,
                      .description = "Page size (1-1000, default 50).",
                      .default_value = 50,
                      .minimum = 1,
                      .maximum = kMaxPageSize},
                     {.name = "offset",
                      .type = ParamType::kInteger,
                      .description = "Entries to skip (default 0); pass next_offset.",
                      .default_value = 0,
                      .minimum = 0}},
          .result_schema = ResultObject({{"items", {{"type", "array"}, {"items", EntrySchema()}}},
                                         {"next_offset", {{"type", {"integer", "null"}}}}}),
          .handler = HandleList,
          .render = RenderList};
}

// memory.stats' embedder: the same names memory.health gives it.
json EmbedderSchema() {
  json text = {{"type", "string"}};
  return ResultObject({{"provider", text}, {"signature", text}, {"word_vectors", text}});
}

MethodSpec StatsSpec() {
  json counts = {{"type", "object"}, {"additionalProperties", {{"type", "integer"}}}};
  return {.name = "memory.stats",
          .read_only = true,
          .description =
              "Counts of memories by category and namespace, backend and schema, "
              "and the active embedder and word-vector file.",
          .result_schema = ResultObject({{"entries", {{"type", "integer"}}},
                                         {"archived", {{"type", "integer"}}},
                                         {"by_category", counts},
                                         {"by_namespace", counts},
                                         {"backend", {{"type", "string"}}},
                                         {"schema_version", {{"type", "integer"}}},
                                         {"embedder", EmbedderSchema()}}),
          .handler = HandleStats,
          .render = RenderStats};
}

MethodSpec HygieneSpec() {
  json integer = {{"type", "integer"}};
  return {.name = "memory.hygiene_run",
          .description =
              "Run hygiene now (admin under ACL): archive daily and custom memories "
              "not written for memory.archive_after_days, delete conversation "
              "memories past memory.conversation_retention_days; core memories, "
              "useful ones (useful_count >= 3) and system namespaces are kept.",
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"ran_at", {{"type", "string"}, {"format", "date-time"}}},
                              {"scanned", integer},
                              {"archived", integer},
                              {"deleted", integer},
                              {"exempt_useful", integer}}}},
          .handler = [](const MethodContext& ctx, const json&) -> Result<json> {
            MNEMO_ASSIGN_OR_RETURN(HygieneReport r, ctx.engine.admin().RunHygiene(ctx.principal));
            return json{{"ran_at", mnemo::internal::FormatRfc3339(r.ran_at)},
                        {"scanned", r.scanned},
                        {"archived", r.archived},
                        {"deleted", r.deleted},
                        {"exempt_useful", r.exempt_useful}};
          },
          .render = [](const json&, const json& r) -> std::string {
            return "Hygiene: " + r.at("archived").dump() + " archived, " + r.at("deleted").dump() +
                   " deleted, " + r.at("exempt_useful").dump() + " kept as useful (" +
                   r.at("scanned").dump() + " entries scanned)";
          }};
}

// {"status": the worst check's status code name ("ok", "unavailable",
// "corruption"), "checks": [{"part", "status", "message"}]}.
json IntegrityJson(const std::vector<HealthReport::Check>& checks) {
  auto rank = [](StatusCode code) {
    return code == StatusCode::kCorruption ? 2 : code == StatusCode::kOk ? 0 : 1;
  };
  StatusCode worst = StatusCode::kOk;
  json list = json::array();
  for (const HealthReport::Check& c : checks) {
    if (rank(c.status.code()) > rank(worst)) worst = c.status.code();
    list.push_back({{"part", c.part},
                    {"status", StatusCodeName(c.status.code())},
                    {"message", c.status.message()}});
  }
  return {{"status", StatusCodeName(worst)}, {"checks", std::move(list)}};
}

MethodSpec HealthSpec() {
  const json text = {{"type", "string"}};
  const json integer = {{"type", "integer"}};
  return {.name = "memory.health",
          .read_only = true,
          .description =
              "The store's health (admin under ACL): backend, embedder, the open vector "
              "spaces with their size and index kind, the archive queue, when scheduled "
              "hygiene last ran, the audit log's "
              "last lines (addresses and outcomes, never content), and integrity: a bounded "
              "check of the database's pages and of each vector index file's checksum "
              "(status corruption when damaged; writes are then refused).",
          .params = {{.name = "audit_lines",
                      .type = ParamType::kInteger,
                      .description = "How many of the audit log's last lines (0-200, default 20).",
                      .default_value = 20,
                      .minimum = 0,
                      .maximum = 200}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"backend", text},
                              {"schema_version", integer},
                              {"embedder", {{"type", "object"}}},
                              {"spaces", {{"type", "array"}}},
                              {"archive_queue", {{"type", "object"}}},
                              {"hygiene_last_scheduled_run", {{"type", {"string", "null"}}}},
                              {"audit", {{"type", "object"}}},
                              {"integrity", {{"type", "object"}}}}}},
          .handler = [](const MethodContext& ctx, const json& p) -> Result<json> {
            MNEMO_ASSIGN_OR_RETURN(
                HealthReport r,
                ctx.engine.admin().Health(ctx.principal, p.at("audit_lines").get<int>()));
            json spaces = json::array();
            for (const HealthReport::Space& s : r.spaces) {
              spaces.push_back({{"signature", s.signature},
                                {"dimensions", s.dimensions},
                                {"vectors", s.vectors},
                                {"kind", s.kind}});
            }
            return json{{"backend", r.backend},
                        {"schema_version", r.schema_version},
                        {"embedder",
                         {{"provider", r.embedding_provider},
                          {"signature", r.embedder_signature},
                          {"state", r.embedder_state},
                          {"word_vectors", r.word_vectors}}},
                        {"spaces", std::move(spaces)},
                        {"archive_queue",
                         {{"bound", r.archive.bound},
                          {"depth", r.archive.depth},
                          {"peak", r.archive.peak},
                          {"written", r.archive.written},
                          {"problems", r.archive.problems}}},
                        {"hygiene_last_scheduled_run",
                         r.hygiene_last_scheduled_run
                             ? json(mnemo::internal::FormatRfc3339(*r.hygiene_last_scheduled_run))
                             : json(nullptr)},
                        {"audit", {{"enabled", r.audit_enabled}, {"lines", r.audit_tail}}},
                        {"integrity", IntegrityJson(r.integrity)}};
          }};
}

MethodSpec PathProtectedSpec() {
  return {
      .name = "memory.path_protected",
      .read_only = true,
      .description =
          "Whether a path is part of mnemo's storage (workspace database, "
          "index, archive, knowledge files, markdown store, audit log), after "
          "resolving symlinks and '..': a file tool should refuse it.",
      .params = {{.name = "path",
                  .type = ParamType::kString,
                  .description = "Absolute path (a relative one is taken from the "
                                 "daemon's working directory)",
                  .required = true,
                  .max_bytes = 4096}},
      .result_schema = {{"type", "object"},
                        {"properties",
                         {{"protected", {{"type", "boolean"}}},
                          {"path", {{"type", "string"}}},
                          {"reason", {{"type", "string"}}}}}},
      .handler = [](const MethodContext& ctx, const json& p) -> Result<json> {
        MNEMO_ASSIGN_OR_RETURN(PathCheck c, ctx.engine.admin().PathProtected(
                                                ctx.principal, p.at("path").get<std::string>()));
        json out = {{"protected", c.is_protected}, {"path", c.resolved}};
        if (c.is_protected) out["reason"] = c.reason;
        return out;
      },
      .render = [](const json&, const json& r) -> std::string {
        return r.at("protected").get<bool>() ? "protected: " + r.at("path").get<std::string>() +
                                                   " is " + r.at("reason").get<std::string>()
                                             : "not protected: " + r.at("path").get<std::string>();
      },
      // The path guard answers whether memory is enabled or not.
      .needs_memory = false};
}

}  // namespace

void AddMemoryMethods(MethodTable& table) {
  table.Add(StoreSpec());
  table.Add(GetSpec());
  table.Add(RecallSpec());
  table.Add(SearchSpec());
  table.Add(ForgetSpec());
  table.Add(MarkUsefulSpec());
  table.Add(ListSpec());
  table.Add(StatsSpec());
  table.Add(HygieneSpec());
  table.Add(HealthSpec());
  table.Add(PathProtectedSpec());
}

}  // namespace mnemo::transport
