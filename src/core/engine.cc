#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/components.h"
#include "core/engine_impl.h"
#include "storage/stores.h"

namespace mnemo {
namespace {

namespace fs = std::filesystem;

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

// mkdir -p with mode 0700 for every folder it creates. A workspace that
// holds a database but takes no writes (a read-only file system) is
// opened: the store then answers reads and refuses writes naming the cause.
Status MakeWorkspace(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  if (ec) return Unavailable("workspace " + dir + " cannot be resolved: " + ec.message());
  fs::path cur;
  for (const fs::path& part : p) {
    cur /= part;
    struct stat existing {};
    if (::stat(cur.c_str(), &existing) == 0 && S_ISDIR(existing.st_mode)) continue;
    if (::mkdir(cur.c_str(), 0700) != 0 && errno != EEXIST) {
      return Unavailable("cannot create workspace folder " + cur.string() + ": " +
                         std::strerror(errno));
    }
  }
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Unavailable("workspace " + p.string() + " is not a folder");
  }
  const bool has_database = ::access((p / "mnemo.db").c_str(), R_OK) == 0;
  if (::access(p.c_str(), R_OK | W_OK | X_OK) != 0 &&
      !(has_database && ::access(p.c_str(), R_OK | X_OK) == 0)) {
    return Unavailable("workspace " + p.string() + " is not writable: " + std::strerror(errno) +
                       "; choose another with --workspace or MNEMO_WORKSPACE");
  }
  return Status::Ok();
}

Result<storage::Stores> OpenStores(const Config& config, const std::string& workspace,
                                   const std::shared_ptr<Logger>& logger) {
  const std::string& kind = config.memory.backend;
  // `embeddings` is sqlite with an embedder required (spec 10).
  if (kind == "embeddings" && config.embedding.provider == "none") {
    return InvalidArgument(
        "memory.backend = \"embeddings\" needs an embedder, but [embedding] provider is "
        "\"none\": set [embedding] provider to \"hash\" or \"openai\" "
        "(MNEMO_EMBEDDING_PROVIDER), or use memory.backend = \"sqlite\"",
        "embedding.provider");
  }
  if (kind == "sqlite" || kind == "embeddings") {
    return storage::OpenSqliteStores({.path = workspace + "/mnemo.db", .logger = logger});
  }
  if (kind == "in_memory") return storage::NewMemoryStores();
  if (kind == "markdown") {
    // Entries in the files (spec 10), with their index in a dot folder
    // beside them; turns, documents and the rest stay in the workspace
    // database, so deleting the index loses nothing.
    std::filesystem::path root(config.memory.path.empty() ? "memory" : config.memory.path);
    if (root.is_relative()) root = std::filesystem::path(workspace) / root;
    return storage::OpenMarkdownStores(
        {.root = root.string(), .data_path = workspace + "/mnemo.db", .logger = logger});
  }
  if (kind == "postgres") {
    return storage::OpenPostgresStores({.url = config.postgres.url,
                                        .schema = config.postgres.schema,
                                        .pool_size = static_cast<int>(config.postgres.pool_size),
                                        .read_urls = config.postgres.read_urls,
                                        .logger = logger});
  }
  // The config loader admits only the kinds above.
  return InvalidArgument("memory.backend \"" + kind +
                             "\" is unknown: use sqlite, markdown, postgres, in_memory or "
                             "embeddings",
                         "memory.backend");
}

}  // namespace

std::string ResolveWorkspace(std::string_view flag) {
  if (!flag.empty()) return std::string(flag);
  if (std::string ws = Env("MNEMO_WORKSPACE"); !ws.empty()) return ws;
  if (std::string xdg = Env("XDG_DATA_HOME"); !xdg.empty()) return xdg + "/mnemo";
  std::string home = Env("HOME");
  if (home.empty()) home = ".";
  return home + "/.local/share/mnemo";
}

Status internal::Services::CheckEnabled() const {
  if (config.memory.enabled) return Status::Ok();
  return Disabled("memory is disabled by configuration (memory.enabled = false)");
}

