// The Archivist service's writes (core/archivist_service.h): a turn's rows,
// segments and archive files, segment finalisation on the worker, idle
// segments, recap vectors, and erasure's part outside storage.

#include "core/archivist_service.h"

#include <algorithm>
#include <chrono>
#include <set>
#include <thread>

#include "archivist/archive_erase.h"
#include "archivist/segments.h"
#include "archivist/turn_indexer.h"
#include "core/public_episodic.h"
#include "core/turn_result_json.h"

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
  const double fallback = config.embedding.provider == "openai" ? 0.4 : 0.0;
  return {.memory_enabled = config.memory.enabled,
          .acl_enabled = config.memory.acl_enabled,
          .secrets = config.security.secrets,
          .redact_episodic = config.security.redact_episodic,
          .learning = config.learning,
          .search = config.search,
          .recap_token_budget = config.llm.recap_token_budget,
          .min_cosine = config.learning.min_cosine_similarity.value_or(fallback),
          .workspace = workspace,
          .archive_root = workspace + "/memory_tree/content/episodic"};
}

ArchivistService::ArchivistService(storage::EpisodicStore& episodic,
                                   storage::DocumentStore& documents, storage::GraphStore& graph,
                                   VectorsService& vectors, ToolsService& tools,
                                   internal::BackgroundWorker& worker,
                                   std::unique_ptr<llm::ChatClient> llm,
                                   std::shared_ptr<Clock> clock, std::shared_ptr<Logger> logger,
                                   ArchivistOptions options)
    : episodic_(episodic),
      documents_(documents),
      graph_(graph),
      vectors_(vectors),
      tools_(tools),
      worker_(worker),
      clock_(std::move(clock)),
      logger_(std::move(logger)),
      options_(std::move(options)),
      llm_(std::move(llm)),
      recaps_(vectors.embedder() == nullptr
                  ? nullptr
                  : std::make_unique<RecapVectors>(episodic, vectors.embedder()->signature())),
      archive_(options_.archive_root, static_cast<size_t>(options_.learning.archive_queue_rows),
               logger_) {
  // Recaps written under another embedder (or while it was down) get their
  // vector of this one, in the background.
  if (recaps_ != nullptr) {
    worker_.Post([this] {
      if (Result<int64_t> n = FillMissingRecapVectors(); !n.ok()) {
        logger_->Log(LogLevel::kWarn, "embedding earlier recaps: " + n.status().message());
      }
    });
  }
}

ArchivistService::~ArchivistService() = default;

Result<bool> ArchivistService::FinishTurn(const storage::TurnKey& key, const TurnResult& result) {
  return episodic_.FinishTurnClaim(key, EncodeTurnResult(result));
}

void ArchivistService::Flush() {
  worker_.Flush();
  archive_.Flush();
}

void ArchivistService::ForgetRecapVectors(const std::vector<std::string>& segment_ids,
                                          const std::optional<std::string>& owner) {
  if (recaps_ != nullptr) recaps_->Forget(segment_ids, owner);
}

Result<int64_t> ArchivistService::EraseArchiveFiles(const std::vector<storage::TurnRow>& rows) {
  std::vector<archivist::ArchiveRow> files;
  files.reserve(rows.size());
  for (const storage::TurnRow& r : rows) files.push_back(archivist::ArchiveRowOf(r));
  return archivist::EraseArchiveFiles(options_.archive_root, files);
}

Status ArchivistService::IndexTurn(const Principal& who, const Turn& turn, TimeMs timestamp,
                                   const storage::TurnClaim* claim,
                                   std::optional<storage::TurnClaim>& earlier, TurnResult& result,
                                   std::vector<size_t>& cleaner_failed) {
  if (!options_.learning.episodic_capture_enabled) {
    if (claim == nullptr) return Status::Ok();
    // No rows to store, but the turn id is still claimed once.
    MNEMO_ASSIGN_OR_RETURN(storage::TurnClaimOutcome outcome, episodic_.ClaimTurn(*claim, {}));
    if (!outcome.claimed) earlier = std::move(outcome.claim);
    return Status::Ok();
  }
  MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* registry, tools_.Current());
  archivist::TurnIndexOptions options{
      .redact = options_.redact_episodic, .tools = registry, .claim = claim};
  MNEMO_ASSIGN_OR_RETURN(archivist::IndexedTurn indexed,
                         archivist::IndexTurn(episodic_, who.name, turn, timestamp, options));
  if (indexed.earlier) {
    earlier = std::move(indexed.earlier);
    return Status::Ok();
  }
  // The archive is best effort (spec 40) and written in the background; a
  // failure is logged, never fatal. "sync": true waits for it.
  archive_.Enqueue(archivist::ArchiveRowsOf(indexed));
  for (const context::CleanerFailure& f : indexed.computation.failures) {
    cleaner_failed.push_back(f.call_index);
  }
  // Segmentation (spec 40): the drift check needs the turn's vector, so it is
  // computed only when that check is on.
  const archivist::SegmentPolicy policy{.max_turns = options_.learning.max_turns_per_segment,
                                        .max_time_gap_secs = options_.learning.max_time_gap_secs,
                                        .min_cosine = options_.min_cosine};
  std::vector<float> vector;
  if (policy.min_cosine > 0 && vectors_.embedder() != nullptr) {
    const std::string text = indexed.computation.Joined();
    auto embedded = vectors_.embedder()->Embed(std::span<const std::string>(&text, 1));
    if (embedded.ok() && embedded->size() == 1) vector = std::move((*embedded)[0]);
  }
  MNEMO_ASSIGN_OR_RETURN(archivist::SegmentStep step,
                         archivist::AdvanceSegment(episodic_, indexed.user, indexed.assistant,
                                                   turn.user_message, vector, policy));
  result.segment_id = step.open_id;
  result.closed_segment_id = step.closed_id;
  if (!step.closed_id.empty()) PostFinalize(step.closed_id);
  if (turn.sync) {
    archive_.Flush();
    worker_.Flush();
  }
  result.redactions = indexed.redactions;
  result.user_row = ToEpisodicTurn(std::move(indexed.user));
  result.assistant_row = ToEpisodicTurn(std::move(indexed.assistant));
  return Status::Ok();
}

