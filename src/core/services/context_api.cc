// mnemo::Context (mnemo/context.h): the enabled check, then the context
// window service or the recall service (the context block), which validate
// the request.
#include "core/services.h"
#include "mnemo/context.h"

namespace mnemo {

Result<ContextAppendResult> Context::Append(const Principal& who, const ContextAppendRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.context_window.Append(who, req);
}
Result<ContextWindow> Context::Window(const Principal& who, const ContextWindowRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.context_window.Window(who, req);
}
Result<ContextPruneResult> Context::Prune(const Principal& who, std::string_view session_id,
                                          int64_t keep) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.context_window.Prune(who, session_id, keep);
}
Result<ContextBlock> Context::Build(const Principal& who, const ContextBuildRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.recall.ContextBuild(who, req);
}

}  // namespace mnemo
