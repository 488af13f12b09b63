// mnemo::Memory (mnemo/memory.h): the entry tools of spec 10 (store, get,
// forget, mark_useful, list, stats); search and recall are handed to the
// search and recall services (core/search). Hygiene: admin/memory_hygiene.cc.
#include "mnemo/memory.h"

#include "core/audit_record.h"
#include "core/search/recall_service.h"
#include "core/search/search_service.h"
#include "core/services/memory_options.h"

#include <optional>

#include "base/request_trace.h"
#include "core/access.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "storage/values.h"
#include "text/secrets.h"

namespace mnemo {
namespace {

constexpr TimeMs kAccessWarningIntervalMs = 60'000;

Status NotFoundFor(std::string_view key) {
  return NotFound("No memory entry found for key: " + std::string(key));
}

// An entry's address: its key and namespace, parsed once; the stores'
// lookups take them.
struct Address {
  Key key;
  Namespace ns;
};
Result<Address> ParseAddress(std::string_view key, std::string_view ns) {
  MNEMO_ASSIGN_OR_RETURN(Key parsed_key, Key::Parse(std::string(key)));
  MNEMO_ASSIGN_OR_RETURN(Namespace parsed_ns, Namespace::Parse(std::string(ns)));
  return Address{.key = std::move(parsed_key), .ns = std::move(parsed_ns)};
}

}  // namespace

MemoryOptions MemoryOptionsOf(const Config& config, const storage::Stores& stores) {
  return {.acl_enabled = config.memory.acl_enabled,
          .secrets = config.security.secrets,
          .memory = config.memory,
          .backend = stores.name,
          .embedding_provider = config.embedding.provider,
          .schema_version = stores.schema_version};
}

Memory::Memory(storage::EntryStore& entries, VectorsService& vectors, SearchService& search,
               RecallService& recall, internal::AuditLog* audit, std::shared_ptr<Clock> clock,
               std::shared_ptr<Logger> logger, MemoryOptions options)
    : entries_(entries),
      vectors_(vectors),
      search_(search),
      recall_(recall),
      audit_(audit),
      clock_(std::move(clock)),
      logger_(std::move(logger)),
      options_(std::make_unique<const MemoryOptions>(std::move(options))) {}

Memory::~Memory() = default;

Result<SearchResponse> Memory::Search(const Principal& who, const SearchRequest& req) {
  internal::AuditRecord audit(
      audit_, who, "memory.search",
      {.ns = internal::AuditText(req.ns), .category = internal::AuditText(req.category)});
  return audit.End([&]() -> Result<SearchResponse> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory.enabled));
    MNEMO_ASSIGN_OR_RETURN(const Query query, Query::Parse(req.query));
    MNEMO_ASSIGN_OR_RETURN(const SearchQuery parsed,
                           SearchQuery::Parse(query, req, search_.default_min_score()));
    return search_.Search(who, parsed);
  }());
}

Result<RecallResponse> Memory::Recall(const Principal& who, const RecallRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.recall", {.ns = internal::AuditText(req.ns)});
  return audit.End([&]() -> Result<RecallResponse> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory.enabled));
    MNEMO_ASSIGN_OR_RETURN(const Query query, Query::Parse(req.query));
    return recall_.Recall(who, query, req);
  }());
}

Result<StoreResult> Memory::Store(const Principal& who, const StoreRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.store",
                              {.ns = req.ns, .key = req.key, .category = req.category});
  return audit.End([&]() -> Result<StoreResult> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory.enabled));
    MNEMO_RETURN_IF_ERROR(ParseAddress(req.key, req.ns).status());
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
    MNEMO_RETURN_IF_ERROR(Category::Parse(req.category).status());
    if (req.tags) MNEMO_RETURN_IF_ERROR(ValidateTags(*req.tags, "tags"));
    MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, req.content, "value"));
    if (req.embedding) MNEMO_RETURN_IF_ERROR(ValidateEmbedding(*req.embedding));
    storage::EntryWrite w;
    w.owner = who.name;
    w.ns = req.ns;
    w.key = req.key;
    w.content = req.content;
    w.category = req.category;
    w.tags = req.tags;
    w.visibility = req.visibility;
    w.now = clock_->NowMs();
    // The vectors are computed first and committed with the entry, in one
    // transaction: a store never leaves its entry without the vector it
    // could compute. An embedder that fails leaves none (the entry's vector
    // stays pending, as the embedder's failure never refuses a store).
    std::optional<internal::ScopedStage> stage(std::in_place, "embed");
    w.vectors = vectors_.VectorsOf(req.content);
    if (req.embedding) {
      MNEMO_ASSIGN_OR_RETURN(storage::SignedVector external,
                             vectors_.ExternalVector(*req.embedding));
      w.vectors.push_back(std::move(external));
    }
    stage.emplace("store");
    MNEMO_ASSIGN_OR_RETURN(storage::UpsertResult r, entries_.Upsert(w));
    stage.emplace("index");
    if (r.text_changed) {
      vectors_.SyncWritten(w.vectors);
    } else if (req.embedding) {
      // An unchanged text keeps its stored vectors (EntryWrite::vectors);
      // a bring-your-own vector replaces the one it had, as before.
      MNEMO_RETURN_IF_ERROR(vectors_.StoreExternal(r.label, *req.embedding));
    }
    return StoreResult{r.entry.key, r.entry.ns, r.entry.category, r.entry.id, r.created};
  }());
}

