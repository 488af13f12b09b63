// `mnemo sessions list|show|forget` and `mnemo profile`: the Archivist's
// read side (spec 40) and erasure (spec 10) through the method table.
#include <map>
#include <memory>

#include "commands.h"
#include "human_table.h"

namespace mnemo::app {
namespace {

using nlohmann::json;

// One row per session, from its segments.
std::string SessionsTable(const json&, const json& result) {
  struct Row {
    int64_t segments = 0;
    int64_t turns = 0;
    std::string last;
    std::string open;
  };
  std::map<std::string, Row> sessions;
  for (const json& s : result.at("segments")) {
    Row& r = sessions[s.value("session_id", "")];
    ++r.segments;
    r.turns += s.value("turn_count", int64_t{0});
    r.last = std::max(r.last, s.value("last_turn_at", std::string()));
    if (s.value("status", "") == "open") r.open = "yes";
  }
  if (sessions.empty()) return "No sessions.";
  std::vector<std::vector<std::string>> rows;
  rows.reserve(sessions.size());
  for (const auto& [id, r] : sessions) {
    rows.push_back({id, std::to_string(r.turns), std::to_string(r.segments),
                    r.open.empty() ? "no" : "yes", r.last});
  }
  return FormatTable({"SESSION", "TURNS", "SEGMENTS", "OPEN", "LAST TURN"}, rows);
}

std::string TurnsText(const json&, const json& result) {
  std::string out;
  for (const json& t : result.at("turns")) {
    if (!out.empty()) out += "\n";
    out += "#" + std::to_string(t.value("seq", int64_t{0})) + " " + t.value("role", "") + " (" +
           t.value("timestamp", "") + "): " + t.value("content", "");
    if (!t.value("lesson", "").empty()) out += "\n   lesson: " + t.value("lesson", "");
  }
  return out.empty() ? "No turns in this session." : out;
}

std::string ProfileText(const json&, const json& result) {
  std::string rendered = result.value("rendered", "");
  if (rendered.empty()) return "No profile facets yet.";
  if (rendered.back() == '\n') rendered.pop_back();
  return rendered;
}

}  // namespace

void AddSessionsCommands(CLI::App& app, GlobalOptions& g, Action& action) {
  CLI::App* sessions = app.add_subcommand("sessions", "Conversations the Archivist has stored");
  sessions->require_subcommand(1);
  auto id = std::make_shared<std::string>();

  CLI::App* list = sessions->add_subcommand("list", "Every session with its turns and segments");
  list->callback([&g, &action] {
    action = [&g] { return RunMethod(g, "memory.segments", json::object(), SessionsTable); };
  });

  CLI::App* show = sessions->add_subcommand("show", "The turns of one session, in order");
  show->add_option("session", *id, "The session's id")->required();
  show->callback([&g, &action, id] {
    action = [&g, id] {
      return RunMethod(g, "memory.session_turns", {{"session_id", *id}}, TurnsText);
    };
  });

  CLI::App* forget = sessions->add_subcommand(
      "forget", "Erase a session and everything derived from it (counts printed)");
  forget->add_option("session", *id, "The session's id")->required();
  auto owner = std::make_shared<std::string>();
  forget->add_option("--owner", *owner, "Admin: whose session it is (default: yours)");
  forget->callback([&g, &action, id, owner] {
    action = [&g, id, owner] {
      json params = {{"session_id", *id}};
      if (!owner->empty()) params["owner"] = *owner;
      return RunMethod(g, "memory.session_forget", params);
    };
  });

  CLI::App* profile = app.add_subcommand("profile", "The user's profile facets, as markdown");
  profile->callback([&g, &action] {
    action = [&g] { return RunMethod(g, "memory.profile_render", json::object(), ProfileText); };
  });
}

}  // namespace mnemo::app
