// The Archivist service's writes (core/archivist/archivist_options.h): a turn's rows,
// segments and archive files, segment finalisation on the worker, idle
// segments, recap vectors, and erasure's part outside storage.

#include "core/archivist/archivist_options.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "archivist/archive/archive_erase.h"
#include "archivist/segments.h"
#include "archivist/turn_indexer.h"
#include "core/archivist/public_episodic.h"
#include "core/audit_record.h"
#include "core/components.h"
#include "core/formats/turn_result_json.h"
#include "core/validation.h"
#include "storage/values.h"

namespace mnemo {
namespace {

// Idle segments close (spec 40, learning.session_idle_close_secs): a session
// whose harness never calls memory.session_end still gets its last
// segment's recap, events, profile facets and document.
constexpr int kIdleBatch = 100;        // idle segments read per query
constexpr int kMaxIdleBatches = 1000;  // per call: a bound, never reached in practice

}  // namespace

ArchivistOptions ArchivistOptionsOf(const Config& config, const std::string& workspace) {
  // The drift check is meaningful with a semantic embedder only (spec 15).
  const double fallback = IsSemanticProvider(config.embedding.provider) ? 0.4 : 0.0;
  return {.memory_enabled = config.memory.enabled,
          .acl_enabled = config.memory.acl_enabled,
          .secrets = config.security.secrets,
          .redact_episodic = config.security.redact_episodic,
          .learning = config.learning,
          .search = config.search,
          .recap_token_budget = config.llm.recap_token_budget,
          .min_cosine = config.learning.min_cosine_similarity.value_or(fallback),
          .workspace = workspace,
          .archive_root = workspace + "/memory_tree/content/episodic",
          .max_body_bytes = config.server.max_body_bytes};
}

Archivist::Archivist(storage::EpisodicStore& episodic, storage::DocumentStore& documents,
                     storage::GraphStore& graph, VectorsService& vectors, Tools& tools,
                     Rules& rules, internal::BackgroundWorker& worker,
                     std::unique_ptr<llm::ChatClient> llm, internal::AuditLog* audit,
                     std::shared_ptr<Clock> clock, std::shared_ptr<Logger> logger,
                     ArchivistOptions options)
    : episodic_(episodic),
      documents_(documents),
      graph_(graph),
      vectors_(vectors),
      tools_(tools),
      rules_(rules),
      worker_(worker),
      audit_(audit),
      clock_(std::move(clock)),
      logger_(std::move(logger)),
      options_(std::make_unique<const ArchivistOptions>(std::move(options))),
      llm_(std::move(llm)),
      recaps_(vectors.embedder() == nullptr
                  ? nullptr
                  : std::make_unique<RecapVectors>(episodic, vectors.embedder()->signature())),
      archive_(std::make_unique<archivist::ArchiveWriter>(
          options_->archive_root, static_cast<size_t>(options_->learning.archive_queue_rows),
          logger_)) {
  // Recaps written under another embedder (or while it was down) get their
  // vector of this one, in the background.
  if (recaps_ != nullptr) {
    worker_.Post("recap vectors", [this] {
      if (Result<int64_t> n = FillMissingRecapVectors(); !n.ok()) {
        logger_->Log(LogLevel::kWarn, "embedding earlier recaps: " + n.status().message());
      }
    });
  }
}

Archivist::~Archivist() {
  closing_ = true;
  result_retries_.reset();  // its jobs see closing_ and stop; then the thread ends
}

ArchiveQueueStats Archivist::ArchiveQueue() const {
  const archivist::ArchiveWriter::Counts c = archive_->counts();
  return {.bound = static_cast<int64_t>(c.bound),
          .depth = static_cast<int64_t>(c.depth),
          .peak = static_cast<int64_t>(c.peak),
          .written = c.written,
          .problems = c.problems};
}

void Archivist::Flush() {
  worker_.Flush();
  archive_->Flush();
}

void Archivist::ForgetRecapVectors(const std::vector<std::string>& segment_ids,
                                   const std::optional<std::string>& owner) {
  if (recaps_ != nullptr) recaps_->Forget(segment_ids, owner);
}

Result<int64_t> Archivist::EraseArchiveFiles(const std::vector<storage::TurnRow>& rows) {
  std::vector<archivist::ArchiveRow> files;
  files.reserve(rows.size());
  for (const storage::TurnRow& r : rows) files.push_back(archivist::ArchiveRowOf(r));
  return archivist::EraseArchiveFiles(options_->archive_root, files);
}

void Archivist::PostFinalize(const std::string& owner, const std::string& session_id,
                             std::string segment_id) {
  const std::pair<std::string, std::string> session{owner, session_id};
  {
    std::lock_guard lock(finalize_mu_);
    ++finalizing_[session];
  }
  worker_.Post("segment finalize", [this, session, id = std::move(segment_id)] {
    archivist::FinalizeOptions options{
        .token_budget = options_->recap_token_budget,
        .events = options_->learning.events_enabled,
        .profile = options_->learning.profile_enabled,
        .llm = llm_.get(),
        .embedder = vectors_.embedder(),
        .documents = options_->learning.chat_to_documents_enabled,
        .warn = [this](const std::string& message) { logger_->Log(LogLevel::kWarn, message); }};
    if (Status s =
            archivist::FinalizeSegment(episodic_, documents_, graph_, id, options, clock_->NowMs());
        !s.ok()) {
      logger_->Log(LogLevel::kWarn, "cannot finalise segment " + id + ": " + s.message());
    }
    {
      std::lock_guard lock(finalize_mu_);
      if (--finalizing_[session] <= 0) finalizing_.erase(session);
    }
    finalize_cv_.notify_all();
    // Then give earlier extractive recaps another chance with the LLM.
    if (Result<int> pass = archivist::ResummarisePass(episodic_, options); !pass.ok()) {
      logger_->Log(LogLevel::kWarn, "re-summarising recaps: " + pass.status().message());
    }
  });
}

Result<SessionEndResult> Archivist::SessionEnd(const Principal& who, std::string_view session_id,
                                               bool sync) {
  internal::AuditRecord audit(audit_, who, "memory.session_end");
  return audit.End([&]() -> Result<SessionEndResult> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    MNEMO_ASSIGN_OR_RETURN(const SessionId session, SessionId::Parse(std::string(session_id)));
    MNEMO_ASSIGN_OR_RETURN(std::string closed, archivist::CloseOpenSegment(
                                                   episodic_, who.name, session, clock_->NowMs()));
    SessionEndResult out{.closed = !closed.empty(), .segment_id = closed};
    if (out.closed) PostFinalize(who.name, std::string(session_id), std::move(closed));
    // Whoever closed the session's segments (this call, a turn, the idle
    // close), a read after memory.session_end sees what they gave.
    AwaitFinalized(who.name, session_id);
    if (sync) worker_.Flush();
    return out;
  }());
}

