// What is generated from the command tree itself, so it cannot drift from
// the parser: the man page (`mnemo docs man`, installed as mnemo(1)) and the
// shell completions (`mnemo completion bash|zsh|fish`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}  // namespace CLI

namespace mnemo::app {

// The shells `mnemo completion` writes a script for; one list for the
// command's choices, its error and the docs.
inline const std::vector<std::string>& CompletionShells() {
  static const std::vector<std::string> shells = {"bash", "zsh", "fish"};
  return shells;
}

// mnemo(1) in roff, every command with its options and arguments.
std::string ManPage(const CLI::App& root, std::string_view version);

// The completion script for `shell` (one of CompletionShells()).
std::string CompletionScript(const CLI::App& root, std::string_view shell);

}  // namespace mnemo::app
