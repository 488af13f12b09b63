// The entry tools: store, get, forget, mark_useful, list, stats (spec 10).

#include "core/engine_impl.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "text/secrets.h"

namespace mnemo {
namespace {

constexpr TimeMs kAccessWarningIntervalMs = 60'000;

Status NotFoundFor(std::string_view key) {
  return NotFound("No memory entry found for key: " + std::string(key));
}

Status ValidateAddress(std::string_view key, std::string_view ns) {
  MNEMO_RETURN_IF_ERROR(ValidateKey(key, "key"));
  return ValidateNamespace(ns, "namespace");
}

}  // namespace

Result<StoreResult> Engine::Impl::Store(const Principal& who, const StoreRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateAddress(req.key, req.ns));
  if (rules::ToolOfNamespace(req.ns) && req.key.starts_with("rule/")) {
    return InvalidArgument("key \"rule/...\" in namespace " + req.ns +
                               " is a tool rule: write rules with memory.tool_rule_put (they are "
                               "validated and pinned into prompts); other keys are free here",
                           "key");
  }
  if (req.ns == storage::kToolRegistryNamespace) {
    return InvalidArgument(
        "namespace tool_registry is reserved for tool declarations: register "
        "a tool with memory.tool_register",
        "namespace");
  }
  MNEMO_RETURN_IF_ERROR(ValidateContent(req.content, "value"));
  MNEMO_RETURN_IF_ERROR(ValidateCategory(req.category, "category"));
  if (req.tags) MNEMO_RETURN_IF_ERROR(ValidateTags(*req.tags, "tags"));
  MNEMO_RETURN_IF_ERROR(CheckSecret(config.security.secrets, req.content, "value"));
  if (req.embedding) MNEMO_RETURN_IF_ERROR(ValidateEmbedding(*req.embedding));
  storage::EntryWrite w;
  w.owner = who.name;
  w.ns = req.ns;
  w.key = req.key;
  w.content = req.content;
  w.category = req.category;
  w.tags = req.tags;
  w.visibility = req.visibility;
  w.now = clock->NowMs();
  MNEMO_ASSIGN_OR_RETURN(storage::UpsertResult r, stores.entries->Upsert(w));
  // The entry is stored; vectors follow, and their failure is not fatal.
  if (r.text_changed) {
    const storage::Label labels[] = {r.label};
    const std::string texts[] = {req.content};
    vectors->EmbedAndStore(labels, texts);
  }
  if (req.embedding) MNEMO_RETURN_IF_ERROR(vectors->StoreExternal(r.label, *req.embedding));
  return StoreResult{r.entry.key, r.entry.ns, r.entry.category, r.entry.id, r.created};
}

Result<std::optional<Entry>> Engine::Impl::ResolveForRead(const Principal& who,
                                                          const GetRequest& req) {
  MNEMO_RETURN_IF_ERROR(ValidateAddress(req.key, req.ns));
  if (req.owner) {
    // Only an admin may address another principal's entry; for anyone else
    // that is indistinguishable from a missing entry.
    if (!IsAdmin(who) && *req.owner != who.name) return std::optional<Entry>();
    return stores.entries->FindExact(*req.owner, req.ns, req.key);
  }
  return stores.entries->Resolve(req.ns, req.key, ScopeFor(who));
}

Result<Entry> Engine::Impl::Get(const Principal& who, const GetRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> found, ResolveForRead(who, req));
  if (!found) return NotFoundFor(req.key);
  Result<std::optional<Entry>> counted = stores.entries->AddCounters(found->id, 1, 0);
  if (!counted.ok()) {
    NoteAccessCountFailure(counted.status());
    return *found;
  }
  if (!*counted) return NotFoundFor(req.key);  // forgotten in between
  return **counted;
}

void Engine::Impl::NoteAccessCountFailure(const Status& s) {
  const int64_t failures = access_count_failures.fetch_add(1) + 1;
  const TimeMs now = clock->NowMs();
  TimeMs last = access_warning_at.load();
  if (now - last < kAccessWarningIntervalMs && last != 0) return;
  if (!access_warning_at.compare_exchange_strong(last, now)) return;  // another thread prints
  logger->Log(LogLevel::kWarn, "an access count could not be written (" + std::to_string(failures) +
                                   " so far; the reads were answered): " + s.message());
}

Result<Entry> Engine::Impl::MarkUseful(const Principal& who, const GetRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> found, ResolveForRead(who, req));
  if (!found) return NotFoundFor(req.key);
  MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> marked, stores.entries->AddCounters(found->id, 0, 1));
  if (!marked) return NotFoundFor(req.key);
  return *marked;
}

Result<bool> Engine::Impl::Forget(const Principal& who, const ForgetRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateAddress(req.key, req.ns));
  std::optional<Entry> target;
  if (req.owner && IsAdmin(who)) {
    MNEMO_ASSIGN_OR_RETURN(target, stores.entries->FindExact(*req.owner, req.ns, req.key));
  } else if (IsAdmin(who)) {
    // Own entry first, then (admin or ACL off) the most recent one.
    MNEMO_ASSIGN_OR_RETURN(target, stores.entries->Resolve(req.ns, req.key, ScopeFor(who)));
  } else {
    // Under ACL a user forgets only their own entries.
    MNEMO_ASSIGN_OR_RETURN(target, stores.entries->FindExact(who.name, req.ns, req.key));
  }
  if (!target) return false;
  return stores.entries->Delete(target->id);
}

Result<ListPage> Engine::Impl::List(const Principal& who, const ListRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (req.limit < 1 || req.limit > 1000) {
    return InvalidArgument("limit must be between 1 and 1000", "limit");
  }
  if (req.offset < 0) return InvalidArgument("offset must be >= 0", "offset");
  if (req.category) MNEMO_RETURN_IF_ERROR(ValidateCategory(*req.category, "category"));
  if (req.ns) MNEMO_RETURN_IF_ERROR(ValidateNamespace(*req.ns, "namespace"));
  storage::EntryFilter f;
  f.category = req.category;
  f.ns = req.ns;
  f.include_archived = req.include_archived;
  f.scope = ScopeFor(who);
  MNEMO_ASSIGN_OR_RETURN(std::vector<Entry> items,
                         stores.entries->List(f, req.limit + 1, req.offset));
  ListPage page;
  if (static_cast<int>(items.size()) > req.limit) {
    items.resize(static_cast<size_t>(req.limit));
    page.next_offset = req.offset + req.limit;
  }
  page.items = std::move(items);
  return page;
}

Result<Stats> Engine::Impl::GetStats(const Principal& who) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_ASSIGN_OR_RETURN(Stats s, stores.entries->GetStats(ScopeFor(who)));
  s.backend = std::string(stores.name);
  s.schema_version = stores.schema_version;
  return s;
}

}  // namespace mnemo
