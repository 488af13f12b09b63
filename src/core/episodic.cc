// The Archivist's engine side (spec 40): the per-turn episodic rows of
// memory.turn_complete, the read methods and the MEMORY.md writer.

#include <iostream>

#include "archivist/archive_writer.h"
#include "archivist/memory_md.h"
#include "archivist/turn_indexer.h"
#include "core/engine_impl.h"
#include "core/validation.h"
#include "text/query.h"
#include "text/snippet.h"

namespace mnemo {
namespace {

EpisodicTurn ToPublic(storage::TurnRow r) {
  return EpisodicTurn{.id = r.id,
                      .session_id = std::move(r.session_id),
                      .seq = r.seq,
                      .role = std::move(r.role),
                      .content = std::move(r.content),
                      .lesson = std::move(r.lesson),
                      .tool_calls_json = std::move(r.tool_calls_json),
                      .timestamp = r.timestamp_ms,
                      .cost_microdollars = r.cost_microdollars,
                      .agent_id = std::move(r.agent_id),
                      .owner = std::move(r.owner)};
}

Status ValidateSessionId(std::string_view session_id) {
  if (session_id.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return InvalidArgument("session_id must not be blank", "session_id");
  }
  return ValidateKey(session_id, "session_id");
}

}  // namespace

Status Engine::Impl::IndexTurnRows(const Principal& who, const Turn& turn, TimeMs timestamp,
                                   TurnResult& result) {
  if (!config.learning.episodic_capture_enabled) return Status::Ok();
  archivist::TurnIndexOptions options{.redact = config.security.redact_episodic};
  MNEMO_ASSIGN_OR_RETURN(archivist::IndexedTurn indexed,
                         archivist::IndexTurn(*backend, who.name, turn, timestamp, options));
  // The archive is best effort (spec 40) and written in the background; a
  // failure is logged, never fatal. "sync": true waits for it.
  archive->Enqueue(archivist::ArchiveRowsOf(indexed));
  if (turn.sync) archive->Flush();
  result.redactions = indexed.redactions;
  result.user_row = ToPublic(std::move(indexed.user));
  result.assistant_row = ToPublic(std::move(indexed.assistant));
  return Status::Ok();
}

Result<std::vector<EpisodicHit>> Engine::Impl::EpisodicSearch(const Principal& who,
                                                              const EpisodicQuery& q) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (q.query.find_first_not_of(" \t\r\n") == std::string::npos) {
    return InvalidArgument("query must not be blank", "query");
  }
  if (q.limit < 1 || q.limit > 100) {
    return InvalidArgument("limit must be between 1 and 100", "limit");
  }
  if (q.session_id) MNEMO_RETURN_IF_ERROR(ValidateSessionId(*q.session_id));
  storage::TurnQuery query{.terms = text::QueryTerms(q.query),
                           .session_id = q.session_id,
                           .all = !config.memory.acl_enabled,
                           .owner = who.name,
                           .limit = q.limit};
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnHit> hits, backend->SearchTurns(query));
  std::vector<EpisodicHit> out;
  out.reserve(hits.size());
  for (storage::TurnHit& h : hits) {
    EpisodicHit hit{.score = h.score};
    hit.snippet = text::MakeSnippet(h.row.content, query.terms);
    hit.turn = ToPublic(std::move(h.row));
    out.push_back(std::move(hit));
  }
  return out;
}

Result<std::vector<EpisodicTurn>> Engine::Impl::SessionTurns(const Principal& who,
                                                             std::string_view session_id) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateSessionId(session_id));
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> rows,
                         backend->SessionTurns(who.name, session_id, 0, INT64_MAX));
  std::vector<EpisodicTurn> out;
  out.reserve(rows.size());
  for (storage::TurnRow& r : rows) out.push_back(ToPublic(std::move(r)));
  return out;
}

Result<MemoryMdReport> Engine::Impl::UpdateMemoryMd(const Principal& who,
                                                    const MemoryMdRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_ASSIGN_OR_RETURN(archivist::MemoryMdAction action,
                         archivist::ParseMemoryMdAction(req.action));
  MNEMO_RETURN_IF_ERROR(CheckSecret(config, req.content, "content"));
  MNEMO_ASSIGN_OR_RETURN(archivist::MemoryMdResult r,
                         archivist::UpdateMemoryMd(workspace, {.file = req.file,
                                                               .action = action,
                                                               .section_title = req.section_title,
                                                               .content = req.content}));
  return MemoryMdReport{.file = req.file, .bytes = r.bytes, .section_created = r.section_created};
}

}  // namespace mnemo
