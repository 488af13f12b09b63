#include "storage/rules/entry_rules.h"

#include <algorithm>
#include <unordered_set>

#include "base/uuid.h"

namespace mnemo::storage::internal {

Status ValidateWrite(const EntryWrite& write) {
  if (write.key.empty()) return InvalidArgument("key must not be empty", "key");
  if (write.ns.empty()) return InvalidArgument("namespace must not be empty", "namespace");
  if (write.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  if (write.id && write.id->empty()) return InvalidArgument("id must not be empty", "id");
  for (size_t i = 0; i < write.vectors.size(); ++i) {
    const SignedVector& v = write.vectors[i];
    if (v.signature.empty()) {
      return InvalidArgument("a vector written with an entry needs a signature", "vector");
    }
    if (v.vector.empty()) {
      return InvalidArgument(
          "the vector of signature " + v.signature + " written with an entry must not be empty",
          "vector");
    }
    for (size_t j = 0; j < i; ++j) {
      if (write.vectors[j].signature == v.signature) {
        return InvalidArgument(
            "an entry's write carries one vector per signature; " + v.signature + " came twice",
            "vector");
      }
    }
  }
  return Status::Ok();
}

Status ValidateGroupWrite(const EntryGroup& group, const EntryWrite& write) {
  if (write.owner != group.owner || write.ns != group.ns) {
    return InvalidArgument("a grouped write must stay in its group (owner " + group.owner +
                               ", namespace " + group.ns + ")",
                           "namespace");
  }
  return Status::Ok();
}

Entry MergeWrite(const EntryWrite& write, const std::optional<Entry>& existing) {
  Entry e;
  if (existing) {
    e = *existing;
  } else {
    e.id = mnemo::internal::NewUuidV4();
    e.owner = write.owner;
    e.ns = write.ns;
    e.key = write.key;
    e.created_at = write.now;
  }
  e.content = write.content;
  e.category = write.category;
  e.updated_at = write.now;
  if (write.tags) e.tags = *write.tags;
  if (write.visibility) e.visibility = *write.visibility;
  if (write.id) e.id = *write.id;
  if (write.created_at) e.created_at = *write.created_at;
  if (write.access_count) e.access_count = *write.access_count;
  if (write.useful_count) e.useful_count = *write.useful_count;
  // Hygiene archives what nobody touched: a new write makes it live again
  // (an import restores the flag as exported).
  e.archived = write.archived.value_or(false);
  return e;
}

bool VisibleIn(const ReadScope& scope, const Entry& entry) {
  return scope.all || entry.owner == scope.principal || entry.visibility == Visibility::kPublic;
}

bool MatchesFilter(const EntryFilter& filter, const Entry& entry) {
  if (!VisibleIn(filter.scope, entry)) return false;
  if (!filter.include_archived && entry.archived) return false;
  if (filter.category && entry.category != *filter.category) return false;
  if (filter.ns ? entry.ns != *filter.ns : IsSystemNamespace(entry.ns)) return false;
  if (filter.ns_prefix && !entry.ns.starts_with(*filter.ns_prefix)) return false;
  for (const std::string& tag : filter.tags) {
    if (std::find(entry.tags.begin(), entry.tags.end(), tag) == entry.tags.end()) return false;
  }
  if (filter.since && entry.updated_at < *filter.since) return false;
  if (filter.until && entry.updated_at >= *filter.until) return false;
  return true;
}

std::vector<std::string> DistinctTerms(const std::vector<std::string>& terms) {
  std::vector<std::string> out;
  std::unordered_set<std::string_view> seen;
  for (const std::string& t : terms) {
    if (!t.empty() && seen.insert(t).second) out.push_back(t);
  }
  return out;
}

int64_t IndexColumn(std::string_view text, const text::TokenSink& on_token) {
  int64_t length = 0;
  text::Tokenize(text, [&](const text::TokenView& t) {
    if (!t.colocated || length == 0) ++length;
    on_token(t);
  });
  return length;
}

}  // namespace mnemo::storage::internal
