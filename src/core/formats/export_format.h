// The names of export format version 2 shared by admin_export.cc and admin_import.cc
// (docs/storage.md "Export format").
#pragma once

#include <array>
#include <string_view>

namespace mnemo::internal {

inline constexpr const char* kExportMarker = "mnemo_export";
inline constexpr int kExportVersion = 2;

// Record types ("type" of a line) and their names in the header's counts.
inline constexpr std::array<std::string_view, 9> kRecordTypes = {
    "entry", "vector", "turn", "segment", "event", "facet", "document", "context_event", "triple"};
inline constexpr std::array<std::string_view, 9> kCountNames = {
    "entries", "vectors",   "turns",          "segments", "events",
    "facets",  "documents", "context_events", "triples"};

// The count name of a record type ("" for an unknown type).
constexpr std::string_view CountName(std::string_view type) {
  for (size_t i = 0; i < kRecordTypes.size(); ++i) {
    if (kRecordTypes[i] == type) return kCountNames[i];
  }
  return {};
}

}  // namespace mnemo::internal
