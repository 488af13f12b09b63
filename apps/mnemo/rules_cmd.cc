// `mnemo rules list|put|delete|prompt`: the tool-rule methods of spec 30
// through the method table, like every other command.
#include <memory>
#include <optional>

#include "base/strings.h"
#include "commands.h"
#include "human_table.h"

namespace mnemo::app {
namespace {

using nlohmann::json;

struct RuleFlags {
  std::string tool;
  std::string rule;
  std::string priority;
  std::string source;
  std::string tags;
  std::string id;
  std::vector<std::string> tools;
};

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    std::string item = text.substr(start, end - start);
    if (const std::string_view t = internal::Trim(item, " \t"); !t.empty()) out.emplace_back(t);
    start = end + 1;
  }
  return out;
}

std::string RulesTable(const json& params, const json& result) {
  std::vector<std::vector<std::string>> rows;
  for (const json& r : result) {
    std::string tags;
    for (const json& t : r.value("tags", json::array())) {
      tags += (tags.empty() ? "" : ",") + t.get<std::string>();
    }
    rows.push_back({r.value("tool_name", ""), r.value("priority", ""), r.value("source", ""),
                    r.value("id", ""), tags, r.value("rule", "")});
  }
  if (rows.empty()) return "No rules.";
  return FormatTable({"TOOL", "PRIORITY", "SOURCE", "ID", "TAGS", "RULE"}, rows);
}

// The pinned block exactly as a system prompt gets it (no trailing text).
std::string PromptText(const json&, const json& result) {
  std::string rendered = result.value("rendered", "");
  if (rendered.empty()) return "No pinned tool rules.";
  if (rendered.back() == '\n') rendered.pop_back();
  return rendered;
}

}  // namespace

void AddRulesCommand(CLI::App& app, GlobalOptions& g, Action& action) {
  CLI::App* rules = app.add_subcommand("rules", "Tool-scoped rules pinned into system prompts");
  rules->require_subcommand(1);
  auto f = std::make_shared<RuleFlags>();

  CLI::App* list = rules->add_subcommand("list", "List rules (of one tool, or of every tool)");
  list->add_option("tool", f->tool, "Only this tool");
  list->callback([&g, &action, f] {
    action = [&g, f] {
      json p = json::object();
      if (!f->tool.empty()) p["tool_name"] = f->tool;
      return RunMethod(g, "memory.tool_rules_json", p, RulesTable);
    };
  });

  CLI::App* put = rules->add_subcommand("put", "Store (or update by --id) a rule about a tool");
  put->add_option("tool", f->tool, "The tool, e.g. send_email (\"*\" = any tool)")->required();
  put->add_option("rule", f->rule, "The rule, e.g. \"Never email Sarah.\"")->required();
  put->add_option("--priority", f->priority, "critical, high or normal (default normal)");
  put->add_option("--source", f->source, "user_explicit, post_turn or programmatic");
  put->add_option("--tags", f->tags, "Comma-separated tags (a,b)");
  put->add_option("--id", f->id, "Update the rule with this id");
  put->callback([&g, &action, f] {
    action = [&g, f] {
      json p = {{"tool_name", f->tool}, {"rule", f->rule}};
      if (!f->priority.empty()) p["priority"] = f->priority;
      if (!f->source.empty()) p["source"] = f->source;
      if (!f->tags.empty()) p["tags"] = SplitList(f->tags);
      if (!f->id.empty()) p["id"] = f->id;
      return RunMethod(g, "memory.tool_rule_put", p);
    };
  });

  CLI::App* del = rules->add_subcommand("delete", "Delete one rule");
  del->add_option("tool", f->tool, "The rule's tool")->required();
  del->add_option("id", f->id, "The rule's id")->required();
  del->callback([&g, &action, f] {
    action = [&g, f] {
      return RunMethod(g, "memory.tool_rule_delete", {{"tool_name", f->tool}, {"id", f->id}});
    };
  });

  CLI::App* prompt = rules->add_subcommand("prompt", "Print the pinned block a system prompt gets");
  prompt->add_option("--tools", f->tools, "Only these tools (default: every tool)")->delimiter(',');
  prompt->callback([&g, &action, f] {
    action = [&g, f] {
      json p = json::object();
      if (!f->tools.empty()) p["tools"] = f->tools;
      return RunMethod(g, "memory.tool_rules_for_prompt", p, PromptText);
    };
  });
}

}  // namespace mnemo::app