void Archivist::AwaitFinalized(const std::string& owner, std::string_view session_id) {
  const std::pair<std::string, std::string> session{owner, std::string(session_id)};
  std::unique_lock lock(finalize_mu_);
  finalize_cv_.wait(lock, [&] { return !finalizing_.contains(session); });
}

Result<int64_t> Archivist::CloseIdleSegments(bool sync) {
  const int64_t idle_secs = options_->learning.session_idle_close_secs;
  if (!options_->memory_enabled || idle_secs <= 0) return 0;
  const TimeMs now = clock_->NowMs();
  const TimeMs cutoff = now - idle_secs * 1000;
  int64_t closed = 0;
  for (int batch = 0; batch < kMaxIdleBatches; ++batch) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> idle,
                           episodic_.IdleOpenSegments(cutoff, kIdleBatch));
    for (const storage::SegmentRow& s : idle) {
      // Closed only if it is still this open segment and still idle inside
      // the write: a turn that arrived since the read keeps it open.
      auto decide = [&](const storage::SegmentView& view) -> Result<storage::SegmentChange> {
        storage::SegmentChange change;
        if (view.open && view.open->id == s.id && view.open->last_turn_at < cutoff) {
          change.close_open = true;
          change.closed_at = now;
        }
        return change;
      };
      MNEMO_ASSIGN_OR_RETURN(SessionId session, SessionId::Parse(s.session_id));
      MNEMO_ASSIGN_OR_RETURN(storage::SegmentChange applied,
                             episodic_.StepSegment(s.owner, session, decide));
      if (applied.close_open) {
        PostFinalize(s.owner, s.session_id, s.id);
        ++closed;
      }
    }
    if (idle.size() < static_cast<size_t>(kIdleBatch)) break;
  }
  if (sync) worker_.Flush();
  return closed;
}

Result<int64_t> Archivist::FillMissingRecapVectors() {
  if (vectors_.embedder() == nullptr) return 0;
  std::set<std::string> have;
  for (int64_t version = 0;;) {
    constexpr int kBatch = 1000;
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::SegmentVector> batch,
        episodic_.SegmentVectorsSince(vectors_.embedder()->signature(), version, kBatch));
    for (storage::SegmentVector& v : batch) {
      version = std::max(version, v.version);
      have.insert(std::move(v.segment_id));
    }
    if (batch.size() < static_cast<size_t>(kBatch)) break;
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> segments,
                         episodic_.Segments(true, "", std::nullopt));
  int64_t embedded = 0;
  for (const storage::SegmentRow& s : segments) {
    if (s.status != "closed" || s.recap.empty() || have.contains(s.id)) continue;
    MNEMO_RETURN_IF_ERROR(archivist::EmbedRecap(episodic_, s, vectors_.embedder()));
    ++embedded;
  }
  return embedded;
}

}  // namespace mnemo
