#include "transport/stdio.h"

#include <istream>
#include <ostream>
#include <string>

#include "text/strip.h"

namespace mnemo::transport {
namespace {

std::string TooLong(size_t max_bytes) {
  return DumpJson(ErrorResponse(nullptr, kInvalidRequest,
                                "invalid request: the message is longer than " +
                                    std::to_string(max_bytes) +
                                    " bytes (server.max_body_bytes); it was skipped"));
}

// Reads lines and writes what `answer` returns for each (nothing for
// nullopt). Returns 0 at EOF, 2 when the output failed.
template <typename Answer>
int Loop(std::istream& in, std::ostream& out, size_t max_bytes, Answer answer) {
  std::string line;
  for (;;) {
    const LineRead r = ReadBoundedLine(in, max_bytes, line);
    if (r == LineRead::kEnd) return 0;
    std::optional<std::string> response;
    if (r == LineRead::kTooLong) {
      response = TooLong(max_bytes);
    } else if (!text::IsBlank(line)) {
      response = answer(line);
    }
    if (!response) continue;
    out << *response << '\n';
    out.flush();
    if (!out) return 2;
  }
}

}  // namespace

LineRead ReadBoundedLine(std::istream& in, size_t max_bytes, std::string& line) {
  line.clear();
  std::streambuf* buf = in.rdbuf();
  bool any = false;
  bool too_long = false;
  for (;;) {
    const int c = buf->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      in.setstate(std::ios::eofbit);
      if (!any) return LineRead::kEnd;
      break;
    }
    any = true;
    if (c == '\n') break;
    if (too_long) continue;
    if (line.size() == max_bytes + 1) {  // one spare byte for a "\r" before "\n"
      too_long = true;
      line.clear();
      continue;
    }
    line.push_back(static_cast<char>(c));
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (too_long || line.size() > max_bytes) {
    line.clear();
    return LineRead::kTooLong;
  }
  return LineRead::kLine;
}

int RunStdioLoop(const Dispatcher& dispatcher, const Principal& who, std::istream& in,
                 std::ostream& out, size_t max_line_bytes) {
  return Loop(in, out, max_line_bytes,
              [&](const std::string& line) { return dispatcher.HandleText(line, who); });
}

int RunMcpStdioLoop(const McpServer& server, const Principal& who, std::istream& in,
                    std::ostream& out, size_t max_line_bytes) {
  McpSession session;
  return Loop(in, out, max_line_bytes,
              [&](const std::string& line) { return server.HandleText(line, who, session); });
}

}  // namespace mnemo::transport
