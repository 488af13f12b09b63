#include "storage/rules/graph_rules.h"

#include <algorithm>
#include <tuple>

#include "base/uuid.h"
#include "storage/rules/supersession.h"
#include "text/strip.h"

namespace mnemo::storage::internal {
namespace {

bool IsAsciiSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string AsciiLowerString(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), AsciiLower);
  return text;
}

}  // namespace

std::string CollapseSpaces(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool pending_space = false;
  for (char c : text) {
    if (IsAsciiSpace(c)) {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out += ' ';
    pending_space = false;
    out += c;
  }
  return out;
}

std::string NormalizePredicate(std::string_view predicate) {
  std::string out = AsciiLowerString(CollapseSpaces(predicate));
  std::replace(out.begin(), out.end(), ' ', '_');
  return out;
}

std::string TripleTermKey(std::string_view term) { return AsciiLowerString(CollapseSpaces(term)); }

Result<TripleRow> NewTripleRow(const TripleRow& row) {
  if (text::IsBlank(row.owner)) return InvalidArgument("owner must not be blank", "owner");
  if (text::IsBlank(row.subject)) return InvalidArgument("subject must not be blank", "subject");
  if (text::IsBlank(row.predicate))
    return InvalidArgument("predicate must not be blank", "predicate");
  if (text::IsBlank(row.object)) return InvalidArgument("object must not be blank", "object");
  // Written so that NaN fails too.
  if (!(row.confidence >= 0.0 && row.confidence <= 1.0)) {
    return InvalidArgument("confidence must be between 0 and 1", "confidence");
  }
  if (row.valid_to != 0) {
    return InvalidArgument("a new triple is current: valid_to must be 0", "valid_to");
  }
  TripleRow out = row;
  if (out.id.empty()) out.id = mnemo::internal::NewUuidV4();
  out.subject = CollapseSpaces(row.subject);
  out.predicate = NormalizePredicate(row.predicate);
  out.object = CollapseSpaces(row.object);
  return out;
}

TimeMs SupersededAt(const TripleRow& current, const TripleRow& incoming) {
  return std::max(current.valid_from, incoming.valid_from);
}

TimeMs ClosedAt(const TripleRow& current, TimeMs at) {
  return std::max<TimeMs>({at, current.valid_from, 1});
}

TripleUpsertPlan PlanTripleUpsert(const std::vector<TripleRow>& existing, const TripleRow& incoming,
                                  bool single_valued) {
  TripleUpsertPlan plan;
  const std::string object_key = TripleTermKey(incoming.object);
  std::vector<bool> other(existing.size());
  TimeMs late_end = 0;  // earliest start of another object after incoming's
  for (size_t i = 0; i < existing.size(); ++i) {
    const TripleRow& t = existing[i];
    other[i] = TripleTermKey(t.object) != object_key;
    if (!other[i] && t.valid_to == 0 && !plan.refresh) plan.refresh = i;
    if (other[i] && t.valid_from > incoming.valid_from &&
        (late_end == 0 || t.valid_from < late_end)) {
      late_end = t.valid_from;
    }
  }
  if (!single_valued) return plan;
  if (late_end == 0 || plan.refresh) {
    // The shared rule of supersession.h: a hedged statement does not end a
    // surer current one; it is kept as history that was never current.
    if (!plan.refresh) {
      for (const TripleRow& t : existing) {
        if (t.valid_to == 0 && TripleTermKey(t.object) != object_key &&
            !Supersedes({.confidence = t.confidence, .at = t.valid_from, .sentence = t.sentence},
                        {.confidence = incoming.confidence,
                         .at = incoming.valid_from,
                         .sentence = incoming.sentence})) {
          plan.insert_valid_to = std::max<TimeMs>(incoming.valid_from, 1);
          return plan;
        }
      }
    }
    for (size_t i = 0; i < existing.size(); ++i) {
      if (other[i] && existing[i].valid_to == 0) plan.supersede.push_back(i);
    }
    return plan;
  }
  plan.insert_valid_to = late_end;
  for (size_t i = 0; i < existing.size(); ++i) {
    const TripleRow& t = existing[i];
    if (other[i] && t.valid_to != 0 && t.valid_from < incoming.valid_from &&
        t.valid_to > incoming.valid_from) {
      plan.trim.push_back(i);
    }
  }
  return plan;
}

bool TripleOrder(const TripleRow& a, const TripleRow& b) {
  const std::string as = TripleTermKey(a.subject);
  const std::string bs = TripleTermKey(b.subject);
  if (as != bs) return as < bs;
  if (a.predicate != b.predicate) return a.predicate < b.predicate;
  const bool a_history = a.valid_to != 0;
  const bool b_history = b.valid_to != 0;
  if (a_history != b_history) return !a_history;
  if (a.valid_from != b.valid_from) return a.valid_from > b.valid_from;
  const std::string ao = TripleTermKey(a.object);
  const std::string bo = TripleTermKey(b.object);
  if (ao != bo) return ao < bo;
  return a.id < b.id;
}

TripleQuery NormalizedQuery(const TripleQuery& query) {
  TripleQuery out = query;
  if (out.subject) out.subject = TripleTermKey(*out.subject);
  if (out.predicate) out.predicate = NormalizePredicate(*out.predicate);
  if (out.object) out.object = TripleTermKey(*out.object);
  return out;
}

}  // namespace mnemo::storage::internal
