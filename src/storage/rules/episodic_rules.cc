#include "storage/rules/episodic_rules.h"

#include <algorithm>
#include <charconv>
#include <iomanip>
#include <locale>
#include <sstream>
#include <string>
#include <utility>

#include "storage/rules/graph_rules.h"
#include "storage/rules/supersession.h"
#include "storage/sqlite/rows/tags_json.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo::storage::internal {
namespace {

bool IsConfidence(double c) { return c >= 0 && c <= 1; }  // false for NaN

std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

constexpr size_t kHistoryFields = 5;
constexpr size_t kStatementFields = 8;
// After the statements' fields when some statement joins: "joins:" and one
// '0' or '1' per statement.
constexpr std::string_view kJoinsTag = "joins:";

std::string DecimalConfidence(double c) {
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << std::setprecision(17) << c;
  return out.str();
}

std::optional<double> ParseConfidence(const std::string& text) {
  std::istringstream in(text);
  in.imbue(std::locale::classic());
  double c = 0;
  if (!(in >> c)) return std::nullopt;
  return c;
}

bool ParseInt(const std::string& text, int64_t& out) {
  return std::from_chars(text.data(), text.data() + text.size(), out).ec == std::errc();
}

// The statement `observation` makes.
FacetStatement StatementOf(const FacetRow& observation, TimeMs at) {
  return {.session_id = observation.session_id,
          .segment_id =
              observation.segment_ids.empty() ? std::string() : observation.segment_ids.front(),
          .seq = observation.seq,
          .value = observation.value,
          .confidence = observation.confidence,
          .evidence = observation.evidence,
          .at = at,
          .updated_at = observation.updated_at,
          .joins = observation.joins};
}

// Whether `stored` already holds the value of `observation` from the same
// turn: a turn counts once per value, however often it says it.
bool SameTurnSaidIt(const FacetRow& stored, const FacetRow& observation) {
  if (!stored.statements || observation.session_id.empty()) return false;
  const std::string value = TripleTermKey(observation.value);
  return std::any_of(stored.statements->begin(), stored.statements->end(),
                     [&](const FacetStatement& s) {
                       return s.session_id == observation.session_id && s.seq == observation.seq &&
                              TripleTermKey(s.value) == value;
                     });
}

}  // namespace

