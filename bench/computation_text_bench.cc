// The computation text of one turn (spec 50): 10 tool results of 10 KB each
// through the registry — raw outputs, JSON envelopes under a json_field
// cleaner, HTML under strip_html + collapse_whitespace, terminal output
// under strip_ansi, and one no_memory tool. Target: <= 1 ms per turn.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "context/computation_text.h"
#include "context/tool_registry.h"

namespace {

constexpr size_t kOutputBytes = 10 * 1024;

std::string Filler(size_t bytes, const std::string& unit) {
  std::string s;
  while (s.size() + unit.size() <= bytes) s += unit;
  return s;
}

mnemo::text::Cleaner MustParse(const char* spec) {
  auto c = mnemo::text::Cleaner::Parse(spec);
  if (!c.ok()) std::abort();
  return *c;
}

void BM_ComputeTurnText_10x10KB(benchmark::State& state) {
  mnemo::context::ToolRegistry registry;
  registry.Put(mnemo::context::ToolSource::kConfig,
               {.name = "files_read", .cleaner = MustParse(R"([{"json_field":"content"}])")});
  registry.Put(mnemo::context::ToolSource::kConfig,
               {.name = "web_fetch",
                .cleaner = MustParse(R"([{"strip_html":true},{"collapse_whitespace":true}])")});
  registry.Put(mnemo::context::ToolSource::kConfig,
               {.name = "shell", .cleaner = MustParse(R"([{"strip_ansi":true}])")});
  registry.Put(mnemo::context::ToolSource::kConfig, {.name = "cmd_run", .no_memory = true});

  const std::string prose =
      Filler(kOutputBytes, "The deploy of the billing service finished after the migration. ");
  const std::string json = "{\"path\":\"/srv/app\",\"content\":\"" +
                           Filler(kOutputBytes - 40, "main.py utils.py deploy.py config.yaml ") +
                           "\"}";
  const std::string html = "<html><body>" +
                           Filler(kOutputBytes - 30, "<p>Release <b>notes</b> &amp; fixes</p>\n") +
                           "</body></html>";
  const std::string ansi = Filler(kOutputBytes, "\x1b[32mok\x1b[0m test passed in 12ms\r\n");
  std::vector<mnemo::ToolCall> calls;
  for (int i = 0; i < 3; ++i) calls.push_back({.name = "notes_search", .output = prose});
  for (int i = 0; i < 3; ++i) calls.push_back({.name = "files_read", .output = json});
  for (int i = 0; i < 2; ++i) calls.push_back({.name = "web_fetch", .output = html});
  calls.push_back({.name = "shell", .output = ansi});
  calls.push_back({.name = "cmd_run", .output = prose});

  size_t bytes = 0;
  for (auto _ : state) {
    mnemo::context::TurnComputation t = mnemo::context::ComputeTurnText(
        registry, "How did the deploy go?", "It finished; details below.", calls);
    bytes += t.assistant.size();
    benchmark::DoNotOptimize(t);
  }
  state.counters["output_bytes"] =
      static_cast<double>(bytes) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_ComputeTurnText_10x10KB)->Unit(benchmark::kMillisecond);

}  // namespace
