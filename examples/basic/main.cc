// The smallest program on the public API: open a workspace, store a memory,
// find it again. Usage: basic WORKSPACE_DIR
#include <mnemo/engine.h>

#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: basic WORKSPACE_DIR\n";
    return 1;
  }
  auto engine = mnemo::Engine::Open({.workspace = argv[1]});
  if (!engine.ok()) {
    std::cerr << engine.status().ToString() << "\n";
    return 2;
  }
  mnemo::Principal me;
  auto stored = (*engine)->memory().Store(
      me, {.key = "editor", .content = "The user prefers Helix over Vim."});
  if (!stored.ok()) {
    std::cerr << stored.status().ToString() << "\n";
    return 2;
  }
  auto found = (*engine)->memory().Search(me, {.query = "which editor does the user prefer"});
  if (!found.ok() || found->results.empty()) {
    std::cerr << "not found\n";
    return 2;
  }
  std::cout << found->results[0].key << ": " << found->results[0].snippet << "\n";
  return 0;
}
