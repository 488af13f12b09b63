// The writer side of the SQLite entries and their vectors, inside the
// caller's write transaction on database.writer() with writer_mu() held:
// what the entry store's writes, Restore and erasure (sqlite_admin_store.h)
// share. Each moves the database's WriterState (labels, the vector change
// log's count) as it goes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "storage/entry_store.h"
#include "storage/sqlite/sqlite_database.h"

namespace mnemo::storage::internal {

class EntryTokenPipeline;
class TokenizedTexts;

// A write's texts tokenized ahead of the writer (entry_tokens.h): its key is
// text `key` of `texts`, its content text key + 1.
struct PreparedTokens {
  const TokenizedTexts* texts = nullptr;
  size_t key = 0;
};

// Writes one entry with its text index row; a changed text drops the
// entry's vectors and stores those the write carries (EntryWrite::vectors).
Result<UpsertResult> UpsertEntryLocked(SqliteDatabase& database, const EntryWrite& write);

// Writes `writes` in order, chunk by chunk (the entry rows, then their
// text-index rows) with the tokens `tokens` prepared for them; appends
// each write's label to `labels` when given and returns how many entries
// were created.
Result<int64_t> WriteEntriesLocked(SqliteDatabase& database, std::span<const EntryWrite> writes,
                                   EntryTokenPipeline& tokens, std::vector<Label>* labels);

// Deletes one entry row with its keyword row (the indexed key and content)
// and its vectors.
Status DropEntryLocked(SqliteDatabase& database, int64_t rowid, std::string_view key,
                       std::string_view content);

// Deletes (and logs) every vector of `label`.
Status DropVectorsLocked(SqliteDatabase& database, Label label);

// Trims the vector change log when the policy says so: call before
// committing a write that logged changes.
Status TrimVectorLogLocked(SqliteDatabase& database);

// The vectors a write carries (EntryWrite::vectors), for `label`, as
// PutVectorsLocked stores them.
Status PutWriteVectorsLocked(SqliteDatabase& database, Label label,
                             std::span<const SignedVector> vectors);

// PutVectors without the trim.
Status PutVectorsLocked(SqliteDatabase& database, std::string_view signature,
                        std::span<const LabeledVector> vectors);

}  // namespace mnemo::storage::internal
