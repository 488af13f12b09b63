// mnemo::Admin (mnemo/admin.h): the enabled check for a principal's call,
// then the administration, memory or vectors service, which validate the
// request; the audit log.
#include "core/services.h"
#include "mnemo/admin.h"

namespace mnemo {

Status Admin::ExportJsonl(const Principal& who, std::ostream& out, const ExportOptions& options) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.admin.ExportJsonl(who, out, options);
}
Result<ImportReport> Admin::ImportJsonl(const Principal& who, std::istream& in,
                                        const ProgressFn& progress, const ImportOptions& options) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.admin.ImportJsonl(who, in, progress, options);
}
Result<ForeignImportReport> Admin::ImportForeign(const Principal& who, const std::string& path,
                                                 const ForeignImportOptions& options) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.admin.ImportForeign(who, path, options);
}
Result<ReindexReport> Admin::Reindex(const Principal& who, const ProgressFn& progress) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.admin.Reindex(who, progress);
}
Result<ErasureCounts> Admin::SessionForget(const Principal& who, const SessionForgetRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.admin.SessionForget(who, req);
}
Result<ErasureCounts> Admin::PrincipalForget(const Principal& who, std::string_view principal) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.admin.PrincipalForget(who, principal);
}
Result<HygieneReport> Admin::RunHygiene(const Principal& who) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.memory.RunHygiene(who);
}
Result<std::optional<HygieneReport>> Admin::RunHygieneIfDue() {
  return services_.memory.RunHygieneIfDue();
}
Result<PathCheck> Admin::PathProtected(const Principal& /*who*/, std::string_view path) {
  return services_.admin.PathProtected(path);
}
Result<HealthReport> Admin::Health(const Principal& who, int audit_lines) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.admin.Health(who, audit_lines);
}
Status Admin::SaveVectorIndexes() { return services_.vectors.SaveAll(); }
void Admin::Audit(const Principal& who, const AuditEvent& event) {
  if (services_.audit != nullptr) services_.audit->Append(services_.clock.NowMs(), who, event);
}

}  // namespace mnemo
