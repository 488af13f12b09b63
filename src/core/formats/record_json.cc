#include "core/formats/record_json.h"

#include <cmath>
#include <set>

#include "core/public_id.h"
#include "storage/rules/episodic_rules.h"

namespace mnemo::internal {
namespace {

using nlohmann::json;

// Reads the members of one record: each Take* checks the member's JSON type
// (an absent member keeps the default) and records the first error; members
// nobody took are refused at the end, so a typo is not silently dropped.
class Reader {
 public:
  explicit Reader(const json& j) : j_(j) {
    if (!j.is_object()) error_ = InvalidArgument("a record must be a JSON object");
  }
  void Text(const char* name, std::string& out) {
    if (const json* v = Find(name)) {
      if (v->is_string()) {
        out = v->get<std::string>();
      } else {
        Fail(name, "text");
      }
    }
  }
  void Int(const char* name, int64_t& out) {
    if (const json* v = Find(name)) {
      if (v->is_number_integer()) {
        out = v->get<int64_t>();
      } else {
        Fail(name, "an integer");
      }
    }
  }
  void Number(const char* name, double& out) {
    if (const json* v = Find(name)) {
      if (v->is_number()) {
        out = v->get<double>();
      } else {
        Fail(name, "a number");
      }
    }
  }
  void Texts(const char* name, std::vector<std::string>& out) {
    if (const json* v = Find(name)) {
      bool ok = v->is_array();
      for (const json& x : ok ? *v : json::array()) ok = ok && x.is_string();
      if (ok) {
        out = v->get<std::vector<std::string>>();
      } else {
        Fail(name, "an array of strings");
      }
    }
  }
  void Floats(const char* name, std::vector<float>& out) {
    if (const json* v = Find(name)) {
      Result<std::vector<float>> f = FloatsFromJson(*v, name);
      if (f.ok()) {
        out = std::move(f).value();
      } else if (error_.ok()) {
        error_ = f.status();
      }
    }
  }
  template <typename T>
  Result<T> Done(T row) {
    if (error_.ok()) {
      for (const auto& [key, value] : j_.items()) {
        if (key != "type" && !taken_.contains(key)) {
          return InvalidArgument("unknown member \"" + key + "\"", key);
        }
      }
    }
    if (!error_.ok()) return error_;
    return row;
  }