Result<TurnResult> ArchivistService::ReplayTurn(storage::TurnClaim claim) {
  // The first call stores its result right after its rule capture; a
  // duplicate that arrives meanwhile waits for it (polling the store, so a
  // duplicate in another process waits too).
  const auto deadline = std::chrono::steady_clock::now() + kReplayWait;
  auto pause = std::chrono::milliseconds(1);
  while (claim.result.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(25));
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::TurnClaim> now,
                           episodic_.GetTurnClaim(claim.key));
    if (!now) return NotFound("turn " + claim.key.turn_id + " is no longer stored");
    claim = std::move(*now);
  }
  TurnResult out;
  // Without a result the first call never finished (it failed before
  // storing it, or its process died): what it stored is the answer.
  if (!claim.result.empty()) {
    MNEMO_ASSIGN_OR_RETURN(out, DecodeTurnResult(claim.result));
  }
  if (claim.first_seq >= 0) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> rows,
                           episodic_.SessionTurns(claim.key.owner, claim.key.session_id,
                                                  claim.first_seq, claim.first_seq + 1));
    for (storage::TurnRow& r : rows) {
      if (r.role == "user") {
        out.user_row = ToEpisodicTurn(std::move(r));
      } else {
        out.assistant_row = ToEpisodicTurn(std::move(r));
      }
    }
  }
  out.replayed = true;
  return out;
}

void ArchivistService::PostFinalize(std::string segment_id) {
  worker_.Post([this, id = std::move(segment_id)] {
    archivist::FinalizeOptions options{.token_budget = options_.recap_token_budget,
                                       .events = options_.learning.events_enabled,
                                       .profile = options_.learning.profile_enabled,
                                       .llm = llm_.get(),
                                       .embedder = vectors_.embedder(),
                                       .documents = options_.learning.chat_to_documents_enabled};
    if (Status s =
            archivist::FinalizeSegment(episodic_, documents_, graph_, id, options, clock_->NowMs());
        !s.ok()) {
      logger_->Log(LogLevel::kWarn, "cannot finalise segment " + id + ": " + s.message());
    }
    // Then give earlier extractive recaps another chance with the LLM.
    if (Result<int> pass = archivist::ResummarisePass(episodic_, options); !pass.ok()) {
      logger_->Log(LogLevel::kWarn, "re-summarising recaps: " + pass.status().message());
    }
  });
}

Result<SessionEndResult> ArchivistService::SessionEnd(const Principal& who,
                                                      std::string_view session_id, bool sync) {
  MNEMO_RETURN_IF_ERROR(ValidateSessionId(session_id));
  MNEMO_ASSIGN_OR_RETURN(std::string closed, archivist::CloseOpenSegment(
                                                 episodic_, who.name, session_id, clock_->NowMs()));
  SessionEndResult out{.closed = !closed.empty(), .segment_id = closed};
  if (out.closed) PostFinalize(std::move(closed));
  if (sync) worker_.Flush();
  return out;
}

Result<int64_t> ArchivistService::CloseIdleSegments(bool sync) {
  const int64_t idle_secs = options_.learning.session_idle_close_secs;
  if (!options_.memory_enabled || idle_secs <= 0) return 0;
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
      MNEMO_ASSIGN_OR_RETURN(storage::SegmentChange applied,
                             episodic_.StepSegment(s.owner, s.session_id, decide));
      if (applied.close_open) {
        PostFinalize(s.id);
        ++closed;
      }
    }
    if (idle.size() < static_cast<size_t>(kIdleBatch)) break;
  }
  if (sync) worker_.Flush();
  return closed;
}

Result<int64_t> ArchivistService::FillMissingRecapVectors() {
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