Result<std::unique_ptr<Engine>> Engine::Open(const EngineOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->config = options.config;
  impl->clock = options.clock ? options.clock : SystemClock();
  if (options.logger) {
    impl->logger = options.logger;
  } else {
    // An invalid MNEMO_LOG is refused here rather than ignored.
    MNEMO_RETURN_IF_ERROR(LogLevelFromEnvironment().status());
    impl->logger = StderrLogger();
  }
  std::string ws = ResolveWorkspace(options.workspace);
  MNEMO_RETURN_IF_ERROR(MakeWorkspace(ws));
  std::error_code ec;
  impl->workspace = std::filesystem::canonical(ws, ec).string();
  if (ec) return Unavailable("workspace " + ws + " cannot be resolved: " + ec.message());
  MNEMO_ASSIGN_OR_RETURN(impl->stores, OpenStores(impl->config, impl->workspace, impl->logger));
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<embed::Embedder> embedder,
                         MakeEmbedder(impl->config.embedding, nullptr, impl->logger.get(),
                                      impl->workspace + "/" + std::string(kWordVectorsRecordName)));
  MNEMO_ASSIGN_OR_RETURN(VectorsOptions vectors_options,
                         VectorsOptionsOf(impl->config, impl->stores, impl->workspace));
  MNEMO_ASSIGN_OR_RETURN(impl->vectors,
                         VectorsService::Open(*impl->stores.entries, std::move(embedder),
                                              std::move(vectors_options), impl->logger));
  impl->memory =
      std::make_unique<MemoryService>(*impl->stores.entries, *impl->vectors, impl->clock,
                                      impl->logger, MemoryOptionsOf(impl->config, impl->stores));
  impl->search = std::make_unique<SearchService>(*impl->stores.entries, *impl->vectors, impl->clock,
                                                 impl->logger, SearchOptionsOf(impl->config));
  MNEMO_ASSIGN_OR_RETURN(impl->tools,
                         ToolsService::Open(*impl->stores.entries, impl->clock, impl->logger,
                                            ToolsOptionsOf(impl->config)));
  Engine::Impl* raw = impl.get();
  impl->rules = std::make_unique<RulesService>(
      *impl->stores.entries, impl->clock, impl->logger, RulesOptionsOf(impl->config),
      [raw](std::span<const storage::Label> labels, std::span<const std::string> texts) {
        raw->vectors->EmbedAndStore(labels, texts);
      });
  impl->graph = std::make_unique<GraphService>(*impl->stores.graph, impl->clock,
                                               GraphOptionsOf(impl->config));
  impl->documents = std::make_unique<DocumentsService>(
      *impl->stores.documents, *impl->stores.graph, impl->clock, DocumentsOptionsOf(impl->config),
      [raw](const Status& failure) { raw->memory->NoteAccessCountFailure(failure); },
      impl->vectors->soft_matcher());
  impl->context_window = std::make_unique<ContextWindowService>(
      *impl->stores.context_events, *impl->stores.documents, *impl->stores.graph, impl->clock,
      ContextWindowOptionsOf(impl->config),
      [raw]() -> Result<const context::ToolRegistry*> { return raw->tools->Current(); });
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<llm::ChatClient> llm, MakeChatClient(impl->config.llm));
  impl->worker = std::make_unique<internal::BackgroundWorker>(impl->logger);
  impl->archivist = std::make_unique<ArchivistService>(
      *impl->stores.episodic, *impl->stores.documents, *impl->stores.graph, *impl->vectors,
      *impl->tools, *impl->rules, *impl->worker, std::move(llm), impl->clock, impl->logger,
      ArchivistOptionsOf(impl->config, impl->workspace));
  impl->admin = std::make_unique<AdminService>(impl->stores, *impl->vectors, *impl->tools,
                                               *impl->archivist, impl->clock, impl->logger,
                                               AdminOptionsOf(impl->config, impl->workspace));
  impl->recall = std::make_unique<RecallService>(
      *impl->stores.episodic, *impl->stores.documents, *impl->search, *impl->archivist,
      *impl->documents, *impl->tools, impl->clock, RecallOptionsOf(impl->config));
  impl->services = std::make_unique<internal::Services>(
      internal::Services{.config = impl->config,
                         .memory = *impl->memory,
                         .search = *impl->search,
                         .tools = *impl->tools,
                         .rules = *impl->rules,
                         .graph = *impl->graph,
                         .documents = *impl->documents,
                         .context_window = *impl->context_window,
                         .archivist = *impl->archivist,
                         .recall = *impl->recall,
                         .admin = *impl->admin});
  if (impl->config.security.audit.enabled) {
    constexpr int64_t kMiB = 1024 * 1024;
    MNEMO_ASSIGN_OR_RETURN(
        impl->audit, internal::AuditLog::Open(internal::AuditLogPath(impl->config, impl->workspace),
                                              impl->config.security.audit.max_size_mb * kMiB,
                                              impl->config.security.audit.keep, impl->logger));
  }
  // Segments left open by a session that never ended (spec 40): a CLI or
  // stdio process closes them when it opens; their finalisation runs on the
  // worker, drained when the engine closes.
  if (auto idle = impl->archivist->CloseIdleSegments(/*sync=*/false); !idle.ok()) {
    impl->logger->Log(LogLevel::kWarn, "closing idle segments: " + idle.status().message());
  }
  // Hygiene at start-up when due (spec 10), off the opening thread.
  impl->worker->Post("hygiene", [raw] {
    if (auto r = raw->memory->RunHygieneIfDue(); !r.ok()) {
      raw->logger->Log(LogLevel::kWarn, "hygiene: " + r.status().message());
    }
  });
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Engine::~Engine() = default;

