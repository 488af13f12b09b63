// The relevant turns of a context block (spec 50, "Context block"), quoted
// in runs: turns next to each other in their session are one item, in
// session order, so a question comes with its answer and the session and
// time are said once:
//
//   (s1, 2023-05-08 13:56) #4 user: Where did you go? #5 assistant: Lisbon.
//
// Turns are offered best first; a run takes the place of the best turn in
// it. Pure: the same turns give the same lines, byte for byte.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "storage/episodic.h"

namespace mnemo {

class TurnRuns {
 public:
  // Adds `row` (with `text`, what a model should read of it) when the runs
  // still take at most `room` characters as "- <line>\n" items once it is
  // in; returns whether it was added. A turn that does not fit leaves the
  // room to a later, shorter one. A turn already added is not added again.
  bool AddIfFits(const storage::TurnRow& row, std::string text, size_t room);

  // One line per run, in the order of each run's best turn.
  std::vector<std::string> Lines() const;
  // The characters Lines() take as "- <line>\n" items (code points).
  size_t chars() const { return chars_; }
  // How many turns were added.
  size_t count() const { return count_; }
  // The texts of every turn added, for leaving out what only repeats them.
  std::vector<std::string> Texts() const;
  // Whether a turn of session `session_id` with a sequence number in
  // [first, last] was added.
  bool HoldsTurnIn(const std::string& owner, const std::string& session_id, int64_t first,
                   int64_t last) const;

 private:
  struct Turn {
    storage::TurnRow row;
    std::string text;
    size_t chars = 0;  // of " #<seq> <role>: <text>"
  };
  struct Run {
    std::vector<Turn> turns;  // by sequence number
    size_t header_chars = 0;  // of "(<session>, <date>)", from the first turn
    size_t parts_chars = 0;   // the turns' chars summed
    size_t Chars() const { return header_chars + parts_chars + 3; }
  };
  static size_t HeaderChars(const storage::TurnRow& first);

  std::vector<Run> runs_;
  size_t chars_ = 0;
  size_t count_ = 0;
};

}  // namespace mnemo
