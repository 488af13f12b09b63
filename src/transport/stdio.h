// Message loops over stdio: JSON-RPC (`mnemo rpc --stdio`) and MCP (`mnemo
// mcp`). One JSON message per line in, one answer per line out. Output
// carries answers only; logs go to stderr. Blank lines are skipped; a line
// longer than the limit is drained and answered with an error (id null), so
// the loop goes on; EOF ends it.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "mnemo/types.h"
#include "transport/mcp/mcp.h"
#include "transport/rpc/jsonrpc.h"

namespace mnemo::transport {

enum class LineRead { kLine, kTooLong, kEnd };

// The next line of `in` without its "\n" (and a "\r" before it) into `line`.
// kTooLong when it has more than `max_bytes` bytes: the rest of the line is
// read and dropped, `line` is left empty. kEnd at EOF with nothing read.
LineRead ReadBoundedLine(std::istream& in, size_t max_bytes, std::string& line);

// Returns 0 at EOF; 2 when the output stream failed.
int RunStdioLoop(const Dispatcher& dispatcher, const Principal& who, std::istream& in,
                 std::ostream& out, size_t max_line_bytes);

// The MCP loop: one session for the connection.
int RunMcpStdioLoop(const McpServer& server, const Principal& who, std::istream& in,
                    std::ostream& out, size_t max_line_bytes);

}  // namespace mnemo::transport