const Config& Engine::config() const { return impl_->config; }
const internal::Services& Engine::services() const { return *impl_->services; }
Logger& Engine::logger() const { return *impl_->logger; }
const std::string& Engine::workspace() const { return impl_->workspace; }

Result<StoreResult> Engine::Store(const Principal& who, const StoreRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->memory->Store(who, req);
}
Result<Entry> Engine::Get(const Principal& who, const GetRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->memory->Get(who, req);
}
Result<bool> Engine::Forget(const Principal& who, const ForgetRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->memory->Forget(who, req);
}
Result<SearchResponse> Engine::Search(const Principal& who, const SearchRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->search->Search(who, req);
}
Result<RecallResponse> Engine::Recall(const Principal& who, const RecallRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->recall->Recall(who, req);
}
Result<ToolRule> Engine::PutToolRule(const Principal& who, const ToolRulePut& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->rules->Put(who, req);
}
Result<std::optional<ToolRule>> Engine::GetToolRule(const Principal& who, std::string_view tool,
                                                    std::string_view id) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->rules->Get(who, tool, id);
}
Result<std::vector<ToolRule>> Engine::ListToolRules(const Principal& who,
                                                    std::optional<std::string_view> tool) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->rules->List(who, tool);
}
Result<bool> Engine::DeleteToolRule(const Principal& who, std::string_view tool,
                                    std::string_view id) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->rules->Delete(who, tool, id);
}
Result<PromptRules> Engine::ToolRulesForPrompt(const Principal& who,
                                               const std::vector<std::string>& tools) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->rules->ForPrompt(who, tools);
}
Result<TurnResult> Engine::TurnComplete(const Principal& who, const Turn& turn) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->TurnComplete(who, turn);
}
Result<std::vector<EpisodicHit>> Engine::EpisodicSearch(const Principal& who,
                                                        const EpisodicQuery& q) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->EpisodicSearch(who, q);
}
Result<std::vector<EpisodicTurn>> Engine::SessionTurns(const Principal& who,
                                                       std::string_view session_id) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->SessionTurns(who, session_id);
}
Result<SessionEndResult> Engine::SessionEnd(const Principal& who, std::string_view session_id,
                                            bool sync) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->SessionEnd(who, session_id, sync);
}
Result<std::vector<SegmentInfo>> Engine::Segments(const Principal& who,
                                                  std::string_view session_id) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->Segments(who, session_id);
}
Result<std::vector<EventInfo>> Engine::Events(const Principal& who, const EventsQuery& q) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->Events(who, q);
}
Result<std::vector<ProfileFacet>> Engine::Profile(const Principal& who, const ProfileRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->Profile(who, req);
}
Result<ProfileFacet> Engine::ProfilePut(const Principal& who, std::string_view facet_type,
                                        std::string_view key, std::string_view value) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->ProfilePut(who, facet_type, key, value);
}
Result<std::string> Engine::ProfileRender(const Principal& who) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->ProfileRender(who);
}
Result<MemoryMdReport> Engine::UpdateMemoryMd(const Principal& who, const MemoryMdRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->UpdateMemoryMd(who, req);
}
Result<GraphUpsertResult> Engine::GraphUpsert(const Principal& who, const GraphUpsertRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->graph->Upsert(who, req);
}
Result<std::vector<Triple>> Engine::GraphQuery(const Principal& who, const GraphQueryRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->graph->Query(who, req);
}
Result<ProfileFacet> Engine::ProfileCorrect(const Principal& who, const FacetAddress& at,
                                            std::string_view value) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->ProfileCorrect(who, at, value);
}
Status Engine::ProfileDelete(const Principal& who, const FacetAddress& at) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->ProfileDelete(who, at);
}
Result<EventInfo> Engine::EventCorrect(const Principal& who, const EventCorrection& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->EventCorrect(who, req);
}
Status Engine::EventDelete(const Principal& who, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->archivist->EventDelete(who, id);
}
Result<GraphUpsertResult> Engine::GraphCorrect(const Principal& who, const GraphCorrection& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->graph->Correct(who, req);
}
Status Engine::GraphDelete(const Principal& who, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->graph->Delete(who, id);
}

