// memory.turn_complete (specs 30 and 40) as one pipeline: the turn
// validated, redacted once, its episodic rows, archive files and
// segment step, then the rules service's capture and tool statistics;
// idempotent under a turn id (core/archivist/archivist_options.h).

#include <algorithm>
#include <chrono>
#include <thread>
#include <utility>

#include "archivist/segments.h"
#include "archivist/turn_indexer.h"
#include "base/background_worker.h"
#include "base/json_limits.h"
#include "core/archivist/archivist_options.h"
#include "core/archivist/public_episodic.h"
#include "core/audit_record.h"
#include "core/formats/turn_result_json.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "storage/rules/episodic_rules.h"
#include "storage/values.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo {

Result<TurnResult> Archivist::TurnComplete(const Principal& who, Turn turn) {
  internal::AuditRecord audit(audit_, who, "memory.turn_complete");
  Result<TurnResult> audited = [&]() -> Result<TurnResult> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory_enabled));
    // The session and the turn id are parsed once, here, and go down typed.
    MNEMO_ASSIGN_OR_RETURN(SessionId session, SessionId::Parse(turn.session_id));
    std::optional<TurnId> turn_id;
    if (turn.turn_id) {
      MNEMO_ASSIGN_OR_RETURN(TurnId id, TurnId::Parse(*turn.turn_id));
      turn_id = std::move(id);
    }
    MNEMO_RETURN_IF_ERROR(ValidateTurn(turn));
    TurnResult result;
    const TimeMs now = clock_->NowMs();
    // With a turn_id the rows are stored under a claim of (principal, session,
    // turn id) in the same transaction: of any number of calls with it,
    // threads or processes, one stores the turn and the others replay its
    // result.
    std::optional<storage::TurnClaim> claim;
    if (turn_id) {
      claim = storage::TurnClaim{.key = {.owner = who.name,
                                         .session_id = session,  // a short copy: see below
                                         .turn_id = std::move(*turn_id)},
                                 .claimed_at = now};
    }
    // The turn as its rows keep it, redacted once, and only when the rows are
    // redacted; the rules then read its redacted user message instead of
    // redacting their own. Its messages are moved, not copied, when nothing
    // reads the original after: the assistant response never, the user
    // message unless the rules keep secrets (security.secrets = "allow"). The
    // tool calls are copied: the rules class a failure by its output as given.
    std::optional<Turn> redacted;
    int redactions = 0;
    if (options_->redact_episodic && options_->learning.episodic_capture_enabled) {
      std::string user_message = std::exchange(turn.user_message, {});
      std::string assistant_response = std::exchange(turn.assistant_response, {});
      redacted = turn;
      if (!rules_.RedactsEdicts()) turn.user_message = user_message;
      redacted->user_message = std::move(user_message);
      redacted->assistant_response = std::move(assistant_response);
      redactions = archivist::RedactTurn(*redacted);
    }
    std::optional<storage::TurnClaim> earlier;
    // Episodic rows first: the turn is kept even if rule capture fails later.
    std::vector<size_t> cleaner_failed;
    Status done =
        IndexTurn(who, redacted ? *redacted : turn, redactions, turn.timestamp.value_or(now),
                  claim ? &*claim : nullptr, earlier, result, cleaner_failed);
    if (earlier) {
      const bool wait = !IsUnfinishedTurn(earlier->key);
      Result<TurnResult> replayed = ReplayTurn(std::move(*earlier), wait);
      if (turn.sync) Flush();
      return replayed;
    }
    // Claimed by this call: a repeat waits for its result again.
    if (claim && done.ok()) MarkUnfinishedTurn(claim->key, false);
    if (done.ok()) {
      // The rules read the original turn (a failure's class comes from its
      // output as the tool gave it). Its user message moved into the stored
      // user row, read there: as given, or redacted when the rows are and the
      // rules redact too; the turn keeps its own only when no row was stored
      // or the rules keep secrets the rows redact (the one copy, above).
      std::string_view user_message = turn.user_message;
      bool user_redacted = false;
      if (result.user_row && (!redacted || rules_.RedactsEdicts())) {
        user_message = result.user_row->content;
        user_redacted = redacted.has_value();
      }
      done = rules_.Capture(
          who, turn, user_message, user_redacted, now, cleaner_failed,
          [&]() -> Result<std::vector<std::string>> {
            MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* registry, tools_.Current());
            std::vector<std::string> names;
            for (const context::ToolRegistry::Listed& l : registry->All())
              names.push_back(l.spec->name);
            return names;
          },
          result);
    }
    if (done.ok()) done = RecordRuleCaptures(who, session, result);  // the parsed session again
    if (claim) {
      // Stored even after a failure part way, so a retry answers with what
      // was done instead of waiting; kNotFound: the failure came before the
      // claim.
      Result<bool> finished = episodic_.FinishTurnClaim(claim->key, EncodeTurnResult(result));
      if (!finished.ok() && finished.status().code() != StatusCode::kNotFound) {
        logger_->Log(LogLevel::kWarn,
                     "cannot store the result of turn " + claim->key.turn_id.str() + ": " +
                         finished.status().message() + "; trying again in the background");
        MarkUnfinishedTurn(claim->key, true);
        StoreTurnResultLater(claim->key, EncodeTurnResult(result));
      }
    }
    MNEMO_RETURN_IF_ERROR(done);
    return result;
  }();
  if (audited.ok()) audit.Redacted(audited->redactions);  // spec 40: by count
  return audit.End(std::move(audited));
}

