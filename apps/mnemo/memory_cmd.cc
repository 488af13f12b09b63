// `mnemo memory list|search|recall|get|forget|store|stats|mark-useful`. Each
// command builds the params of its method, runs it through the method table
// (the schema JSON-RPC uses) and renders the result.
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include "base/strings.h"
#include "commands.h"
#include "human_table.h"
#include "transport/rpc/memory_wire.h"

namespace mnemo::app {
namespace {

using nlohmann::json;

struct MemoryFlags {
  std::string key;
  std::string value;
  std::string query;
  std::string category;
  std::string ns;
  std::string tags;
  std::string visibility;
  std::optional<int64_t> limit;
  std::optional<int64_t> offset;
  bool include_archived = false;
};

std::vector<std::string> SplitTags(const std::string& text) {
  std::vector<std::string> tags;
  std::stringstream in(text);
  std::string tag;
  while (std::getline(in, tag, ',')) {
    if (const std::string_view t = internal::Trim(tag, " \t"); !t.empty()) tags.emplace_back(t);
  }
  return tags;
}

// Only flags the user gave become params, so the table's defaults apply.
void PutIf(json& p, const char* name, const std::string& v) {
  if (!v.empty()) p[name] = v;
}

std::string Percent(const json& score) {
  return std::to_string(transport::ScorePercent(score.is_number() ? score.get<double>() : 0)) + "%";
}

std::string ListTable(const json&, const json& result) {
  std::vector<std::vector<std::string>> rows;
  for (const json& e : result.at("items")) {
    rows.push_back({e.value("key", ""), e.value("namespace", ""), e.value("category", ""),
                    e.value("updated_at", ""), e.value("content", "")});
  }
  if (rows.empty()) return "No memories.";
  std::string out = FormatTable({"KEY", "NAMESPACE", "CATEGORY", "UPDATED", "CONTENT"}, rows);
  if (result.contains("next_offset") && result["next_offset"].is_number()) {
    out += "\n(more: --offset " + result["next_offset"].dump() + ")";
  }
  return out;
}

std::string SearchTable(const json& params, const json& result) {
  std::vector<std::vector<std::string>> rows;
  for (const json& h : result.at("results")) {
    std::string text = h.value("snippet", "");
    if (text.empty()) text = h.value("content", "");
    rows.push_back({Percent(h["score"]), h.value("key", ""), h.value("namespace", ""),
                    h.value("category", ""), text});
  }
  if (rows.empty()) return "No memories found for: " + params.value("query", "");
  return FormatTable({"SCORE", "KEY", "NAMESPACE", "CATEGORY", "MATCH"}, rows);
}

std::string EntryText(const json&, const json& e) {
  std::string tags;
  for (const json& t : e.value("tags", json::array()))
    tags += (tags.empty() ? "" : ",") + t.get<std::string>();
  return "key:        " + e.value("key", "") + "\nnamespace:  " + e.value("namespace", "") +
         "\ncategory:   " + e.value("category", "") + "\ntags:       " + tags +
         "\nowner:      " + e.value("owner", "") + "\nupdated_at: " + e.value("updated_at", "") +
         "\n\n" + e.value("content", "");
}

// Registers one memory subcommand whose action runs `method` with the params
// built by `params` and rendered by `human`.
CLI::App* Sub(CLI::App& memory, GlobalOptions& g, Action& action, const char* name,
              const char* method, const char* help, const std::function<json()>& params,
              const HumanRenderer& human = nullptr) {
  CLI::App* sub = memory.add_subcommand(name, help);
  sub->callback([&g, &action, method, params, human] {
    action = [&g, method, params, human] { return RunMethod(g, method, params(), human); };
  });
  return sub;
}

}  // namespace

void AddMemoryCommand(CLI::App& app, GlobalOptions& g, Action& action) {
  CLI::App* memory = app.add_subcommand("memory", "Read and write memory entries");
  memory->require_subcommand(1);
  auto f = std::make_shared<MemoryFlags>();

  CLI::App* list = Sub(
      *memory, g, action, "list", "memory.list", "List memories",
      [f] {
        json p = json::object();
        PutIf(p, "category", f->category);
        PutIf(p, "namespace", f->ns);
        if (f->limit) p["limit"] = *f->limit;
        if (f->offset) p["offset"] = *f->offset;
        return p;
      },
      ListTable);
  list->add_option("--category", f->category, "Only this category");
  list->add_option("--namespace", f->ns, "Only this namespace");
  list->add_option("--limit", f->limit, "Page size (1-1000, default 50)");
  list->add_option("--offset", f->offset, "Entries to skip");

  CLI::App* search = Sub(
      *memory, g, action, "search", "memory.search", "Search memories",
      [f] {
        json p = {{"query", f->query}};
        PutIf(p, "category", f->category);
        PutIf(p, "namespace", f->ns);
        if (!f->tags.empty()) p["tags"] = SplitTags(f->tags);
        if (f->limit) p["max_results"] = *f->limit;
        if (f->include_archived) p["include_archived"] = true;
        return p;
      },
      SearchTable);
  search->add_flag("--include-archived", f->include_archived, "Also entries hygiene archived");
  search->add_option("query", f->query, "What to look for")->required();
  search->add_option("--category", f->category, "Only this category");
  search->add_option("--namespace", f->ns, "Only this namespace");
  search->add_option("--tags", f->tags, "Only entries with all of these tags (a,b)");
  search->add_option("--limit", f->limit, "Maximum results (1-100, default 20)");

  CLI::App* recall =
      Sub(*memory, g, action, "recall", "memory.recall", "Recall across every memory layer", [f] {
        json p = {{"query", f->query}};
        PutIf(p, "namespace", f->ns);
        if (f->limit) p["max_results"] = *f->limit;
        return p;
      });
  recall->add_option("query", f->query, "What to recall")->required();
  recall->add_option("--namespace", f->ns, "Only this namespace");
  recall->add_option("--limit", f->limit, "Maximum results (1-100, default 20)");

  auto keyed = [f] {
    json p = {{"key", f->key}};
    PutIf(p, "namespace", f->ns);
    return p;
  };
  for (auto [name, method, help, human] :
       {std::tuple{"get", "memory.get", "Show one memory by key", HumanRenderer(EntryText)},
        std::tuple{"forget", "memory.forget", "Delete one memory by key", HumanRenderer()},
        std::tuple{"mark-useful", "memory.mark_useful", "Mark a memory as useful",
                   HumanRenderer()}}) {
    CLI::App* sub = Sub(*memory, g, action, name, method, help, keyed, human);
    sub->add_option("key", f->key, "The memory's key")->required();
    sub->add_option("--namespace", f->ns, "Namespace (default global)");
  }

  CLI::App* store = Sub(*memory, g, action, "store", "memory.store", "Store a memory", [f] {
    json p = {{"key", f->key}, {"value", f->value}};
    PutIf(p, "category", f->category);
    PutIf(p, "namespace", f->ns);
    PutIf(p, "visibility", f->visibility);
    if (!f->tags.empty()) p["tags"] = SplitTags(f->tags);
    return p;
  });
  store->add_option("key", f->key, "The memory's key")->required();
  store->add_option("value", f->value, "The content to remember")->required();
  store->add_option("--category", f->category, "core (default), daily, conversation or custom");
  store->add_option("--namespace", f->ns, "Namespace (default global)");
  store->add_option("--tags", f->tags, "Comma-separated tags (a,b)");
  store->add_option("--visibility", f->visibility, "private (default) or public");

  Sub(*memory, g, action, "stats", "memory.stats", "Counts by category and namespace",
      [] { return json::object(); });
}

}  // namespace mnemo::app
