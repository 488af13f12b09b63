#include "archivist/profile/slot_graph.h"

#include <algorithm>
#include <vector>

#include "archivist/profile/profile.h"
#include "archivist/segments.h"
#include "context/graph.h"
#include "storage/rules/graph_rules.h"

namespace mnemo::archivist {
namespace {

// A slot's triples, current and history: one per value it ever held, far
// fewer than this.
constexpr int kSlotTriplesLimit = 10000;

Result<std::vector<storage::TripleRow>> SlotTriples(storage::GraphStore& graph,
                                                    std::string_view owner,
                                                    std::string_view predicate) {
  return graph.QueryTriples({.subject = std::string(context::kUserSubject),
                             .predicate = std::string(predicate),
                             .owner = std::string(owner),
                             .include_history = true,
                             .limit = kSlotTriplesLimit});
}

}  // namespace

std::string SlotStatementSource(std::string_view session_id, std::string_view segment_id) {
  return SessionDocumentSourcePrefix(session_id) + std::string(segment_id);
}

std::string_view PredicateOfSlot(std::string_view slot) {
  for (const SlotPredicate& p : kSlotPredicates) {
    if (p.slot == slot) return p.predicate;
  }
  return {};
}

std::string_view SlotOfPredicate(std::string_view predicate) {
  for (const SlotPredicate& p : kSlotPredicates) {
    if (p.predicate == predicate) return p.slot;
  }
  return {};
}

bool IsSlotPredicate(std::string_view predicate) { return !SlotOfPredicate(predicate).empty(); }

Status SyncSlotTriple(storage::GraphStore& graph, const storage::FacetRow& facet,
                      std::string_view source, TimeMs now) {
  if (facet.facet_type != kFacetContext) return Status::Ok();
  const std::string_view predicate = PredicateOfSlot(facet.key);
  if (predicate.empty()) return Status::Ok();
  const TimeMs stated = facet.valid_from != 0 ? facet.valid_from : now;
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TripleRow> rows,
                         SlotTriples(graph, facet.owner, predicate));
  const std::string object_key = storage::internal::TripleTermKey(facet.value);
  TimeMs from = stated;
  for (const storage::TripleRow& t : rows) {
    if (storage::internal::TripleTermKey(t.object) == object_key) {
      if (t.valid_to != 0 && t.valid_from == stated && !facet.value.empty()) {
        MNEMO_RETURN_IF_ERROR(graph.DeleteTriple(t.id).status());
      }
      continue;
    }
    // The profile's value is the current one: another object, however sure,
    // ends when it was stated, and one that began later (a triple stated
    // through memory.graph_upsert after the turn) ends as it begins.
    from = std::max(from, t.valid_from);
    if (t.valid_to == 0) MNEMO_RETURN_IF_ERROR(graph.CloseTriple(t.id, stated).status());
  }
  if (facet.value.empty()) return Status::Ok();
  storage::TripleRow row{.owner = facet.owner,
                         .subject = std::string(context::kUserSubject),
                         .predicate = std::string(predicate),
                         .object = facet.value,
                         .confidence = facet.confidence,
                         .source = std::string(source),
                         .sentence = facet.evidence,
                         .valid_from = from,
                         .created_at = now};
  return graph.UpsertTriple(row, /*single_valued=*/true).status();
}

Status FollowErasure(storage::GraphStore& graph, std::span<const storage::FacetRow> facets,
                     std::string_view owner, std::string_view source_prefix, TimeMs now) {
  for (const SlotPredicate& p : kSlotPredicates) {
    if (PredicateOfSlot(p.slot) != p.predicate) continue;  // written under its first row only
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TripleRow> rows,
                           SlotTriples(graph, owner, p.predicate));
    for (const storage::TripleRow& t : rows) {
      if (t.source.starts_with(source_prefix)) {
        MNEMO_RETURN_IF_ERROR(graph.DeleteTriple(t.id).status());
      }
    }
  }
  for (const storage::FacetRow& f : facets) {
    if (f.owner != owner) continue;
    // The statement that gave the current value names its segment.
    std::string source;
    if (f.statements) {
      for (auto s = f.statements->rbegin(); s != f.statements->rend(); ++s) {
        if (s->value == f.value) {
          source = s->session_id.empty() ? std::string(kStatedSlotSource)
                                         : SlotStatementSource(s->session_id, s->segment_id);
          break;
        }
      }
    }
    MNEMO_RETURN_IF_ERROR(SyncSlotTriple(graph, f, source, now));
  }
  return Status::Ok();
}

Status DeleteSlotTriples(storage::GraphStore& graph, std::string_view owner, std::string_view slot,
                         std::span<const std::string> values) {
  const std::string_view predicate = PredicateOfSlot(slot);
  if (predicate.empty() || values.empty()) return Status::Ok();
  std::vector<std::string> keys;
  keys.reserve(values.size());
  for (const std::string& v : values) keys.push_back(storage::internal::TripleTermKey(v));
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TripleRow> rows,
                         SlotTriples(graph, owner, predicate));
  for (const storage::TripleRow& t : rows) {
    if (std::find(keys.begin(), keys.end(), storage::internal::TripleTermKey(t.object)) ==
        keys.end()) {
      continue;
    }
    MNEMO_RETURN_IF_ERROR(graph.DeleteTriple(t.id).status());
  }
  return Status::Ok();
}

}  // namespace mnemo::archivist
