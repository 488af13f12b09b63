// The administration service's memory.health (core/admin/admin_options.h).

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/access.h"
#include "core/admin/admin_options.h"
#include "core/audit_record.h"
#include "core/validation.h"

namespace mnemo {
namespace {

// How much of the end of the audit log is read for its last lines.
constexpr std::streamoff kAuditTailBytes = 64 * 1024;

// The last `n` whole lines of `path`, oldest first; none when it cannot be
// read (no log yet).
std::vector<std::string> TailLines(const std::filesystem::path& path, int n) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  if (!in || n <= 0) return lines;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff from = std::max<std::streamoff>(0, size - kAuditTailBytes);
  in.seekg(from);
  std::string line;
  if (from > 0) std::getline(in, line);  // a line cut by the seek
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(std::move(line));
  }
  if (lines.size() > static_cast<size_t>(n)) lines.erase(lines.begin(), lines.end() - n);
  return lines;
}

}  // namespace

Result<HealthReport> Admin::Health(const Principal& who, int audit_lines) {
  internal::AuditRecord audit(audit_, who, "memory.health");
  return audit.End([&]() -> Result<HealthReport> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    if (!IsAdmin(who, options_->acl_enabled)) {
      return PermissionDenied(
          "memory.health needs the admin role: it describes the whole store and its audit log");
    }
    HealthReport out{.backend = stores_.name,
                     .schema_version = stores_.schema_version,
                     .embedding_provider = options_->embedding_provider,
                     .archive = archivist_.ArchiveQueue(),
                     .audit_enabled = options_->audit_enabled};
    MNEMO_ASSIGN_OR_RETURN(out.hygiene_last_scheduled_run, stores_.entries->LastHygieneRun());
    if (const embed::Embedder* embedder = vectors_.embedder(); embedder != nullptr) {
      out.embedder_signature = embedder->signature();
      const Status answer = vectors_.ProbeEmbedder();
      out.embedder_state = answer.ok() ? "ok" : answer.message();
      out.word_vectors = vectors_.word_vectors_description();
      out.embedding_provider = vectors_.ActiveProvider(out.embedding_provider);
    }
    for (const std::shared_ptr<VectorSpace>& space : vectors_.OpenSpaces()) {
      out.spaces.push_back({.signature = space->signature(),
                            .dimensions = static_cast<int64_t>(space->dims()),
                            .vectors = static_cast<int64_t>(space->size()),
                            .kind = std::string(space->kind())});
    }
    if (options_->audit_enabled) {
      out.audit_tail = TailLines(options_->audit_path, audit_lines);
    }
    out.integrity.push_back(
        {.part = "database", .status = stores_.admin->CheckIntegrity(kHealthIntegrityBudget)});
    for (const std::shared_ptr<VectorSpace>& space : vectors_.OpenSpaces()) {
      out.integrity.push_back(
          {.part = "vectors " + space->signature(), .status = space->VerifyFiles()});
    }
    for (const HealthReport::Check& c : out.integrity) {
      if (!c.status.ok()) {
        logger_->Log(LogLevel::kError, "memory.health: " + c.part + ": " + c.status.message());
      }
    }
    return out;
  }());
}

}  // namespace mnemo