Result<ContextBlock> Engine::ContextBuild(const Principal& who, const ContextBuildRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->recall->ContextBuild(who, req);
}
Result<Entry> Engine::MarkUseful(const Principal& who, const GetRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->memory->MarkUseful(who, req);
}
Result<ListPage> Engine::List(const Principal& who, const ListRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->memory->List(who, req);
}
Result<Stats> Engine::GetStats(const Principal& who) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->memory->GetStats(who);
}
Result<ToolInfo> Engine::RegisterTool(const Principal& who, const ToolSpec& spec) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->tools->Register(&who, spec);
}
Result<ToolInfo> Engine::RegisterTool(const ToolSpec& spec) {
  return impl_->tools->Register(nullptr, spec);
}
Result<std::vector<ToolInfo>> Engine::ListTools(const Principal& /*who*/) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->tools->List();
}
Result<ReindexReport> Engine::Reindex(const Principal& who, const ProgressFn& progress) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->admin->Reindex(who, progress);
}
Result<HygieneReport> Engine::RunHygiene(const Principal& who) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->memory->RunHygiene(who);
}
void Engine::Audit(const Principal& who, const AuditEvent& event) {
  if (impl_->audit != nullptr) impl_->audit->Append(impl_->clock->NowMs(), who, event);
}
Result<PathCheck> Engine::PathProtected(const Principal& /*who*/, std::string_view path) {
  return impl_->admin->PathProtected(path);
}
Result<std::optional<HygieneReport>> Engine::RunHygieneIfDue() {
  return impl_->memory->RunHygieneIfDue();
}
Result<int64_t> Engine::CloseIdleSegments(bool sync) {
  return impl_->archivist->CloseIdleSegments(sync);
}
Status Engine::SaveVectorIndexes() { return impl_->vectors->SaveAll(); }
ArchiveQueueStats Engine::ArchiveQueue() const {
  const archivist::ArchiveWriter::Counts c = impl_->archivist->ArchiveCounts();
  return {.bound = static_cast<int64_t>(c.bound),
          .depth = static_cast<int64_t>(c.depth),
          .peak = static_cast<int64_t>(c.peak),
          .written = c.written,
          .problems = c.problems};
}
Status Engine::ExportJsonl(const Principal& who, std::ostream& out, const ExportOptions& options) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->admin->ExportJsonl(who, out, options);
}
Result<ImportReport> Engine::ImportJsonl(const Principal& who, std::istream& in,
                                         const ProgressFn& progress, const ImportOptions& options) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->admin->ImportJsonl(who, in, progress, options);
}

Result<ForeignImportReport> Engine::ImportForeign(const Principal& who, const std::string& path,
                                                  const ForeignImportOptions& options) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->admin->ImportForeign(who, path, options);
}

Result<DocumentPutResult> Engine::DocPut(const Principal& who, const DocumentPutRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->documents->Put(who, req);
}
Result<Document> Engine::DocGet(const Principal& who, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->documents->Get(who, id);
}
Result<std::vector<DocumentSearchHit>> Engine::DocSearch(const Principal& who,
                                                         const DocumentSearchRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->documents->Search(who, req);
}
Result<DocumentList> Engine::DocList(const Principal& who, const DocumentListRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->documents->List(who, req);
}
Result<bool> Engine::DocDelete(const Principal& who, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->documents->Delete(who, id);
}

Result<ContextAppendResult> Engine::ContextAppend(const Principal& who,
                                                  const ContextAppendRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->context_window->Append(who, req);
}
Result<ContextWindow> Engine::GetContextWindow(const Principal& who,
                                               const ContextWindowRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->context_window->Window(who, req);
}
Result<ContextPruneResult> Engine::ContextPrune(const Principal& who, std::string_view session_id,
                                                int64_t keep) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->context_window->Prune(who, session_id, keep);
}

Result<ErasureCounts> Engine::SessionForget(const Principal& who, const SessionForgetRequest& req) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->admin->SessionForget(who, req);
}
Result<ErasureCounts> Engine::PrincipalForget(const Principal& who, std::string_view principal) {
  MNEMO_RETURN_IF_ERROR(impl_->CheckEnabled());
  return impl_->admin->PrincipalForget(who, principal);
}

}  // namespace mnemo
