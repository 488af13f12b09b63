// Documents (spec 50, "Context window and documents"): evidence kept as it
// was written — context events that left the window, the raw prose of a
// closed segment (spec 40), anything given to memory.doc_put. The content is
// stored byte for byte; the summary, tags and entities are derived from the
// computation text (spec 00) and can be derived again (reindex).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/document_store.h"
#include "storage/graph_store.h"

namespace mnemo::context {

// Sizes of the derived fields.
inline constexpr size_t kSummaryMaxBytes = 600;
inline constexpr size_t kMaxTags = 8;
inline constexpr size_t kMaxEntities = 64;

struct DocumentFields {
  std::string summary;                // extractive (text/summary.h)
  std::vector<std::string> tags;      // top keywords by TF-IDF against the store
  std::vector<std::string> entities;  // "<kind>:<text>" (EncodeEntity)
};

// "<kind>:<text>", e.g. "email:sarah@example.com"; kinds hold no ':'.
std::string EncodeEntity(std::string_view kind, std::string_view text);
// The (kind, text) of an encoded entity; kind "" when it has no ':'.
std::pair<std::string_view, std::string_view> DecodeEntity(std::string_view encoded);

// Summary, tags (document frequencies from `documents`) and entities of a
// document whose computation text is `computation_text`, read without the
// speaker labels its lines start with ("user:", "assistant:", "[tool] x:"):
// those are roles, not content (a segment document labels every line).
Result<DocumentFields> DeriveFields(storage::DocumentStore& documents,
                                    std::string_view computation_text);

struct NewDocument {
  std::string owner = "local";
  std::string source;
  std::string meta;              // a JSON object's text ("" = none)
  std::string content;           // stored as given
  std::string computation_text;  // what every index reads
  TimeMs now = 0;
  // When set, the user's triples (subject kUserSubject, graph.h) of the
  // predicates it accepts are not taken from the text: the caller writes
  // them from another reading (a chat's profile slots, archivist/profile/slot_graph.h).
  bool (*user_predicate_elsewhere)(std::string_view predicate) = nullptr;
};

// Derives the fields and stores the document; an owner's second copy of the
// same content is not stored again (created = false, the first returned).
// A new document's computation text is distilled into triples (graph.h)
// with the document's id as their source, but for the user's triples that
// `user_predicate_elsewhere` accepts.
Result<storage::DocumentPut> StoreDocument(storage::DocumentStore& documents,
                                           storage::GraphStore& graph, NewDocument doc);

}  // namespace mnemo::context
