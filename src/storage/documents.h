// Documents (spec 50, "Context window and documents"): evidence kept as it
// was written — context events that left the window, the raw prose of a
// closed segment (spec 40), anything given to memory.doc_put. `content` is
// stored byte for byte and never read by the keyword index; the index reads
// the computation text, summary and tags the caller derived from it. A
// document's content never changes; its derived fields may be recomputed.
// An owner's identical contents are stored once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mnemo/types.h"

namespace mnemo::storage {

struct DocumentRow {
  std::string id;  // UUID; assigned by PutDocument when empty
  std::string owner = "local";
  // Provenance: "agent://session/<s>/segment/<seg>#seq<a>-<b>" (a closed
  // segment), "context:<session>" (pruned context events) or the caller's.
  std::string source;
  std::string meta;         // a JSON object's text, as given (opaque to storage)
  std::string content;      // raw, stored byte for byte
  std::string search_text;  // computation text the keyword index reads; never the content
  std::string summary;
  std::vector<std::string> tags;
  std::vector<std::string> entities;
  // Lower-case hex SHA-256 of `content`, always computed by the store (a
  // value given to PutDocument is ignored).
  std::string content_hash;
  int64_t access_count = 0;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
};

struct DocumentPut {
  DocumentRow row;  // as stored: the new row, or the owner's existing one with the same content
  bool created = false;
};

struct DocumentQuery {
  std::vector<std::string> terms;    // from text::QueryTerms
  std::optional<std::string> owner;  // whose documents; nullopt: every owner's
  int limit = 20;
};

struct DocumentHit {
  DocumentRow row;
  double score = 0;  // normalised BM25 in [0, 1], the formula of entries and turns (spec 20)
};

}  // namespace mnemo::storage
