#include <sys/stat.h>
#include <unistd.h>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/admin/admin_options.h"
#include "core/components.h"
#include "core/engine_impl.h"
#include "core/services/context_options.h"
#include "core/services/documents_options.h"
#include "core/services/knowledge_options.h"
#include "core/services/rules_options.h"
#include "core/services/tools_options.h"
#include "core/validation.h"
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
    MNEMO_ASSIGN_OR_RETURN(const storage::KeywordIndexPlace keyword_index,
                           storage::ParseKeywordIndexPlace(config.postgres.keyword_index));
    return storage::OpenPostgresStores({.url = config.postgres.url,
                                        .schema = config.postgres.schema,
                                        .pool_size = static_cast<int>(config.postgres.pool_size),
                                        .read_urls = config.postgres.read_urls,
                                        .keyword_index = keyword_index,
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
  // The services' audit seam (core/audit_record.h): null when disabled.
  if (impl->config.security.audit.enabled) {
    constexpr int64_t kMiB = 1024 * 1024;
    MNEMO_ASSIGN_OR_RETURN(
        impl->audit,
        internal::AuditLog::Open(internal::AuditLogPath(impl->config, impl->workspace),
                                 impl->config.security.audit.max_size_mb * kMiB,
                                 impl->config.security.audit.keep, impl->logger, impl->clock));
  }
  internal::AuditLog* const audit = impl->audit.get();
  MNEMO_ASSIGN_OR_RETURN(impl->stores, OpenStores(impl->config, impl->workspace, impl->logger));
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<embed::Embedder> embedder,
                         MakeEmbedder(impl->config.embedding, nullptr, impl->logger.get(),
                                      impl->workspace + "/" + std::string(kWordVectorsRecordName)));
  MNEMO_ASSIGN_OR_RETURN(VectorsOptions vectors_options,
                         VectorsOptionsOf(impl->config, impl->stores, impl->workspace));
  MNEMO_ASSIGN_OR_RETURN(impl->vectors,
                         VectorsService::Open(*impl->stores.entries, std::move(embedder),
                                              std::move(vectors_options), impl->logger));
  impl->search = std::make_unique<SearchService>(*impl->stores.entries, *impl->vectors, impl->clock,
                                                 impl->logger, SearchOptionsOf(impl->config));
  MNEMO_ASSIGN_OR_RETURN(impl->tools,
                         Tools::Open(*impl->stores.entries, audit, impl->clock, impl->logger,
                                     internal::ToolsOptionsOf(impl->config)));
  Engine::Impl* raw = impl.get();
  impl->rules = std::make_unique<Rules>(
      *impl->stores.entries, audit, impl->clock, impl->logger,
      internal::RulesOptionsOf(impl->config, [raw](std::span<const storage::Label> labels,
                                                   std::span<const std::string> texts) {
        raw->vectors->EmbedAndStore(labels, texts);
      }));
  impl->documents = std::make_unique<Documents>(
      *impl->stores.documents, *impl->stores.graph, audit, impl->clock,
      internal::DocumentsOptionsOf(
          impl->config,
          [raw](const Status& failure) { raw->memory->NoteAccessCountFailure(failure); },
          impl->vectors->soft_matcher()));
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<llm::ChatClient> llm, MakeChatClient(impl->config.llm));
  impl->worker = std::make_unique<internal::BackgroundWorker>(impl->logger);
  impl->archivist = std::make_unique<Archivist>(
      *impl->stores.episodic, *impl->stores.documents, *impl->stores.graph, *impl->vectors,
      *impl->tools, *impl->rules, *impl->worker, std::move(llm), audit, impl->clock, impl->logger,
      ArchivistOptionsOf(impl->config, impl->workspace));
  impl->knowledge =
      std::make_unique<Knowledge>(*impl->stores.graph, *impl->archivist, audit, impl->clock,
                                  internal::KnowledgeOptionsOf(impl->config));
  impl->recall = std::make_unique<RecallService>(
      *impl->stores.episodic, *impl->stores.documents, *impl->search, *impl->archivist,
      *impl->documents, *impl->tools, impl->clock, RecallOptionsOf(impl->config));
  impl->memory = std::make_unique<Memory>(*impl->stores.entries, *impl->vectors, *impl->search,
                                          *impl->recall, audit, impl->clock, impl->logger,
                                          MemoryOptionsOf(impl->config, impl->stores));
  impl->context = std::make_unique<Context>(
      *impl->stores.context_events, *impl->stores.documents, *impl->stores.graph, *impl->recall,
      audit, impl->clock,
      internal::ContextOptionsOf(impl->config, [raw]() -> Result<const context::ToolRegistry*> {
        return raw->tools->Current();
      }));
  impl->admin = std::make_unique<Admin>(
      impl->stores, *impl->vectors, *impl->tools, *impl->archivist, *impl->memory, audit,
      impl->clock, impl->logger, internal::AdminOptionsOf(impl->config, impl->workspace));
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
Logger& Engine::logger() const { return *impl_->logger; }
const std::string& Engine::workspace() const { return impl_->workspace; }

Memory& Engine::memory() { return *impl_->memory; }
Rules& Engine::rules() { return *impl_->rules; }
Archivist& Engine::archivist() { return *impl_->archivist; }
Knowledge& Engine::knowledge() { return *impl_->knowledge; }
Documents& Engine::documents() { return *impl_->documents; }
Context& Engine::context() { return *impl_->context; }
Tools& Engine::tools() { return *impl_->tools; }
Admin& Engine::admin() { return *impl_->admin; }

}  // namespace mnemo
