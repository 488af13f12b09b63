// Engine::Impl: the state behind the public Engine. Private to src/core.
#pragma once

#include <memory>
#include <string>

#include "mnemo/engine.h"
#include "storage/backend.h"

namespace mnemo {

// kInvalidArgument naming `field` when `content` looks like a secret and
// security.secrets is "reject" (spec 10). Never echoes the secret.
Status CheckSecret(const Config& config, std::string_view content, std::string_view field);

struct Engine::Impl {
  Config config;
  std::string workspace;  // absolute
  std::shared_ptr<Clock> clock;
  std::unique_ptr<storage::Backend> backend;

  // Whose entries `who` may read: everything while ACL is off or for admins.
  storage::ReadScope ScopeFor(const Principal& who) const;
  bool IsAdmin(const Principal& who) const;
  // kDisabled when memory.enabled = false.
  Status CheckEnabled() const;

  // Entries (entries.cc).
  Result<StoreResult> Store(const Principal& who, const StoreRequest& req);
  Result<Entry> Get(const Principal& who, const GetRequest& req);
  Result<bool> Forget(const Principal& who, const ForgetRequest& req);
  Result<Entry> MarkUseful(const Principal& who, const GetRequest& req);
  Result<ListPage> List(const Principal& who, const ListRequest& req);
  Result<Stats> GetStats(const Principal& who);

  // Search (search.cc).
  Result<SearchResponse> Search(const Principal& who, const SearchRequest& req);
  Result<RecallResponse> Recall(const Principal& who, const RecallRequest& req);

  // Export and import (import_export.cc).
  Status ExportJsonl(const Principal& who, std::ostream& out);
  Result<ImportReport> ImportJsonl(const Principal& who, std::istream& in,
                                   const ProgressFn& progress);

 private:
  Result<std::optional<Entry>> ResolveForRead(const Principal& who, const GetRequest& req);
};

}  // namespace mnemo
