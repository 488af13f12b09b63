// Backend-independent rules of the storage contract, shared by every backend
// so that they cannot drift apart: what a write must carry, how a write is
// merged into an existing entry, and which entries a filter admits.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/names.h"
#include "storage/entry_store.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage::internal {

// Rejects a write the store cannot address: empty key, namespace or owner
// (kInvalidArgument). Content rules (size, UTF-8) belong to the engine.
Status ValidateWrite(const EntryWrite& write);

// Rejects a write of EntryStore::Mutate that leaves its group (kInvalidArgument).
Status ValidateGroupWrite(const EntryGroup& group, const EntryWrite& write);

// The entry as stored after `write`: a new entry (`existing` absent; id from
// the write or a fresh UUID) or an update of `existing` per entry_store.h.
Entry MergeWrite(const EntryWrite& write, const std::optional<Entry>& existing);

// Whether `scope` may read `entry`.
bool VisibleIn(const ReadScope& scope, const Entry& entry);

// Whether `entry` passes every part of `filter` (scope included).
bool MatchesFilter(const EntryFilter& filter, const Entry& entry);

// The non-empty terms of `terms`, first occurrence kept: each term is one
// phrase of the score, so a duplicate would count its idf twice.
std::vector<std::string> DistinctTerms(const std::vector<std::string>& terms);

// Runs `text` (one indexed column) through text::Tokenize, calls `on_token`
// for every token and returns the column's length as FTS5 counts it: a
// colocated token adds no length unless it is the column's first
// (fts5StorageInsertCallback). Document length = Σ over key and content.
// The SQLite tokenizer and the in-memory index both go through here.
int64_t IndexColumn(std::string_view text, const text::TokenSink& on_token);

}  // namespace mnemo::storage::internal
