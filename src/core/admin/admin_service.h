// The administration service: what reaches every concern of a workspace.
// Reindex (spec 20, spec 50), the path guard (memory.path_protected),
// erasure of a session or a principal (spec 10, "Erasure"), export and
// import (spec 10, "Backup"). It holds no state of its own and takes every
// store, the services whose derived state it rebuilds or clears (vectors,
// the tool registry, the Archivist), the clock, the logger and its options.
// The caller checks that memory is enabled.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <chrono>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "context/tool_registry.h"
#include "core/archivist/archivist_service.h"
#include "core/formats/line_reader.h"
#include "core/search/vectors_service.h"
#include "mnemo/admin.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/tools.h"
#include "mnemo/types.h"
#include "storage/stores.h"

namespace mnemo {

// Built by AdminOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct AdminOptions {
  bool acl_enabled{};              // memory.acl_enabled
  std::string embedding_provider;  // embedding.provider
  bool audit_enabled{};            // security.audit.enabled
  std::string secrets;             // security.secrets: what an import may bring
  int64_t max_body_bytes{};        // server.max_body_bytes: one import line at most
  std::string workspace;           // absolute
  std::string memory_path;         // memory.path (the markdown store; "" default)
  std::string audit_path;          // security.audit.path, from the workspace when relative
};

AdminOptions AdminOptionsOf(const Config& config, const std::string& workspace);

// How long memory.health's database check may read (a 1M-entry store takes
// longer; the answer then says the check did not finish).
inline constexpr std::chrono::milliseconds kHealthIntegrityBudget{2000};

// The write that restores an imported entry as given (id, times, counters,
// flags); `now` stands in for a missing updated_at (admin_import_v1.cc).
storage::EntryWrite WriteOfEntry(const Entry& e, TimeMs now);

class AdminService {
 public:
  AdminService(storage::Stores& stores, VectorsService& vectors, Tools& tools,
               ArchivistService& archivist, std::shared_ptr<Clock> clock,
               std::shared_ptr<Logger> logger, AdminOptions options);

  // Admin::Reindex and the others (mnemo/admin.h says what each does).
  Result<ReindexReport> Reindex(const Principal& who, const ProgressFn& progress);
  Result<PathCheck> PathProtected(std::string_view path);
  // memory.health: the admin's view (kPermissionDenied for a user under
  // ACL); at most `audit_lines` lines of the audit log.
  Result<HealthReport> Health(const Principal& who, int audit_lines);
  Result<ErasureCounts> SessionForget(const Principal& who, const SessionForgetRequest& req);
  Result<ErasureCounts> PrincipalForget(const Principal& who, std::string_view principal);
  Status ExportJsonl(const Principal& who, std::ostream& out, const ExportOptions& options);
  Result<ImportReport> ImportJsonl(const Principal& who, std::istream& in,
                                   const ProgressFn& progress, const ImportOptions& options);
  // Memory kept by another tool (admin_import_foreign.cc).
  Result<ForeignImportReport> ImportForeign(const Principal& who, const std::string& path,
                                            const ForeignImportOptions& options);

 private:
  // What is derived from text through the tool registry, derived again
  // (admin_reindex.cc).
  Status ReindexDerivedText(ReindexReport& report);
  // The owner's documents derived from `session_id`: segment documents and
  // context-prune archives.
  // Erases the tool rules captured from the session only (issue 42 item
  // 18; admin_erasure.cc); returns how many.
  Result<int64_t> EraseCapturedRules(const std::string& owner, std::string_view session_id);
  Result<std::vector<std::string>> SessionDocumentIds(const std::string& owner,
                                                      std::string_view session_id);
  // Import version 1 (admin_import_v1.cc) and 2 (admin_import.cc).
  Result<ImportReport> ImportV1(const Principal& who, internal::LineReader& lines,
                                const ProgressFn& progress);
  Result<ImportReport> ImportV2(const Principal& who, const nlohmann::json& header,
                                internal::LineReader& lines, const ProgressFn& progress,
                                const ImportOptions& options);
  // The rows of ImportForeign, checked: entries stored as they are left
  // out, the rest restored in one transaction (counted only on a dry run).
  Result<ForeignImportReport> WriteForeign(storage::RestoreBatch batch, ForeignImportReport report);
  // What already holds rows visible to `who` ("3 entries, 12 turns"), "" when nothing.
  Result<std::string> NonEmptyParts(const Principal& who);

  storage::Stores& stores_;
  VectorsService& vectors_;
  Tools& tools_;
  ArchivistService& archivist_;
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const AdminOptions options_;
};

}  // namespace mnemo
