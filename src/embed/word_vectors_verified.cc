#include "embed/word_vectors_verified.h"

#include <time.h>

#include <fstream>

#include "base/io/atomic_file.h"

namespace mnemo::embed {
namespace {

constexpr std::string_view kRecordPrefix = "mnemo-wordvectors-verified 1 ";

int64_t Nanoseconds(const struct timespec& ts) {
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + static_cast<int64_t>(ts.tv_nsec);
}

}  // namespace

WordVectorsIdentity WordVectorsIdentity::Of(const struct stat& st, std::string_view checksum) {
  WordVectorsIdentity id;
  id.device = static_cast<uint64_t>(st.st_dev);
  id.inode = static_cast<uint64_t>(st.st_ino);
  id.size = static_cast<uint64_t>(st.st_size);
  id.mtime_ns = Nanoseconds(st.st_mtim);
  id.ctime_ns = Nanoseconds(st.st_ctim);
  id.checksum = std::string(checksum);
  return id;
}

std::string WordVectorsIdentity::ToLine() const {
  return std::string(kRecordPrefix) + "dev=" + std::to_string(device) +
         " ino=" + std::to_string(inode) + " size=" + std::to_string(size) +
         " mtime_ns=" + std::to_string(mtime_ns) + " ctime_ns=" + std::to_string(ctime_ns) +
         " sha256=" + checksum;
}

bool WasVerified(const std::string& record_path, const WordVectorsIdentity& identity) {
  if (record_path.empty()) return false;
  std::ifstream in(record_path, std::ios::binary);
  if (!in) return false;
  std::string line;
  if (!std::getline(in, line)) return false;
  return line == identity.ToLine();
}

int64_t RealtimeNs() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return Nanoseconds(ts);
}

void RememberVerified(const std::string& record_path, const WordVectorsIdentity& identity,
                      int64_t hash_started_ns) {
  if (record_path.empty()) return;
  if (identity.ctime_ns > hash_started_ns - kSettledNs) return;
  (void)internal::WriteFileAtomically(record_path, 0600, internal::Placement::kReplace,
                                      identity.ToLine() + "\n");
}

}  // namespace mnemo::embed
