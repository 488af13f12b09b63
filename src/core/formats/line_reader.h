// The lines of an import file, numbered, and the bad ones reported by
// number (admin_import.cc, admin_import_v1.cc): both versions read and refuse alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "mnemo/status.h"
#include "text/strip.h"

namespace mnemo::internal {

class LineReader {
 public:
  explicit LineReader(std::istream& in) : in_(in) {}
  // The next line that is not blank; false at the end.
  bool Next(std::string& line) {
    while (std::getline(in_, line)) {
      ++number_;
      if (!text::IsBlank(line)) return true;
    }
    return false;
  }
  // The number of the line Next returned last (1-based).
  int64_t number() const { return number_; }
  bool bad() const { return in_.bad(); }

  // The first line, read to tell the version; the version's reader starts
  // from it.
  std::string pending;

 private:
  std::istream& in_;
  int64_t number_ = 0;
};

// One line of an import file as JSON: within a request body's limits
// (base/json_limits.h, `max_bytes` = server.max_body_bytes) first, so no
// over-deep line is parsed, then valid. The error is the line's message.
inline Result<nlohmann::json> ParseImportLine(std::string_view line, int64_t max_bytes) {
  MNEMO_RETURN_IF_ERROR(CheckJsonLimits(line, "the line", max_bytes));
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return InvalidArgument("not valid JSON (truncated or malformed line)");
  return j;
}

// Bad lines: the first kMaxReported messages, and how many in all.
class LineErrors {
 public:
  static constexpr size_t kMaxReported = 100;
  void Add(int64_t line, const std::string& message) {
    if (messages_.size() < kMaxReported) {
      messages_.push_back("line " + std::to_string(line) + ": " + message);
    }
    ++count_;
  }
  bool empty() const { return count_ == 0; }
  // kInvalidArgument listing them; OK when there are none.
  Status ToStatus() const {
    if (count_ == 0) return Status::Ok();
    std::string msg = "import refused, nothing was imported: " + std::to_string(count_) +
                      " bad line" + (count_ == 1 ? "" : "s");
    for (const std::string& m : messages_) msg += "\n" + m;
    if (count_ > messages_.size()) {
      msg += "\n(" + std::to_string(count_ - messages_.size()) + " more)";
    }
    return InvalidArgument(msg);
  }

 private:
  std::vector<std::string> messages_;
  size_t count_ = 0;
};

}  // namespace mnemo::internal
