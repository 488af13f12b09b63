// What an import may write (docs/storage.md "Export format"): every record
// of a file is checked as the method that writes its kind checks it, with
// the limits of mnemo/limits.h through core/validation.h, and with the
// importer's rights. One place for version 1, version 2 and the foreign
// formats alike.
#pragma once

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/restore.h"
#include "storage/stores.h"

namespace mnemo::internal {

// Makes an imported entry the importer's and checks what only some writes
// may do. A user (under ACL) imports into its own rows only. Keys "rule/..."
// of a tool namespace are tool rules: accepted only as memory.tool_rule_put
// writes them (tool name, id, text, priority, source tag, tags) and private,
// so a rule is pinned only into its owner's prompts, where the owner can
// delete it. The tool registry is an admin's (memory.tool_register), and
// tool statistics stay private.
Status AdmitImportedEntry(const Principal& who, bool admin, Entry& e);

// The value rules of each kind of row, as their own methods state them:
// kInvalidArgument naming the field.
Status ValidateTurnRecord(const storage::TurnRow& r);
Status ValidateSegmentRecord(const storage::SegmentRow& r);
Status ValidateEventRecord(const storage::EventRow& r);
Status ValidateFacetRecord(const storage::FacetRow& r);
Status ValidateDocumentRecord(const storage::DocumentRow& r);
Status ValidateContextEventRecord(const storage::ContextEventRow& r);
Status ValidateTripleRecord(const storage::TripleRow& r);

// A UUID-shaped id (version 8: derived) of `seed`, the same on every run.
std::string DerivedId(std::string_view seed);

// A user's import (under ACL) must not learn whether another principal
// holds a row, so the ids a file names are never compared with theirs: an
// entry gets the id its (owner, namespace, key) has or a new one; a segment
// or a document keeps its id only when that id is free or already the
// importer's; events and triples get ids derived from the importer and the
// file's id (a second run of the same file derives the same ones, and their
// own identities, type and text or the current fact, find the stored rows).
// References of events and facets to a renamed segment follow it.
Status OwnIds(storage::Stores& stores, const std::string& me, storage::RestoreBatch& batch);

}  // namespace mnemo::internal
