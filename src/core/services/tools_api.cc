// mnemo::Tools (mnemo/tools.h): the enabled check for a principal's call,
// then the tools service, which validates the spec.
#include "core/services.h"
#include "mnemo/tools.h"

namespace mnemo {

Result<ToolInfo> Tools::Register(const Principal& who, const ToolSpec& spec) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.tools.Register(&who, spec);
}
Result<ToolInfo> Tools::Register(const ToolSpec& spec) {
  return services_.tools.Register(nullptr, spec);
}
Result<std::vector<ToolInfo>> Tools::List(const Principal& /*who*/) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.tools.List();
}

}  // namespace mnemo
