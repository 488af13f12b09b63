// mnemo::Documents — documents (spec 50). Stored byte for byte; summary,
// tags and entities are derived from the content. An owner's identical
// contents are stored once (created = false, the first id). Scoped like
// episodic rows: the caller's own under ACL, where another principal's
// document is kNotFound (Get) or not deleted (Delete) exactly like a
// missing one.
//
// Made by Engine::Open and handed out by Engine::documents(); it lives as
// long as its Engine. Every call checks its request (include/mnemo/limits.h)
// and answers kDisabled while memory.enabled = false.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <string_view>
#include <vector>

#include "mnemo/services_fwd.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

class Documents {
 public:
  // Made by Engine::Open only.
  explicit Documents(const internal::Services& services) : services_(services) {}
  Documents(const Documents&) = delete;
  Documents& operator=(const Documents&) = delete;

  Result<DocumentPutResult> Put(const Principal& who, const DocumentPutRequest& req);
  // Counts an access, best effort like Memory::Get. kNotFound when missing
  // or not readable by `who`.
  Result<Document> Get(const Principal& who, std::string_view id);
  Result<std::vector<DocumentSearchHit>> Search(const Principal& who,
                                                const DocumentSearchRequest& req);
  Result<DocumentList> List(const Principal& who, const DocumentListRequest& req);
  // Returns whether a document was deleted.
  Result<bool> Delete(const Principal& who, std::string_view id);

 private:
  const internal::Services& services_;
};

}  // namespace mnemo

#pragma GCC visibility pop
