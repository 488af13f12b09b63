// Erasure (spec 10, "Erasure"): what AdminStore::EraseSession removes. The
// backend-independent rules are in erasure_rules.h.
#pragma once

#include <string>
#include <vector>

#include "storage/values.h"

namespace mnemo::storage {

// One conversation of one owner. The store finds the session's turns,
// segments (with their recaps and recap vectors), events and context events
// itself; the documents derived from the session are named by the caller
// (their sources are formats of the layers above storage), and the triples
// whose source is one of those documents go with them.
// The session comes parsed (storage/values.h): the stores check it no more.
struct SessionErasure {
  std::string owner;
  SessionId session_id;
  std::vector<std::string> document_ids;  // the owner's; others are left alone
};

}  // namespace mnemo::storage
