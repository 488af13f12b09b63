#include "core/formats/entry_json.h"

#include "base/time.h"
#include "core/validation.h"
#include "storage/values.h"

namespace mnemo {

using internal::FormatRfc3339;
using internal::ParseRfc3339;
using nlohmann::json;

json EntryToJson(const Entry& e) {
  return json{{"id", e.id},
              {"key", e.key},
              {"namespace", e.ns},
              {"category", e.category},
              {"content", e.content},
              {"tags", e.tags},
              {"owner", e.owner},
              {"visibility", VisibilityName(e.visibility)},
              {"created_at", FormatRfc3339(e.created_at)},
              {"updated_at", FormatRfc3339(e.updated_at)},
              {"access_count", e.access_count},
              {"useful_count", e.useful_count},
              {"archived", e.archived}};
}

namespace {

Status WrongType(const char* field, const char* want) {
  return InvalidArgument(std::string("\"") + field + "\" must be " + want, field);
}

Status GetString(const json& j, const char* field, std::string* out) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_string()) return WrongType(field, "a string");
  *out = it->get<std::string>();
  return Status::Ok();
}

Status GetTime(const json& j, const char* field, TimeMs* out) {
  std::string s;
  MNEMO_RETURN_IF_ERROR(GetString(j, field, &s));
  if (s.empty()) return Status::Ok();
  auto t = ParseRfc3339(s);
  if (!t) return WrongType(field, "an RFC3339 time such as 2026-11-29T10:00:00Z");
  *out = *t;
  return Status::Ok();
}

Status GetCount(const json& j, const char* field, int64_t* out) {
  auto it = j.find(field);
  if (it == j.end() || it->is_null()) return Status::Ok();
  if (!it->is_number_integer() || it->get<int64_t>() < 0) {
    return WrongType(field, "a non-negative integer");
  }
  *out = it->get<int64_t>();
  return Status::Ok();
}

}  // namespace

Result<Entry> EntryFromImportJson(const json& j, const std::string& default_owner) {
  if (!j.is_object()) return InvalidArgument("each line must be a JSON object");
  Entry e;
  e.owner = default_owner;
  auto key = j.find("key");
  if (key == j.end() || !key->is_string()) return WrongType("key", "a string (required)");
  e.key = key->get<std::string>();
  auto content = j.find("content");
  if (content == j.end() || !content->is_string()) {
    return WrongType("content", "a string (required)");
  }
  e.content = content->get<std::string>();
  MNEMO_RETURN_IF_ERROR(GetString(j, "id", &e.id));
  MNEMO_RETURN_IF_ERROR(GetString(j, "category", &e.category));
  MNEMO_RETURN_IF_ERROR(GetString(j, "namespace", &e.ns));
  MNEMO_RETURN_IF_ERROR(GetString(j, "owner", &e.owner));
  if (e.category.empty()) e.category = "core";
  if (e.ns.empty()) e.ns = "global";
  if (e.owner.empty()) e.owner = default_owner;
  std::string vis;
  MNEMO_RETURN_IF_ERROR(GetString(j, "visibility", &vis));
  if (!vis.empty()) {
    MNEMO_ASSIGN_OR_RETURN(e.visibility, ParseVisibility(vis));
  }
  if (auto tags = j.find("tags"); tags != j.end() && !tags->is_null()) {
    if (!tags->is_array()) return WrongType("tags", "an array of strings");
    for (const json& t : *tags) {
      if (!t.is_string()) return WrongType("tags", "an array of strings");
      e.tags.push_back(t.get<std::string>());
    }
  }
  MNEMO_RETURN_IF_ERROR(GetTime(j, "created_at", &e.created_at));
  MNEMO_RETURN_IF_ERROR(GetTime(j, "updated_at", &e.updated_at));
  MNEMO_RETURN_IF_ERROR(GetCount(j, "access_count", &e.access_count));
  MNEMO_RETURN_IF_ERROR(GetCount(j, "useful_count", &e.useful_count));
  if (auto a = j.find("archived"); a != j.end() && !a->is_null()) {
    if (!a->is_boolean()) return WrongType("archived", "true or false");
    e.archived = a->get<bool>();
  }
  MNEMO_RETURN_IF_ERROR(ValidateKey(e.key, "key"));
  MNEMO_RETURN_IF_ERROR(ValidateContent(e.content, "content"));
  MNEMO_RETURN_IF_ERROR(ValidateCategory(e.category, "category"));
  MNEMO_RETURN_IF_ERROR(ValidateNamespace(e.ns, "namespace"));
  MNEMO_RETURN_IF_ERROR(ValidateTags(e.tags, "tags"));
  // Empty only when `default_owner` is: the foreign import gives the
  // importer's name later, and parses it there.
  if (!e.owner.empty()) {
    MNEMO_ASSIGN_OR_RETURN(PrincipalId owner, PrincipalId::Parse(std::move(e.owner), "owner"));
    e.owner = std::move(owner).take();
  }
  return e;
}

}  // namespace mnemo