 private:
  const json* Find(const char* name) {
    taken_.insert(name);
    if (!j_.is_object()) return nullptr;
    auto it = j_.find(name);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  void Fail(const char* name, const char* what) {
    if (error_.ok()) error_ = InvalidArgument(std::string(name) + " must be " + what, name);
  }

  const json& j_;
  std::set<std::string, std::less<>> taken_;
  Status error_ = Status::Ok();
};

json FloatArray(const std::vector<float>& v) {
  json out = json::array();
  for (const float x : v) out.push_back(x);
  return out;
}

}  // namespace

Result<std::vector<float>> FloatsFromJson(const json& j, std::string_view field) {
  std::vector<float> v;
  bool ok = j.is_array();
  for (const json& x : ok ? j : json::array()) {
    ok = ok && x.is_number() && std::isfinite(x.get<double>());
    if (ok) v.push_back(x.get<float>());
  }
  if (!ok) {
    return InvalidArgument(std::string(field) + " must be an array of finite numbers",
                           std::string(field));
  }
  return v;
}

json TurnToJson(const storage::TurnRow& r) {
  return {{"type", "turn"},
          {"id", PublicTurnId(r.owner, r.session_id, r.seq)},
          {"owner", r.owner},
          {"session_id", r.session_id},
          {"seq", r.seq},
          {"role", r.role},
          {"content", r.content},
          {"lesson", r.lesson},
          {"tool_calls", r.tool_calls_json},
          {"timestamp_ms", r.timestamp_ms},
          {"cost_microdollars", r.cost_microdollars},
          {"agent_id", r.agent_id}};
}

Result<storage::TurnRow> TurnFromJson(const json& j) {
  Reader in(j);
  storage::TurnRow r;
  // "id" is the published id (public_id.h), not a storage id: checked for
  // its type, then left for the store to assign.
  int64_t published_id = 0;
  in.Int("id", published_id);
  in.Text("owner", r.owner);
  in.Text("session_id", r.session_id);
  in.Int("seq", r.seq);
  in.Text("role", r.role);
  in.Text("content", r.content);
  in.Text("lesson", r.lesson);
  in.Text("tool_calls", r.tool_calls_json);
  in.Int("timestamp_ms", r.timestamp_ms);
  in.Int("cost_microdollars", r.cost_microdollars);
  in.Text("agent_id", r.agent_id);
  return in.Done(std::move(r));
}

json SegmentToJson(const storage::SegmentRow& r) {
  return {{"type", "segment"},
          {"id", r.id},
          {"owner", r.owner},
          {"session_id", r.session_id},
          {"status", r.status},
          {"first_seq", r.first_seq},
          {"last_seq", r.last_seq},
          {"turn_count", r.turn_count},
          {"started_at", r.started_at},
          {"last_turn_at", r.last_turn_at},
          {"closed_at", r.closed_at},
          {"centroid", FloatArray(r.centroid)},
          {"recap", r.recap},
          {"recap_source", r.recap_source},
          {"recap_attempts", r.recap_attempts}};
}

Result<storage::SegmentRow> SegmentFromJson(const json& j) {
  Reader in(j);
  storage::SegmentRow r;
  in.Text("id", r.id);
  in.Text("owner", r.owner);
  in.Text("session_id", r.session_id);
  in.Text("status", r.status);
  in.Int("first_seq", r.first_seq);
  in.Int("last_seq", r.last_seq);
  in.Int("turn_count", r.turn_count);
  in.Int("started_at", r.started_at);
  in.Int("last_turn_at", r.last_turn_at);
  in.Int("closed_at", r.closed_at);
  in.Floats("centroid", r.centroid);
  in.Text("recap", r.recap);
  in.Text("recap_source", r.recap_source);
  in.Int("recap_attempts", r.recap_attempts);
  return in.Done(std::move(r));
}

json EventToJson(const storage::EventRow& r) {
  json out = {{"type", "event"},
              {"id", r.id},
              {"owner", r.owner},
              {"session_id", r.session_id},
              {"segment_id", r.segment_id},
              {"event_type", r.type},
              {"text", r.text},
              {"confidence", r.confidence},
              {"created_at", r.created_at}};
  // Only a closed event carries it: an open one reads as before.
  if (r.closed_at != 0) out["closed_at"] = r.closed_at;
  return out;
}

Result<storage::EventRow> EventFromJson(const json& j) {
  Reader in(j);
  storage::EventRow r;
  in.Text("id", r.id);
  in.Text("owner", r.owner);
  in.Text("session_id", r.session_id);
  in.Text("segment_id", r.segment_id);
  in.Text("event_type", r.type);
  in.Text("text", r.text);
  in.Number("confidence", r.confidence);
  in.Int("created_at", r.created_at);
  in.Int("closed_at", r.closed_at);
  return in.Done(std::move(r));
}

json FacetToJson(const storage::FacetRow& r) {
  json out = {{"type", "facet"},
              {"owner", r.owner},
              {"facet_type", r.facet_type},
              {"key", r.key},
              {"value", r.value},
              {"confidence", r.confidence},
              {"evidence_count", r.evidence_count},
              {"segment_ids", r.segment_ids},
              {"updated_at", r.updated_at},
              {"valid_from", r.valid_from},
              {"evidence", r.evidence},
              {"history", storage::internal::EncodeFacetHistory(r.history)}};
  if (r.statements) out["statements"] = storage::internal::EncodeFacetStatements(*r.statements);
  return out;
}

Result<storage::FacetRow> FacetFromJson(const json& j) {
  Reader in(j);
  storage::FacetRow r;
  in.Text("owner", r.owner);
  in.Text("facet_type", r.facet_type);
  in.Text("key", r.key);
  in.Text("value", r.value);
  in.Number("confidence", r.confidence);
  in.Int("evidence_count", r.evidence_count);
  in.Texts("segment_ids", r.segment_ids);
  in.Int("updated_at", r.updated_at);
  // Absent in exports made before facets had a history (format unchanged).
  if (j.contains("valid_from")) in.Int("valid_from", r.valid_from);
  if (j.contains("evidence")) in.Text("evidence", r.evidence);
  if (j.contains("history")) {
    std::string history;
    in.Text("history", history);
    std::optional<std::vector<storage::FacetValue>> decoded =
        storage::internal::DecodeFacetHistory(history);
    if (!decoded) {
      return InvalidArgument(
          "facet \"history\" must be a JSON array of strings, five per earlier value", "history");
    }
    r.history = std::move(*decoded);
  }
  // Absent in exports made before facets recorded their statements.
  if (j.contains("statements")) {
    std::string statements;
    in.Text("statements", statements);
    r.statements = storage::internal::DecodeFacetStatements(statements);
    if (!r.statements) {
      return InvalidArgument(
          "facet \"statements\" must be a JSON array of strings, eight per statement",
          "statements");
    }
  }
  return in.Done(std::move(r));
}

json DocumentToJson(const storage::DocumentRow& r) {
  return {{"type", "document"},
          {"id", r.id},
          {"owner", r.owner},
          {"source", r.source},
          {"meta", r.meta},
          {"content", r.content},
          {"summary", r.summary},
          {"tags", r.tags},
          {"entities", r.entities},
          {"access_count", r.access_count},
          {"created_at", r.created_at},
          {"updated_at", r.updated_at}};
}

Result<storage::DocumentRow> DocumentFromJson(const json& j) {
  Reader in(j);
  storage::DocumentRow r;
  in.Text("id", r.id);
  in.Text("owner", r.owner);
  in.Text("source", r.source);
  in.Text("meta", r.meta);
  in.Text("content", r.content);
  in.Text("summary", r.summary);
  in.Texts("tags", r.tags);
  in.Texts("entities", r.entities);
  in.Int("access_count", r.access_count);
  in.Int("created_at", r.created_at);
  in.Int("updated_at", r.updated_at);
  return in.Done(std::move(r));
}

json ContextEventRowToJson(const storage::ContextEventRow& r) {
  return {{"type", "context_event"},
          {"id", PublicRowId("context_event", r.owner, r.session_id, r.seq)},
          {"owner", r.owner},
          {"session_id", r.session_id},
          {"seq", r.seq},
          {"event", r.event_json},
          {"timestamp_ms", r.timestamp_ms},
          {"created_at", r.created_at}};
}

Result<storage::ContextEventRow> ContextEventRowFromJson(const json& j) {
  Reader in(j);
  storage::ContextEventRow r;
  int64_t published_id = 0;  // as for turns: not a storage id
  in.Int("id", published_id);
  in.Text("owner", r.owner);
  in.Text("session_id", r.session_id);
  in.Int("seq", r.seq);
  in.Text("event", r.event_json);
  in.Int("timestamp_ms", r.timestamp_ms);
  in.Int("created_at", r.created_at);
  return in.Done(std::move(r));
}

json TripleToJson(const storage::TripleRow& r) {
  return {{"type", "triple"},           {"id", r.id},
          {"owner", r.owner},           {"subject", r.subject},
          {"predicate", r.predicate},   {"object", r.object},
          {"confidence", r.confidence}, {"source", r.source},
          {"sentence", r.sentence},     {"valid_from", r.valid_from},
          {"valid_to", r.valid_to},     {"created_at", r.created_at}};
}

Result<storage::TripleRow> TripleFromJson(const json& j) {
  Reader in(j);
  storage::TripleRow r;
  in.Text("id", r.id);
  in.Text("owner", r.owner);
  in.Text("subject", r.subject);
  in.Text("predicate", r.predicate);
  in.Text("object", r.object);
  in.Number("confidence", r.confidence);
  in.Text("source", r.source);
  in.Text("sentence", r.sentence);
  in.Int("valid_from", r.valid_from);
  in.Int("valid_to", r.valid_to);
  in.Int("created_at", r.created_at);
  return in.Done(std::move(r));
}

}  // namespace mnemo::internal