Status ValidateTurnWrites(std::span<const TurnWrite> rows) {
  for (const TurnWrite& w : rows) {
    const TurnRow& r = w.row;
    if (r.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
    if (r.session_id.empty()) return InvalidArgument("session_id must not be empty", "session_id");
    if (r.owner != rows[0].row.owner || r.session_id != rows[0].row.session_id) {
      return InvalidArgument("one append holds the rows of one owner and session", "session_id");
    }
    if (r.role != "user" && r.role != "assistant") {
      return InvalidArgument("role must be user or assistant", "role");
    }
  }
  return Status::Ok();
}

Status ValidateTurnKey(const TurnKey& key) {
  // The session and the turn id are checked by their types (storage/values.h).
  if (key.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  return Status::Ok();
}

Status ValidateTurnClaim(const TurnClaim& claim, std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnKey(claim.key));
  MNEMO_RETURN_IF_ERROR(ValidateTurnWrites(rows));
  if (!rows.empty() && (rows[0].row.owner != claim.key.owner ||
                        rows[0].row.session_id != claim.key.session_id.view())) {
    return InvalidArgument("a claimed turn's rows belong to the claim's owner and session",
                           "session_id");
  }
  return Status::Ok();
}

Status ValidateRecordedTurn(const std::optional<TurnClaim>& claim,
                            std::span<const TurnWrite> rows) {
  if (rows.empty()) return InvalidArgument("a recorded turn needs at least one row", "rows");
  if (claim) return ValidateTurnClaim(*claim, rows);
  return ValidateTurnWrites(rows);
}

std::optional<std::string_view> StoredSearchText(const TurnRow& row, std::string_view search_text) {
  if (search_text == row.content) return std::nullopt;
  return search_text;
}

Status ValidateSegment(const SegmentRow& s) {
  if (s.id.empty()) return InvalidArgument("segment id must not be empty", "id");
  if (s.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  if (s.session_id.empty()) return InvalidArgument("session_id must not be empty", "session_id");
  if (s.status != "open" && s.status != "closed") {
    return InvalidArgument("segment status \"" + s.status + "\" is invalid: use open or closed",
                           "status");
  }
  if (!s.recap_source.empty() && s.recap_source != "llm" && s.recap_source != "extractive") {
    return InvalidArgument(
        "recap_source \"" + s.recap_source + "\" is invalid: use llm, extractive or nothing",
        "recap_source");
  }
  return Status::Ok();
}

Status CheckSegmentPut(const SegmentRow& s, std::optional<std::string_view> stored_status,
                       std::optional<std::string_view> open_id) {
  if (s.status != "open") return Status::Ok();
  if (stored_status == "closed") {
    return Conflict("segment " + s.id + " is closed: a segment goes from open to closed once");
  }
  if (open_id && *open_id != s.id) {
    return Conflict("session " + s.session_id + " already has an open segment (" +
                    std::string(*open_id) + "): close it first");
  }
  return Status::Ok();
}

Status ValidateEvents(std::span<const EventRow> rows) {
  for (const EventRow& e : rows) {
    if (e.id.empty()) return InvalidArgument("event id must not be empty", "id");
    if (e.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
    if (e.text.empty()) return InvalidArgument("event text must not be empty", "text");
    if (e.type != "decision" && e.type != "commitment" && e.type != "reminder" &&
        e.type != "preference" && e.type != "fact") {
      return InvalidArgument("event type \"" + e.type +
                                 "\" is invalid: use decision, commitment, reminder, preference "
                                 "or fact",
                             "type");
    }
    if (e.closed_at < 0) {
      return InvalidArgument("event closed_at must not be negative (0: open)", "closed_at");
    }
    if (!IsConfidence(e.confidence)) {
      return InvalidArgument("event confidence must be in [0, 1]", "confidence");
    }
  }
  return Status::Ok();
}

Status ValidateRuleCapture(const RuleCaptureWrite& capture) {
  for (const auto& [value, field] :
       {std::pair{&capture.owner, "owner"}, std::pair{&capture.tool_name, "tool_name"},
        std::pair{&capture.rule_id, "rule_id"}}) {
    if (text::IsBlank(*value)) {
      return InvalidArgument(std::string("a rule capture needs a non-blank ") + field, field);
    }
  }
  return Status::Ok();
}

Status ValidateFacet(const FacetRow& observation) {
  if (observation.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  if (observation.facet_type.empty()) {
    return InvalidArgument("facet_type must not be empty", "facet_type");
  }
  if (observation.key.empty()) return InvalidArgument("facet key must not be empty", "key");
  if (!IsConfidence(observation.confidence)) {
    return InvalidArgument("facet confidence must be in [0, 1]", "confidence");
  }
  return Status::Ok();
}

std::string JoinFacetItem(std::string_view current, std::string_view item) {
  if (current.empty()) return std::string(item);
  const std::string_view thing = item.substr(0, item.find(" ("));
  if (AsciiLower(current).find(AsciiLower(thing)) != std::string::npos) {
    return std::string(current);
  }
  return std::string(current) + ", " + std::string(item);
}

FacetRow MergeFacetRow(const std::optional<FacetRow>& stored, const FacetRow& observation) {
  const TimeMs at = observation.valid_from != 0 ? observation.valid_from : observation.updated_at;
  if (stored && SameTurnSaidIt(*stored, observation)) return *stored;
  if (observation.joins && stored && !observation.value.empty()) {
    // The list after this item: folded like any value, while the statement
    // keeps the item alone.
    FacetRow joined = observation;
    joined.value = JoinFacetItem(stored->value, observation.value);
    joined.joins = false;
    FacetRow out = MergeFacetRow(stored, joined);
    if (out.statements && stored->statements &&
        out.statements->size() > stored->statements->size()) {
      out.statements->back() = StatementOf(observation, at);
    }
    return out;
  }
  FacetRow out = stored.value_or(observation);
  out.session_id.clear();
  out.seq = 0;
  if (!stored) {
    out.evidence_count = 1;
    out.segment_ids.clear();
    out.valid_from = at;
    out.history.clear();
    out.statements.emplace();
  } else if (TripleTermKey(stored->value) == TripleTermKey(observation.value)) {
    out.evidence_count += 1;
    if (observation.confidence >= stored->confidence) {
      out.value = observation.value;
      out.confidence = observation.confidence;
      if (!observation.evidence.empty()) out.evidence = observation.evidence;
    }
  } else if (Supersedes({.confidence = stored->confidence,
                         .at = stored->valid_from,
                         .sentence = stored->evidence},
                        {.confidence = observation.confidence,
                         .at = at,
                         .sentence = observation.evidence})) {
    out.history.push_back({.value = stored->value,
                           .confidence = stored->confidence,
                           .evidence = stored->evidence,
                           .valid_from = stored->valid_from,
                           .valid_to = std::max(stored->valid_from, at)});
    out.value = observation.value;
    out.confidence = observation.confidence;
    out.evidence = observation.evidence;
    out.valid_from = at;
    out.evidence_count = 1;
  } else {
    out.history.push_back({.value = observation.value,
                           .confidence = observation.confidence,
                           .evidence = observation.evidence,
                           .valid_from = at,
                           .valid_to = at < stored->valid_from ? stored->valid_from : at});
  }
  std::stable_sort(
      out.history.begin(), out.history.end(),
      [](const FacetValue& a, const FacetValue& b) { return a.valid_from < b.valid_from; });
  for (const std::string& id : observation.segment_ids) {
    if (std::find(out.segment_ids.begin(), out.segment_ids.end(), id) == out.segment_ids.end()) {
      out.segment_ids.push_back(id);
    }
  }
  // A facet stored before statements were recorded stays without them:
  // its earlier evidence is not known by turn.
  if (out.statements) out.statements->push_back(StatementOf(observation, at));
  out.updated_at = observation.updated_at;
  return out;
}

std::optional<FacetRow> RefoldFacet(const FacetRow& facet,
                                    const std::vector<FacetStatement>& statements) {
  std::optional<FacetRow> out;
  for (const FacetStatement& s : statements) {
    FacetRow observation{.owner = facet.owner,
                         .facet_type = facet.facet_type,
                         .key = facet.key,
                         .value = s.value,
                         .confidence = s.confidence,
                         .updated_at = s.updated_at,
                         .valid_from = s.at,
                         .evidence = s.evidence,
                         .session_id = s.session_id,
                         .seq = s.seq,
                         .joins = s.joins};
    if (!s.segment_id.empty()) observation.segment_ids.push_back(s.segment_id);
    out = MergeFacetRow(out, observation);
  }
  return out;
}

std::string EncodeFacetStatements(const std::vector<FacetStatement>& statements) {
  std::vector<std::string> flat;
  flat.reserve(statements.size() * kStatementFields);
  for (const FacetStatement& s : statements) {
    flat.push_back(s.session_id);
    flat.push_back(s.segment_id);
    flat.push_back(std::to_string(s.seq));
    flat.push_back(s.value);
    flat.push_back(DecimalConfidence(s.confidence));
    flat.push_back(s.evidence);
    flat.push_back(std::to_string(s.at));
    flat.push_back(std::to_string(s.updated_at));
  }
  std::string joins;
  for (const FacetStatement& s : statements) joins += s.joins ? '1' : '0';
  if (joins.find('1') != std::string::npos) flat.push_back(std::string(kJoinsTag) + joins);
  return EncodeTags(flat);
}

std::optional<std::vector<FacetStatement>> DecodeFacetStatements(std::string_view text) {
  std::optional<std::vector<std::string>> flat = DecodeTags(text);
  if (!flat) return std::nullopt;
  std::string joins;
  if (flat->size() % kStatementFields == 1) {
    if (!flat->back().starts_with(kJoinsTag)) return std::nullopt;
    joins = flat->back().substr(kJoinsTag.size());
    flat->pop_back();
    if (joins.size() != flat->size() / kStatementFields ||
        joins.find_first_not_of("01") != std::string::npos) {
      return std::nullopt;
    }
  }
  if (flat->size() % kStatementFields != 0) return std::nullopt;
  std::vector<FacetStatement> out;
  out.reserve(flat->size() / kStatementFields);
  for (size_t i = 0; i < flat->size(); i += kStatementFields) {
    FacetStatement s{.session_id = (*flat)[i],
                     .segment_id = (*flat)[i + 1],
                     .value = (*flat)[i + 3],
                     .evidence = (*flat)[i + 5]};
    std::optional<double> confidence = ParseConfidence((*flat)[i + 4]);
    if (!confidence || !ParseInt((*flat)[i + 2], s.seq) || !ParseInt((*flat)[i + 6], s.at) ||
        !ParseInt((*flat)[i + 7], s.updated_at)) {
      return std::nullopt;
    }
    s.confidence = *confidence;
    s.joins = !joins.empty() && joins[i / kStatementFields] == '1';
    out.push_back(std::move(s));
  }
  return out;
}

std::string EncodeFacetHistory(const std::vector<FacetValue>& history) {
  std::vector<std::string> flat;
  flat.reserve(history.size() * kHistoryFields);
  for (const FacetValue& v : history) {
    flat.push_back(v.value);
    flat.push_back(DecimalConfidence(v.confidence));
    flat.push_back(v.evidence);
    flat.push_back(std::to_string(v.valid_from));
    flat.push_back(std::to_string(v.valid_to));
  }
  return EncodeTags(flat);
}

std::optional<std::vector<FacetValue>> DecodeFacetHistory(std::string_view text) {
  if (text.empty()) return std::vector<FacetValue>{};
  std::optional<std::vector<std::string>> flat = DecodeTags(text);
  if (!flat || flat->size() % kHistoryFields != 0) return std::nullopt;
  std::vector<FacetValue> out;
  for (size_t i = 0; i < flat->size(); i += kHistoryFields) {
    FacetValue v{.value = (*flat)[i], .evidence = (*flat)[i + 2]};
    const std::string& c = (*flat)[i + 1];
    const std::string& from = (*flat)[i + 3];
    const std::string& to = (*flat)[i + 4];
    std::optional<double> confidence = ParseConfidence(c);
    if (!ParseInt(from, v.valid_from) || !ParseInt(to, v.valid_to) || !confidence) {
      return std::nullopt;
    }
    v.confidence = *confidence;
    out.push_back(std::move(v));
  }
  return out;
}

bool TurnInWindow(const TurnQuery& query, const TurnRow& row) {
  return (!query.since || row.timestamp_ms >= *query.since) &&
         (!query.until || row.timestamp_ms < *query.until) &&
         (!query.agent_id || row.agent_id == *query.agent_id);
}

}  // namespace mnemo::storage::internal
