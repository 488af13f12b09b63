#include "core/archivist/turn_runs.h"

#include <iterator>
#include <utility>

#include "base/time.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

// "(s1, 2023-05-08 13:56)": the session and the minute its run starts.
std::string Header(const storage::TurnRow& first) {
  const std::string when = internal::FormatRfc3339(first.timestamp_ms);
  // "2023-05-08T13:56:00.000Z" -> "2023-05-08 13:56"
  const std::string date = when.size() >= 16 ? when.substr(0, 10) + " " + when.substr(11, 5) : when;
  return "(" + first.session_id + ", " + date + ")";
}

// " #5 assistant: Lisbon."
std::string Part(const storage::TurnRow& row, const std::string& text) {
  return " #" + std::to_string(row.seq) + " " + row.role + ": " + text;
}

bool SameSession(const storage::TurnRow& a, const storage::TurnRow& b) {
  return a.owner == b.owner && a.session_id == b.session_id;
}

}  // namespace

size_t TurnRuns::HeaderChars(const storage::TurnRow& first) {
  return text::CountCodePoints(Header(first));
}

bool TurnRuns::AddIfFits(const storage::TurnRow& row, std::string text, size_t room) {
  // The run that ends just before the turn, and the one that starts just
  // after it: the turn continues one, or both, which it then joins.
  auto before = runs_.end();
  auto after = runs_.end();
  for (auto it = runs_.begin(); it != runs_.end(); ++it) {
    const storage::TurnRow& first = it->turns.front().row;
    if (!SameSession(first, row)) continue;
    const storage::TurnRow& last = it->turns.back().row;
    if (row.seq >= first.seq && row.seq <= last.seq) return false;
    if (last.seq + 1 == row.seq) before = it;
    if (first.seq == row.seq + 1) after = it;
  }
  Turn turn{.row = row, .text = std::move(text)};
  turn.chars = text::CountCodePoints(Part(turn.row, turn.text));
  // The runs' characters once the turn is in, computed before anything moves.
  size_t chars = chars_ + turn.chars;
  if (before == runs_.end() && after == runs_.end()) {
    chars += HeaderChars(turn.row) + 3;
  } else if (before == runs_.end()) {
    // The turn starts `after`, whose header now names its time.
    chars = chars - after->header_chars + HeaderChars(turn.row);
  } else if (after != runs_.end()) {
    chars -= after->header_chars + 3;  // `after` joins `before`
  }
  if (chars > room) return false;
  chars_ = chars;
  ++count_;
  if (before == runs_.end() && after == runs_.end()) {
    Run run{.header_chars = HeaderChars(turn.row), .parts_chars = turn.chars};
    run.turns.push_back(std::move(turn));
    runs_.push_back(std::move(run));
    return true;
  }
  if (before == runs_.end()) {
    after->header_chars = HeaderChars(turn.row);
    after->parts_chars += turn.chars;
    after->turns.insert(after->turns.begin(), std::move(turn));
    return true;
  }
  before->parts_chars += turn.chars;
  before->turns.push_back(std::move(turn));
  if (after == runs_.end()) return true;
  // The two runs become one, at the place of the better placed (earlier).
  Run& kept = before < after ? *before : *after;
  Run joined{.header_chars = before->header_chars,
             .parts_chars = before->parts_chars + after->parts_chars};
  joined.turns = std::move(before->turns);
  joined.turns.insert(joined.turns.end(), std::make_move_iterator(after->turns.begin()),
                      std::make_move_iterator(after->turns.end()));
  const auto dropped = before < after ? after : before;
  kept = std::move(joined);
  runs_.erase(dropped);
  return true;
}

std::vector<std::string> TurnRuns::Lines() const {
  std::vector<std::string> out;
  out.reserve(runs_.size());
  for (const Run& run : runs_) {
    std::string line = Header(run.turns.front().row);
    for (const Turn& t : run.turns) line += Part(t.row, t.text);
    out.push_back(std::move(line));
  }
  return out;
}

std::vector<std::string> TurnRuns::Texts() const {
  std::vector<std::string> out;
  for (const Run& run : runs_) {
    for (const Turn& t : run.turns) out.push_back(t.text);
  }
  return out;
}

bool TurnRuns::HoldsTurnIn(const std::string& owner, const std::string& session_id, int64_t first,
                           int64_t last) const {
  for (const Run& run : runs_) {
    const storage::TurnRow& r = run.turns.front().row;
    if (r.owner != owner || r.session_id != session_id) continue;
    for (const Turn& t : run.turns) {
      if (t.row.seq >= first && t.row.seq <= last) return true;
    }
  }
  return false;
}

}  // namespace mnemo
