// The verification record of a word-vector file (docs/search.md,
// "Word-vector file"): hashing the 41 MB body at every open costs more than
// the open itself, so a file whose checksum was verified once is remembered
// by its identity on disk, and an open that finds the same identity skips
// the hash. Any change to the file (a write, a touch, a replacement, a copy)
// changes its ctime or inode, which no user can set back, and forces the
// hash again.
//
// The record is one line of text in a file of the caller's choosing (the
// engine keeps it in the workspace); it is written atomically, best effort:
// a record that cannot be written only means the next open hashes again.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mnemo::embed {

// What identifies one version of a file: fstat's device, inode, size, mtime
// and ctime (nanoseconds), and the checksum its header claims.
struct WordVectorsIdentity {
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  std::string checksum;

  static WordVectorsIdentity Of(const struct stat& st, std::string_view checksum);
  // The record's one line, without its newline.
  std::string ToLine() const;
};

// True when the record at `record_path` names exactly `identity`.
bool WasVerified(const std::string& record_path, const WordVectorsIdentity& identity);

// How long before the hash started the file must have last changed for its
// identity to be remembered. File times come from a clock that ticks every
// few milliseconds, so a change made during the hash within the same tick as
// the change before it would leave ctime as it was; a file changed this
// recently is hashed again at the next open instead (as git treats "racily
// clean" files).
inline constexpr int64_t kSettledNs = 100'000'000;

// Remembers that `identity` passed a checksum that started at
// `hash_started_ns` (CLOCK_REALTIME), replacing any earlier record, when
// the file's ctime is at least kSettledNs older than that. Errors are ignored: the cost is
// a hash at the next open.
void RememberVerified(const std::string& record_path, const WordVectorsIdentity& identity,
                      int64_t hash_started_ns);

// CLOCK_REALTIME in nanoseconds, the clock of file times.
int64_t RealtimeNs();

}  // namespace mnemo::embed
