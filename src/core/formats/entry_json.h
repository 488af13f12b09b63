// The JSON form of an Entry (spec 60 "Entry" shape). One converter serves the
// wire (transports) and the export/import file format (JSONL).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "mnemo/names.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo {

// {"id","key","namespace","category","content","tags","owner","visibility",
//  "created_at","updated_at","access_count","useful_count","archived"}
// with RFC3339 UTC times.
nlohmann::json EntryToJson(const Entry& e);

// Parses one import line's object. Only `key` and `content` are required;
// absent fields take their defaults (owner: `default_owner`). Field names and
// what is allowed appear in the error message. Values are validated like a
// store (key, category, content, tags), so an imported entry is one that
// memory_store could have written.
Result<Entry> EntryFromImportJson(const nlohmann::json& j, const std::string& default_owner);

}  // namespace mnemo
