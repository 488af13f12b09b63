// The JSON form of every stored row a backup carries (export/import version
// 2, docs/storage.md "Export format"): one converter per kind, both ways,
// in one place. Times are integer milliseconds since the epoch (exact);
// entries keep their wire form (entry_json.h). A parse checks each member's
// JSON type and names the member in its error; the value rules of the rows
// are the storage's (storage::ValidateRestoreBatch).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "mnemo/status.h"
#include "storage/restore.h"

namespace mnemo::internal {

nlohmann::json TurnToJson(const storage::TurnRow& r);
Result<storage::TurnRow> TurnFromJson(const nlohmann::json& j);
nlohmann::json SegmentToJson(const storage::SegmentRow& r);
Result<storage::SegmentRow> SegmentFromJson(const nlohmann::json& j);
nlohmann::json EventToJson(const storage::EventRow& r);
Result<storage::EventRow> EventFromJson(const nlohmann::json& j);
nlohmann::json FacetToJson(const storage::FacetRow& r);
Result<storage::FacetRow> FacetFromJson(const nlohmann::json& j);
// Without search_text and content_hash: both are derived on import.
nlohmann::json DocumentToJson(const storage::DocumentRow& r);
Result<storage::DocumentRow> DocumentFromJson(const nlohmann::json& j);
// Without search_text: derived on import.
nlohmann::json ContextEventRowToJson(const storage::ContextEventRow& r);
Result<storage::ContextEventRow> ContextEventRowFromJson(const nlohmann::json& j);
nlohmann::json TripleToJson(const storage::TripleRow& r);
Result<storage::TripleRow> TripleFromJson(const nlohmann::json& j);

// An array of numbers (a vector) or kInvalidArgument naming `field`.
Result<std::vector<float>> FloatsFromJson(const nlohmann::json& j, std::string_view field);

}  // namespace mnemo::internal
