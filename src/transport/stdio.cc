#include "transport/stdio.h"

#include <istream>
#include <ostream>
#include <string>

namespace mnemo::transport {

int RunStdioLoop(const Dispatcher& dispatcher, const Principal& who, std::istream& in,
                 std::ostream& out) {
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::optional<std::string> response = dispatcher.HandleText(line, who);
    if (!response) continue;
    out << *response << '\n';
    out.flush();
    if (!out) return 2;
  }
  return 0;
}

}  // namespace mnemo::transport
