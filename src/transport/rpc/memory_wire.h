// JSON result shapes (spec 60) and model-facing texts (spec 10) of the memory
// methods. Entries use EntryToJson (src/core/formats/entry_json.h), the one Entry
// converter.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "mnemo/types.h"

namespace mnemo::transport {

nlohmann::json StoreResultToJson(const StoreResult& r);
nlohmann::json SearchResponseToJson(const SearchResponse& r);
nlohmann::json RecallResponseToJson(const RecallResponse& r);
nlohmann::json ListPageToJson(const ListPage& page);
nlohmann::json StatsToJson(const Stats& s);

// Texts. `params` are the validated params, `result` the method's result.
// store:  "Stored memory: <key>"
// forget: "Forgot memory: <key>" | "No memory found with key: <key>"
// get:    "[<namespace>/<category>] <key>: <content>"
// recall: one "- [<source>/<category>] <key>: <content> [<pct>%]" line per hit
// search: one "- [<namespace>/<category>] <key>: <snippet> [<pct>%]" line per
//         hit (the content when the snippet is empty);
// no hits: "No memories found for: <query>".
std::string RenderStore(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderForget(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderEntry(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderRecall(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderSearch(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderList(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderStats(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderMarkUseful(const nlohmann::json& params, const nlohmann::json& result);

// The text of a get miss, also the -32001 message: "No memory entry found for
// key: <key>".
std::string GetMissText(const std::string& key);

// round(score * 100) as an integer percentage (0.85 -> 85).
int ScorePercent(double score);

}  // namespace mnemo::transport