Status Archivist::RecordRuleCaptures(const Principal& who, const SessionId& session_id,
                                     const TurnResult& result) {
  // Edicts are the user's words; a repeated-failure rule is the engine's.
  for (const std::vector<ToolRule>* rules : {&result.new_rules, &result.refreshed_rules}) {
    for (const ToolRule& r : *rules) {
      if (r.source != RuleSource::kUserExplicit) continue;
      MNEMO_RETURN_IF_ERROR(episodic_.AddRuleCapture({.owner = who.name,
                                                      .session_id = session_id,
                                                      .tool_name = r.tool_name,
                                                      .rule_id = r.id}));
    }
  }
  return Status::Ok();
}

Status Archivist::ValidateTurn(const Turn& turn) const {
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const std::string field = "tool_calls[" + std::to_string(i) + "].name";
    MNEMO_ASSIGN_OR_RETURN(std::string tool, Rules::CheckToolName(turn.tool_calls[i].name, field));
    // "*" names the unscoped rules, never a tool that ran.
    if (tool == rules::kAnyTool) {
      return InvalidArgument(field + " \"*\" is reserved for unscoped rules: use the tool's name",
                             field);
    }
    MNEMO_RETURN_IF_ERROR(internal::CheckJsonLimits(
        turn.tool_calls[i].arguments_json, "tool_calls[" + std::to_string(i) + "].arguments",
        options_->max_body_bytes));
    const std::string at = "tool_calls[" + std::to_string(i) + "]";
    MNEMO_RETURN_IF_ERROR(
        ValidateSize(turn.tool_calls[i].output, at + ".output", kMaxContentBytes));
    if (turn.tool_calls[i].clean_output) {
      MNEMO_RETURN_IF_ERROR(
          ValidateSize(*turn.tool_calls[i].clean_output, at + ".clean_output", kMaxContentBytes));
    }
    if (turn.tool_calls[i].duration_ms < 0) {
      return InvalidArgument(
          "tool_calls[" + std::to_string(i) + "].duration_ms must not be negative",
          "tool_calls[" + std::to_string(i) + "].duration_ms");
    }
  }
  MNEMO_RETURN_IF_ERROR(ValidateSize(turn.agent_id, "agent_id", kMaxKeyBytes));
  for (const auto& [text, field] : {std::pair{&turn.user_message, "user_message"},
                                    std::pair{&turn.assistant_response, "assistant_response"}}) {
    MNEMO_RETURN_IF_ERROR(ValidateSize(*text, field, kMaxContentBytes));
    if (!text::IsValidUtf8(*text)) {
      return InvalidArgument(std::string(field) + " is not valid UTF-8", field);
    }
  }
  return Status::Ok();
}

