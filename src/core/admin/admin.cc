// mnemo::Admin (mnemo/admin.h): what the administration is built over, and
// what it hands to the memory service (hygiene), the vectors service (the
// index files) and the audit log. The rest of its work is in admin_*.cc.
#include "mnemo/admin.h"

#include <utility>

#include "core/admin/admin_options.h"
#include "core/audit_log.h"
#include "core/audit_record.h"
#include "core/services/memory_options.h"
#include "core/validation.h"
#include "mnemo/memory.h"

namespace mnemo {

Admin::Admin(storage::Stores& stores, VectorsService& vectors, Tools& tools, Archivist& archivist,
             Memory& memory, internal::AuditLog* audit, std::shared_ptr<Clock> clock,
             std::shared_ptr<Logger> logger, internal::AdminOptions options)
    : stores_(stores),
      vectors_(vectors),
      tools_(tools),
      archivist_(archivist),
      memory_(memory),
      audit_(audit),
      clock_(std::move(clock)),
      logger_(std::move(logger)),
      options_(std::make_unique<const internal::AdminOptions>(std::move(options))) {}

Admin::~Admin() = default;

Result<HygieneReport> Admin::RunHygiene(const Principal& who) {
  internal::AuditRecord audit(audit_, who, "memory.hygiene_run");
  return audit.End([&]() -> Result<HygieneReport> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    return memory_.RunHygiene(who);
  }());
}

Result<std::optional<HygieneReport>> Admin::RunHygieneIfDue() { return memory_.RunHygieneIfDue(); }

Status Admin::SaveVectorIndexes() { return vectors_.SaveAll(); }

void Admin::Audit(const Principal& who, const AuditEvent& event) {
  if (audit_ != nullptr) audit_->Append(clock_->NowMs(), who, event);
}

}  // namespace mnemo
