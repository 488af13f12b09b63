// Tool-rule measurements (spec 30 / issue "tool-scoped rules"): latency of
// memory.turn_complete's capture path and of rules_for_prompt over 1 000
// tools x 10 rules, through the public Engine on a real SQLite workspace with
// the default (hash) embedder.
//
//   rules_bench [--turns N]
//
// Prints one JSON line. Not a test: run by hand on an idle machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "mnemo/engine.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Percentiles {
  double p50 = 0;
  double p95 = 0;
};

Percentiles Of(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms[ms.size() / 2], ms[ms.size() * 95 / 100]};
}

double MsSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void Check(const mnemo::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "rules_bench: %s: %s\n", what, s.ToString().c_str());
    std::exit(2);
  }
}

mnemo::ToolCall Call(std::string name, bool ok, std::string output) {
  return {.name = std::move(name), .success = ok, .output = std::move(output), .duration_ms = 40};
}

}  // namespace

int main(int argc, char** argv) {
  int turns = 2000;
  bool keep = false;  // --keep: leave the workspace for inspection
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--turns" && i + 1 < argc) turns = std::atoi(argv[i + 1]);
    if (std::string(argv[i]) == "--keep") keep = true;
  }
  const std::filesystem::path ws =
      std::filesystem::temp_directory_path() / ("mnemo-rules-bench-" + std::to_string(getpid()));
  std::filesystem::remove_all(ws);
  auto engine = mnemo::Engine::Open({.workspace = ws.string()});
  Check(engine.status(), "open");
  mnemo::Engine& e = **engine;
  const mnemo::Principal who;

  // 1. A plain turn: two successful calls, no edict (statistics only).
  // 2. A turn with a new edict (one critical rule created and embedded).
  // 3. A turn with two failures of one tool (the failure rule refreshed).
  std::vector<double> plain, edict, failure;
  for (int i = 0; i < turns; ++i) {
    mnemo::Turn t{
        .session_id = "bench",
        .user_message = "Please summarise the report for the team meeting.",
        .assistant_response = "Here is the summary.",
        .tool_calls = {Call("files_read", true, "report text"), Call("send_email", true, "sent")}};
    auto start = Clock::now();
    Check(e.archivist().TurnComplete(who, t).status(), "plain turn");
    plain.push_back(MsSince(start));

    // Spread over 100 mail tools (about 10 rules each at 1 000 turns), as a
    // harness with many tools would see them.
    t.tool_calls[1].name = "mailer_" + std::to_string(i % 100);
    t.user_message = "Never email customer " + std::to_string(i) + " about invoices.";
    start = Clock::now();
    auto r = e.archivist().TurnComplete(who, t);
    edict.push_back(MsSince(start));
    Check(r.status(), "edict turn");
    if (r->new_rules.size() != 1) Check(mnemo::Internal("edict not captured"), "edict turn");

    t.user_message = "Build it again.";
    t.tool_calls = {Call("shell", false, "make: connection refused"),
                    Call("shell", false, "make: connection refused")};
    start = Clock::now();
    Check(e.archivist().TurnComplete(who, t).status(), "failure turn");
    failure.push_back(MsSince(start));
  }

  // rules_for_prompt over 1 000 tools x 10 rules (4 critical, 3 high, 3
  // normal each), on top of the rules above.
  for (int tool = 0; tool < 1000; ++tool) {
    for (int k = 0; k < 10; ++k) {
      mnemo::ToolRulePut put{.tool_name = "tool_" + std::to_string(tool),
                             .rule = "Rule " + std::to_string(k) + " for tool " +
                                     std::to_string(tool) +
                                     ": check the arguments twice before calling it.",
                             .priority = k < 4   ? mnemo::RulePriority::kCritical
                                         : k < 7 ? mnemo::RulePriority::kHigh
                                                 : mnemo::RulePriority::kNormal};
      Check(e.rules().Put(who, put).status(), "put");
    }
  }
  // Cold: a rule changed since the last call (the block is rebuilt from
  // storage). Warm: unchanged rules (one generation read, cached block).
  std::vector<double> cold, warm;
  size_t bytes = 0;
  for (int i = 0; i < 50; ++i) {
    Check(e.rules()
              .Put(who, {.tool_name = "tool_0", .rule = "Changed " + std::to_string(i)})
              .status(),
          "change");
    auto start = Clock::now();
    auto p = e.rules().ForPrompt(who);
    cold.push_back(MsSince(start));
    Check(p.status(), "prompt");
    bytes = p->rendered.size();
    start = Clock::now();
    Check(e.rules().ForPrompt(who).status(), "prompt");
    warm.push_back(MsSince(start));
  }
  const Percentiles a = Of(plain), b = Of(edict), c = Of(failure), d = Of(cold), w = Of(warm);
  std::printf(
      "{\"bench\":\"rules\",\"turns\":%d,"
      "\"turn_plain_ms\":{\"p50\":%.3f,\"p95\":%.3f},"
      "\"turn_edict_ms\":{\"p50\":%.3f,\"p95\":%.3f},"
      "\"turn_failure_ms\":{\"p50\":%.3f,\"p95\":%.3f},"
      "\"rules_for_prompt_ms\":{\"rules\":%d,\"cold_p50\":%.3f,\"cold_p95\":%.3f,"
      "\"warm_p50\":%.3f,\"warm_p95\":%.3f,\"rendered_bytes\":%zu}}\n",
      turns, a.p50, a.p95, b.p50, b.p95, c.p50, c.p95, 10000 + turns + 51, d.p50, d.p95, w.p50,
      w.p95, bytes);
  engine->reset();
  if (keep) {
    std::fprintf(stderr, "rules_bench: workspace kept at %s\n", ws.c_str());
  } else {
    std::filesystem::remove_all(ws);
  }
  return 0;
}