Status Archivist::IndexTurn(const Principal& who, Turn& turn, int redactions, TimeMs timestamp,
                            const storage::TurnClaim* claim,
                            std::optional<storage::TurnClaim>& earlier, TurnResult& result,
                            std::vector<size_t>& cleaner_failed) {
  if (!options_->learning.episodic_capture_enabled) {
    if (claim == nullptr) return Status::Ok();
    // No rows to store, but the turn id is still claimed once.
    MNEMO_ASSIGN_OR_RETURN(storage::TurnClaimOutcome outcome, episodic_.ClaimTurn(*claim, {}));
    if (!outcome.claimed) earlier = std::move(outcome.claim);
    return Status::Ok();
  }
  MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* registry, tools_.Current());
  context::TurnComputation computation = archivist::TurnComputationOf(turn, registry);
  // Segmentation (spec 40) is decided in the rows' transaction; the drift
  // check needs the turn's vector, computed here (outside the store's
  // writer) and only when that check is on.
  archivist::TurnIndexOptions options{
      .claim = claim,
      .segments = {.max_turns = options_->learning.max_turns_per_segment,
                   .max_time_gap_secs = options_->learning.max_time_gap_secs,
                   .min_cosine = options_->min_cosine}};
  std::vector<float> vector;
  if (options.segments.min_cosine > 0 && vectors_.embedder() != nullptr) {
    const std::string text = computation.Joined();
    auto embedded = vectors_.embedder()->Embed(std::span<const std::string>(&text, 1));
    if (embedded.ok() && embedded->size() == 1) vector = std::move((*embedded)[0]);
  }
  options.turn_vector = vector;
  MNEMO_ASSIGN_OR_RETURN(
      archivist::IndexedTurn indexed,
      archivist::IndexTurn(episodic_, who.name, turn, timestamp, std::move(computation), options));
  if (indexed.earlier) {
    earlier = std::move(indexed.earlier);
    return Status::Ok();
  }
  // The archive is best effort (spec 40) and written in the background; a
  // failure is logged, never fatal. "sync": true waits for it.
  archive_->Enqueue(archivist::ArchiveRowsOf(indexed));
  for (const context::CleanerFailure& f : indexed.computation.failures) {
    cleaner_failed.push_back(f.call_index);
  }
  result.segment_id = indexed.segment.open_id;
  result.closed_segment_id = indexed.segment.closed_id;
  if (!indexed.segment.closed_id.empty()) {
    PostFinalize(indexed.user.owner, indexed.user.session_id, indexed.segment.closed_id);
  }
  if (turn.sync) {
    archive_->Flush();
    worker_.Flush();
  }
  result.redactions = redactions;
  result.user_row = ToEpisodicTurn(std::move(indexed.user));
  result.assistant_row = ToEpisodicTurn(std::move(indexed.assistant));
  return Status::Ok();
}

namespace {

// Bounds Archivist::MarkUnfinishedTurn's memory: a turn id is repeated
// within seconds of its failed call, and only failed calls are marked.
constexpr size_t kUnfinishedTurnsKept = 4096;

std::string ClaimKeyText(const storage::TurnKey& key) {
  std::string text = key.owner;
  text += '\0';
  text += key.session_id.view();
  text += '\0';
  text += key.turn_id.view();
  return text;
}

}  // namespace

void Archivist::MarkUnfinishedTurn(const storage::TurnKey& key, bool unfinished) {
  std::string text = ClaimKeyText(key);
  std::lock_guard lock(unfinished_mu_);
  if (!unfinished) {
    unfinished_.erase(text);  // its place in unfinished_by_age_ goes with age
    return;
  }
  if (!unfinished_.insert(text).second) return;
  unfinished_by_age_.push_back(std::move(text));
  while (unfinished_by_age_.size() > kUnfinishedTurnsKept) {
    unfinished_.erase(unfinished_by_age_.front());
    unfinished_by_age_.pop_front();
  }
}

void Archivist::StoreTurnResultLater(storage::TurnKey key, std::string encoded) {
  const auto until = std::chrono::steady_clock::now() + kReplayWait;
  std::lock_guard lock(unfinished_mu_);
  if (!result_retries_) result_retries_ = std::make_unique<internal::BackgroundWorker>(logger_);
  result_retries_->Post(
      "turn result", [this, key = std::move(key), encoded = std::move(encoded), until] {
        auto pause = std::chrono::milliseconds(50);
        while (!closing_.load() && std::chrono::steady_clock::now() + pause < until) {
          std::this_thread::sleep_for(pause);
          pause = std::min(pause * 2, std::chrono::milliseconds(500));
          Result<bool> stored = episodic_.FinishTurnClaim(key, encoded);
          if (stored.ok()) {
            MarkUnfinishedTurn(key, false);  // a repeat here replays the result now stored
            logger_->Log(LogLevel::kInfo,
                         "stored the result of turn " + key.turn_id.str() + " on a later try");
            return;
          }
          // The claim's commit was lost with the server: a repeat claims afresh.
          if (stored.status().code() == StatusCode::kNotFound) return;
        }
      });
}

bool Archivist::IsUnfinishedTurn(const storage::TurnKey& key) {
  const std::string text = ClaimKeyText(key);
  std::lock_guard lock(unfinished_mu_);
  return unfinished_.contains(text);
}

Result<TurnResult> Archivist::ReplayTurn(storage::TurnClaim claim, bool wait) {
  // The first call stores its result right after its rule capture; a
  // duplicate that arrives meanwhile waits for it (polling the store, so a
  // duplicate in another process waits too). Not when that call ran here
  // and ended without storing it (MarkUnfinishedTurn): no result will come.
  const auto deadline =
      std::chrono::steady_clock::now() + (wait ? kReplayWait : std::chrono::milliseconds(0));
  auto pause = std::chrono::milliseconds(1);
  while (claim.result.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(25));
    MNEMO_ASSIGN_OR_RETURN(std::optional<storage::TurnClaim> now,
                           episodic_.GetTurnClaim(claim.key));
    if (!now) return NotFound("turn " + claim.key.turn_id.str() + " is no longer stored");
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
}  // namespace mnemo
