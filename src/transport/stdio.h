// JSON-RPC over stdio (`mnemo rpc --stdio`): one JSON message per line in,
// one response per line out. Output carries responses only; logs go to
// stderr. Blank lines are skipped; EOF ends the loop.
#pragma once

#include <iosfwd>

#include "mnemo/types.h"
#include "transport/jsonrpc.h"

namespace mnemo::transport {

// Returns 0 at EOF; 2 when the output stream failed.
int RunStdioLoop(const Dispatcher& dispatcher, const Principal& who, std::istream& in,
                 std::ostream& out);

}  // namespace mnemo::transport
