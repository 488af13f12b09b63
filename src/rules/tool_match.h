// Which tool an edict is about (spec 30, capture step 1, "Tool"): a tool of
// the turn named in it, else one reached through the alias table among the
// turn's tools and then among every tool the engine knows, else the only tool
// of the turn, else unscoped ("*"). Pure text functions; no storage.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::rules {

// One row of the alias table: a sentence word in `words` (English matched as
// a word, inflections like "emailing" included; Chinese as a substring) maps
// to the tools whose name contains one of `tool_contains`.
struct Alias {
  std::vector<std::string> words;
  std::vector<std::string> tool_contains;
};

// The built-in table of spec 30. `[[rules.aliases]]` rows are added to it
// (rules.aliases_replace_builtin = true replaces it); the engine joins them.
const std::vector<Alias>& BuiltinAliases();

// The tools an edict may be filed under.
struct ToolCandidates {
  // This turn's tools, normalised, in the order they first ran.
  std::vector<std::string> turn;
  // Every tool the engine knows (registered, with statistics, with rules),
  // normalised. Asked at most once per matcher, and only when an alias
  // matches no tool of the turn; null: none.
  std::function<std::vector<std::string>()> known;
};

// Chooses the tool of each edict of one turn. Construction indexes the turn's
// tools and the alias table once, so a message of many clauses does not redo
// it per clause. `aliases` must outlive the matcher. Not thread-safe (the
// known tools are loaded lazily).
class ToolMatcher {
 public:
  ToolMatcher(ToolCandidates candidates, const std::vector<Alias>& aliases);
  ~ToolMatcher();
  ToolMatcher(const ToolMatcher&) = delete;
  ToolMatcher& operator=(const ToolMatcher&) = delete;

  // The tool `edict` (a sentence or clause) is about, first match wins:
  //  1. a tool of the turn whose name, or a word of its name (`git_push` →
  //     git, push; split at _ - . and spaces, words of one letter and a few
  //     function words left out), is in the edict; words are compared after
  //     stemming, so "sending" matches `send_email`. The whole name spoken
  //     beats words of it, more words beat fewer, a longer name a shorter
  //     one, then the earlier tool;
  //  2. a tool of the turn reached through the alias table, then a tool the
  //     engine knows reached through it (most specific match wins: the tool
  //     name contains the spoken word, the longer word, the longer
  //     tool_contains entry, then the earlier tool: turn order, known tools
  //     by name);
  //  3. the only distinct tool of the turn;
  //  4. "*" (kAnyTool, unscoped).
  std::string Match(std::string_view edict);

 private:
  class Index;
  // Whether any alias word is in the lower-cased edict: the known tools are
  // read only then.
  bool SpeaksAnAlias(std::string_view lowered) const;
  std::vector<std::string> turn_;
  std::function<std::vector<std::string>()> known_source_;
  const std::vector<Alias>& aliases_;
  std::unique_ptr<Index> turn_index_;
  std::unique_ptr<Index> known_index_;  // built on first need
  std::vector<std::string> known_;
};

// ToolMatcher(candidates, aliases).Match(edict).
std::string MatchTool(std::string_view edict, const ToolCandidates& candidates,
                      const std::vector<Alias>& aliases);

}  // namespace mnemo::rules
