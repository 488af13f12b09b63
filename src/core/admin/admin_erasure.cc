// Erasure (spec 10, "Erasure"): memory.session_forget and
// memory.principal_forget. Storage removes the rows in one transaction
// (AdminStore::EraseSession / ErasePrincipal); this file finds what storage
// cannot name itself (the session's documents), finishes the background
// work that would write the session again, and clears what lives outside
// storage: the markdown archive files, the cached recap vectors and the
// vector index files.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "archivist/segments.h"
#include "core/access.h"
#include "core/admin/admin_options.h"
#include "core/audit_record.h"
#include "core/services/context_options.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "storage/values.h"

namespace mnemo {
namespace {

constexpr int kPage = 500;

}  // namespace

Result<std::vector<std::string>> Admin::SessionDocumentIds(const std::string& owner,
                                                           std::string_view session_id) {
  std::vector<std::string> ids;
  const std::string segment_prefix = archivist::SessionDocumentSourcePrefix(session_id);
  const std::string context_prefix = ContextArchiveSourcePrefix(session_id);
  for (const std::string& prefix : {segment_prefix, context_prefix}) {
    for (int64_t offset = 0;; offset += kPage) {
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::DocumentRow> page,
                             stores_.documents->ListDocuments(owner, prefix, kPage, offset));
      for (const storage::DocumentRow& d : page) {
        // A context prefix also starts the sources of a session whose id
        // continues with "#seq...": only this session's ranges count.
        if (prefix == segment_prefix || IsContextArchiveOf(d.source, session_id)) {
          ids.push_back(d.id);
        }
      }
      if (page.size() < static_cast<size_t>(kPage)) break;
    }
  }
  return ids;
}

Result<int64_t> Admin::EraseCapturedRules(const std::string& owner, std::string_view session_id) {
  // A rule captured from this session holds its user's words and goes with
  // it; one another session of the owner gave too (an equal rule, refreshed
  // from there) stays, with that session's claim on it (docs/storage.md
  // "Erasure").
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::RuleCapture> captures,
                         stores_.episodic->RuleCaptures(owner));
  std::set<std::pair<std::string, std::string>> elsewhere;
  for (const storage::RuleCapture& c : captures) {
    if (c.session_id != session_id) elsewhere.emplace(c.tool_name, c.rule_id);
  }
  int64_t erased = 0;
  for (const storage::RuleCapture& c : captures) {
    if (c.session_id != session_id || elsewhere.contains({c.tool_name, c.rule_id})) continue;
    MNEMO_ASSIGN_OR_RETURN(const rules::RuleAddress at,
                           rules::RuleAddressOf(c.tool_name, c.rule_id));
    MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> rule,
                           stores_.entries->FindExact(owner, at.ns, at.key));
    if (!rule) continue;  // deleted since
    MNEMO_ASSIGN_OR_RETURN(bool deleted, stores_.entries->Delete(rule->id));
    if (deleted) ++erased;
  }
  // A delete leaves the rule's words in the entries' text index until it
  // is rewritten; an erasure leaves nothing.
  if (erased > 0) MNEMO_RETURN_IF_ERROR(stores_.entries->CompactEntryIndex());
  return erased;
}

Result<ErasureCounts> Admin::SessionForget(const Principal& who, const SessionForgetRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.session_forget");
  Result<ErasureCounts> audited = [&]() -> Result<ErasureCounts> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_ASSIGN_OR_RETURN(const SessionId session, SessionId::Parse(req.session_id));
    std::optional<PrincipalId> named;
    if (req.owner) {
      MNEMO_ASSIGN_OR_RETURN(named, PrincipalId::Parse(*req.owner, "owner"));
    }
    // Sessions are their principal's own; under ACL a user names no other
    // owner (one named is ignored, as memory.forget does), so another
    // principal's session answers exactly like a missing one.
    const std::string owner =
        named && IsAdmin(who, options_->acl_enabled) ? std::move(*named).take() : who.name;
    // Work in flight would write the session again after the erasure: a
    // segment being finalised (recap, events, profile, document) and queued
    // archive files.
    archivist_.Flush();
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> rows,
                           stores_.episodic->SessionTurns(owner, session, 0, INT64_MAX));
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> segments,
                           stores_.episodic->Segments(false, owner, session));
    MNEMO_ASSIGN_OR_RETURN(std::vector<std::string> documents,
                           SessionDocumentIds(owner, session.view()));
    // Before the storage erasure, which forgets which rules the session gave
    // and ends by emptying the write-ahead log.
    MNEMO_ASSIGN_OR_RETURN(int64_t rules, EraseCapturedRules(owner, session.view()));
    MNEMO_ASSIGN_OR_RETURN(
        ErasureCounts counts,
        stores_.admin->EraseSession(
            {.owner = owner, .session_id = session, .document_ids = std::move(documents)}));
    MNEMO_RETURN_IF_ERROR(archivist_.FollowSessionErasure(owner, session.view()));
    std::vector<std::string> ids;
    ids.reserve(segments.size());
    for (const storage::SegmentRow& s : segments) ids.push_back(s.id);
    archivist_.ForgetRecapVectors(ids, std::nullopt);
    MNEMO_ASSIGN_OR_RETURN(counts.archive_files, archivist_.EraseArchiveFiles(rows));
    counts.entries += rules;
    return counts;
  }();
  if (audited.ok()) audit.Erased(*audited);
  return audit.End(std::move(audited));
}

Result<ErasureCounts> Admin::PrincipalForget(const Principal& who, std::string_view principal) {
  internal::AuditRecord audit(audit_, who, "memory.principal_forget");
  Result<ErasureCounts> audited = [&]() -> Result<ErasureCounts> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    if (!IsAdmin(who, options_->acl_enabled)) {
      return PermissionDenied(
          "memory.principal_forget needs the admin role: it erases another principal's memory");
    }
    MNEMO_ASSIGN_OR_RETURN(const PrincipalId parsed, PrincipalId::Parse(std::string(principal)));
    const std::string& owner = parsed.str();
    archivist_.Flush();
    // The principal's turn rows, for their archive files (storage has no
    // read of one owner's every session: paged through every row by id).
    std::vector<storage::TurnRow> rows;
    for (int64_t after = 0;;) {
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> page,
                             stores_.episodic->TurnsAfter(after, kPage));
      for (storage::TurnRow& r : page) {
        after = r.id;
        if (r.owner == owner) rows.push_back(std::move(r));
      }
      if (page.size() < static_cast<size_t>(kPage)) break;
    }
    MNEMO_ASSIGN_OR_RETURN(ErasureCounts counts, stores_.admin->ErasePrincipal(owner));
    archivist_.ForgetRecapVectors({}, owner);
    // The entries' vectors left storage (and its change log says so); the
    // index files are rewritten so they leave the disk too.
    if (counts.entry_vectors > 0) MNEMO_RETURN_IF_ERROR(vectors_.PurgeAll());
    MNEMO_ASSIGN_OR_RETURN(counts.archive_files, archivist_.EraseArchiveFiles(rows));
    return counts;
  }();
  if (audited.ok()) audit.Erased(*audited);
  return audit.End(std::move(audited));
}

}  // namespace mnemo