Result<std::optional<Entry>> Memory::ResolveForRead(const Principal& who, const GetRequest& req) {
  MNEMO_ASSIGN_OR_RETURN(const Address at, ParseAddress(req.key, req.ns));
  if (req.owner) {
    MNEMO_ASSIGN_OR_RETURN(const PrincipalId owner, PrincipalId::Parse(*req.owner, "owner"));
    // Only an admin may address another principal's entry; for anyone else
    // that is indistinguishable from a missing entry.
    if (!IsAdmin(who, options_->acl_enabled) && owner.view() != who.name)
      return std::optional<Entry>();
    return entries_.FindExact(owner.str(), at.ns, at.key);
  }
  return entries_.Resolve(at.ns, at.key, ReadScopeFor(who, options_->acl_enabled));
}

Result<Entry> Memory::Get(const Principal& who, const GetRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.get", {.ns = req.ns, .key = req.key});
  return audit.End([&]() -> Result<Entry> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory.enabled));
    MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> found, ResolveForRead(who, req));
    if (!found) return NotFoundFor(req.key);
    Result<std::optional<Entry>> counted = entries_.AddCounters(found->id, 1, 0);
    if (!counted.ok()) {
      NoteAccessCountFailure(counted.status());
      return *found;
    }
    if (!*counted) return NotFoundFor(req.key);  // forgotten in between
    return **counted;
  }());
}

void Memory::NoteAccessCountFailure(const Status& s) {
  const int64_t failures = access_count_failures_.fetch_add(1) + 1;
  const TimeMs now = clock_->NowMs();
  TimeMs last = access_warning_at_.load();
  if (now - last < kAccessWarningIntervalMs && last != 0) return;
  if (!access_warning_at_.compare_exchange_strong(last, now)) return;  // another thread prints
  logger_->Log(LogLevel::kWarn, "an access count could not be written (" +
                                    std::to_string(failures) +
                                    " so far; the reads were answered): " + s.message());
}

Result<Entry> Memory::MarkUseful(const Principal& who, const GetRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.mark_useful", {.ns = req.ns, .key = req.key});
  return audit.End([&]() -> Result<Entry> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory.enabled));
    MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> found, ResolveForRead(who, req));
    if (!found) return NotFoundFor(req.key);
    MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> marked, entries_.AddCounters(found->id, 0, 1));
    if (!marked) return NotFoundFor(req.key);
    return *marked;
  }());
}

Result<bool> Memory::Forget(const Principal& who, const ForgetRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.forget", {.ns = req.ns, .key = req.key});
  Result<bool> audited = [&]() -> Result<bool> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory.enabled));
    MNEMO_ASSIGN_OR_RETURN(const Address at, ParseAddress(req.key, req.ns));
    std::optional<PrincipalId> owner;
    if (req.owner) {
      MNEMO_ASSIGN_OR_RETURN(owner, PrincipalId::Parse(*req.owner, "owner"));
    }
    std::optional<Entry> target;
    if (owner && IsAdmin(who, options_->acl_enabled)) {
      MNEMO_ASSIGN_OR_RETURN(target, entries_.FindExact(owner->str(), at.ns, at.key));
    } else if (IsAdmin(who, options_->acl_enabled)) {
      // Own entry first, then (admin or ACL off) the most recent one.
      MNEMO_ASSIGN_OR_RETURN(
          target, entries_.Resolve(at.ns, at.key, ReadScopeFor(who, options_->acl_enabled)));
    } else {
      // Under ACL a user forgets only their own entries.
      MNEMO_ASSIGN_OR_RETURN(target, entries_.FindExact(who.name, at.ns, at.key));
    }
    if (!target) return false;
    return entries_.Delete(target->id);
  }();
  if (audited.ok() && !*audited) audit.Missed();  // nothing to forget
  return audit.End(std::move(audited));
}

Result<ListPage> Memory::List(const Principal& who, const ListRequest& req) {
  internal::AuditRecord audit(
      audit_, who, "memory.list",
      {.ns = internal::AuditText(req.ns), .category = internal::AuditText(req.category)});
  return audit.End([&]() -> Result<ListPage> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory.enabled));
    if (req.limit < 1 || req.limit > 1000) {
      return InvalidArgument("limit must be between 1 and 1000", "limit");
    }
    if (req.offset < 0) return InvalidArgument("offset must be >= 0", "offset");
    if (req.category) MNEMO_RETURN_IF_ERROR(Category::Parse(*req.category).status());
    MNEMO_RETURN_IF_ERROR(ValidateNamespaceFilter(req.ns, req.ns_prefix));
    storage::EntryFilter f;
    f.category = req.category;
    f.ns = req.ns;
    f.ns_prefix = req.ns_prefix;
    f.include_archived = req.include_archived;
    f.scope = ReadScopeFor(who, options_->acl_enabled);
    MNEMO_ASSIGN_OR_RETURN(std::vector<Entry> items, entries_.List(f, req.limit + 1, req.offset));
    ListPage page;
    if (static_cast<int>(items.size()) > req.limit) {
      items.resize(static_cast<size_t>(req.limit));
      page.next_offset = req.offset + req.limit;
    }
    page.items = std::move(items);
    return page;
  }());
}

Result<Stats> Memory::GetStats(const Principal& who) {
  internal::AuditRecord audit(audit_, who, "memory.stats");
  return audit.End([&]() -> Result<Stats> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->memory.enabled));
    MNEMO_ASSIGN_OR_RETURN(Stats s, entries_.GetStats(ReadScopeFor(who, options_->acl_enabled)));
    s.backend = options_->backend;
    s.schema_version = options_->schema_version;
    s.embedding_provider = vectors_.ActiveProvider(options_->embedding_provider);
    if (const embed::Embedder* embedder = vectors_.embedder(); embedder != nullptr) {
      s.embedder_signature = embedder->signature();
    }
    s.word_vectors = vectors_.word_vectors_description();
    return s;
  }());
}

}  // namespace mnemo
