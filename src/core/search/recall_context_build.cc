// The recall service's memory.context_build (spec 50, "Context block";
// core/search/recall_service.h): gathers each section's candidates from the layers
// and lets context::PackContextBlock fit them.
#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "archivist/events.h"
#include "archivist/profile/profile.h"
#include "archivist/segments.h"
#include "context/context_block.h"
#include "core/archivist/turn_runs.h"
#include "core/search/recall_service.h"
#include "core/search/turn_ranking.h"
#include "core/validation.h"
#include "text/pipeline/query.h"
#include "text/snippet.h"
#include "text/strip.h"

namespace mnemo {
namespace {

// Shares of the budget, in section order; what a section leaves unused
// passes to the next. The evidence (entries, then the turns quoted whole)
// comes first and gets most of the room; recaps and documents, derived from
// the turns, follow, and what they leave unused goes back to the turns, then
// to the entries.
constexpr double kEntriesShare = 0.25;
constexpr double kProfileShare = 0.10;
constexpr double kRecapsShare = 0.08;
constexpr double kDocumentsShare = 0.05;
constexpr double kTurnsShare = 1.0 - kEntriesShare - kProfileShare - kRecapsShare - kDocumentsShare;

// Turn candidates per preset item: a turn line is short (~150 characters),
// so the turns section holds several times a section's item count.
constexpr int kTurnsPerItem = 3;
constexpr int64_t kShortTurnChars = 100;
constexpr int64_t kMaxTurnCandidates = 100;
// Recaps ranked by relevance when a session's recaps are ordered.
constexpr int kMaxRankedRecaps = 40;

// Entries are kept by their score relative to the best entry's, so the best
// match is in the block whatever its absolute score (a keyword score is
// small in a store of few entries), and weak matches are not.
constexpr double kRelativeEntryScore = 0.5;

// The sections, in block order.
enum Section : size_t { kEntries, kProfile, kTurns, kRecaps, kDocuments, kSectionCount };

// How many passages of a derived section can show, at least one (the room
// the turns leave may pass to it), at most `k`.
int ItemsFitting(int64_t budget, double share, int k) {
  const auto room = static_cast<int64_t>(static_cast<double>(budget) * share);
  return static_cast<int>(std::clamp<int64_t>(room / 200 + 1, 1, k));
}

// A recap or document, and the turns it was made from when it is a segment
// document: it is left out when the block quotes what it repeats.
struct DerivedItem {
  std::string text;
  std::string owner;
  std::optional<archivist::SegmentSpan> span;
};

// Whether `item` adds nothing to `runs`: it quotes one of their turns whole,
// or it is a segment document (the segment's prose) one of whose turns is
// quoted.
bool Repeats(const DerivedItem& item, const TurnRuns& runs,
             const std::vector<std::string>& quoted) {
  if (item.span && runs.HoldsTurnIn(item.owner, item.span->session_id, item.span->first_seq,
                                    item.span->last_seq)) {
    return true;
  }
  for (const std::string& q : quoted) {
    if (!q.empty() && item.text.find(q) != std::string::npos) return true;
  }
  return false;
}

// The best of `turns` (best first) that fit `room` characters in runs.
TurnRuns FitTurns(const std::vector<RankedTurn>& turns, const std::vector<std::string>& texts,
                  size_t room) {
  TurnRuns runs;
  for (size_t i = 0; i < turns.size(); ++i) runs.AddIfFits(turns[i].row, texts[i], room);
  return runs;
}

// The turns' lines and the derived items that do not repeat them, into
// `sections`.
void FillFromRuns(const TurnRuns& runs, const std::vector<DerivedItem>& recaps,
                  const std::vector<DerivedItem>& documents,
                  std::vector<context::BlockSection>& sections) {
  sections[kTurns].items = runs.Lines();
  const std::vector<std::string> quoted = runs.Texts();
  for (auto [section, items] : {std::pair{kRecaps, &recaps}, std::pair{kDocuments, &documents}}) {
    sections[section].items.clear();
    for (const DerivedItem& item : *items) {
      if (!Repeats(item, runs, quoted)) sections[section].items.push_back(item.text);
    }
  }
}

// The entries of the block: by score relative to the best one's.
Result<std::vector<std::string>> ContextEntries(SearchService& search, const Principal& who,
                                                const Query& query, const Window& window,
                                                ResultCount k) {
  MNEMO_ASSIGN_OR_RETURN(SearchResponse found,
                         search.Search(who, SearchQuery::Within(query, {}, k, window, {},
                                                                /*min_score=*/0)));
  std::vector<std::string> items;
  const double best = found.results.empty() ? 0 : found.results.front().score;
  for (const SearchHit& h : found.results) {
    if (h.score <= 0 || h.score < kRelativeEntryScore * best) break;
    items.push_back(h.key + ": " + h.content);
  }
  return items;
}

// The profile's current values: the facets the query names first, then the
// best evidence; Profile's order (type, key) breaks ties. A free fact (a
// sentence that fits no slot) shows only when the query names it: it tells
// what happened, which the turns tell, not who the user is.
Result<std::vector<std::string>> ContextProfile(Result<std::vector<ProfileFacet>> profile,
                                                const std::vector<std::string>& terms) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<ProfileFacet> facets, std::move(profile));
  std::vector<std::pair<bool, const ProfileFacet*>> order;
  order.reserve(facets.size());
  for (const ProfileFacet& f : facets) {
    const bool named = text::MatchesAnyTerm(f.key + " " + f.value, terms);
    if (named || !archivist::IsFreeFact(f.facet_type, f.key, f.value)) {
      order.emplace_back(named, &f);
    }
  }
  std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first;
    return a.second->evidence_count > b.second->evidence_count;
  });
  std::vector<std::string> items;
  items.reserve(order.size());
  for (const auto& [named, f] : order) {
    items.push_back(f->facet_type + " " + f->key + ": " + f->value);
  }
  return items;
}

// Open commitments and reminders the query names (spec 40 §4), after the
// facets, at most this many of each type: one the user said is done
// (closed_at set) has left the block.
constexpr int kOpenTasksPerType = 3;

Status AddOpenTasks(storage::EpisodicStore& episodic, bool all, const Principal& who,
                    const std::vector<std::string>& terms, std::vector<std::string>& items) {
  if (terms.empty()) return Status::Ok();
  for (std::string_view type : {archivist::kEventCommitment, archivist::kEventReminder}) {
    // Closed ones are filtered here, so more are read than are shown.
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::EventHit> hits,
                           episodic.SearchEvents({.type = std::string(type),
                                                  .terms = terms,
                                                  .all = all,
                                                  .owner = who.name,
                                                  .limit = 4 * kOpenTasksPerType}));
    int shown = 0;
    for (const storage::EventHit& h : hits) {
      if (h.row.closed_at != 0) continue;
      if (shown++ == kOpenTasksPerType) break;
      items.push_back(std::string(type) + ": " + h.row.text);
    }
  }
  return Status::Ok();
}

// Recaps and documents come from many turns: no one time or agent.
bool TakesDerived(const ContextBuildRequest& req) { return req.window.empty() && !req.agent_id; }

// The recaps of the block, at most `limit`: with a session, that session's
// recaps that match the query by relevance, then its others newest first
// (the recent past matters most when nothing matches); without, the best
// matching recaps of every session.
// `recall_recaps(query, terms, limit, owner)` is Archivist::RecallRecaps.
template <typename RecallRecapsFn>
Result<std::vector<DerivedItem>> ContextRecaps(const RecallRecapsFn& recall_recaps,
                                               storage::EpisodicStore& episodic, bool all,
                                               const Principal& who, const ContextBuildRequest& req,
                                               const std::optional<SessionId>& session,
                                               const std::vector<std::string>& terms, int limit) {
  std::vector<DerivedItem> items;
  if (!TakesDerived(req)) return items;
  if (!session) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<RecallHit> recaps,
                           recall_recaps(req.query, terms, limit, all ? "" : who.name));
    for (const RecallHit& h : recaps) items.push_back({.text = BestPassage(h.content, terms)});
    return items;
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> rows,
                         episodic.Segments(all, who.name, session));
  MNEMO_ASSIGN_OR_RETURN(std::vector<RecallHit> ranked,
                         recall_recaps(req.query, terms, kMaxRankedRecaps, all ? "" : who.name));
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < ranked.size(); ++i) rank.emplace(ranked[i].id, i);
  auto rank_of = [&](const storage::SegmentRow& r) {
    auto it = rank.find(r.id);
    return it == rank.end() ? ranked.size() : it->second;
  };
  std::stable_sort(rows.begin(), rows.end(), [&](const auto& a, const auto& b) {
    if (rank_of(a) != rank_of(b)) return rank_of(a) < rank_of(b);
    return a.first_seq > b.first_seq;
  });
  for (const storage::SegmentRow& r : rows) {
    if (static_cast<int>(items.size()) == limit) break;
    if (r.status == "closed" && !r.recap.empty()) {
      items.push_back({.text = BestPassage(r.recap, terms)});
    }
  }
  return items;
}

// The block's items of the documents that match the query (`docs`, ranked
// by Documents::Rank).
std::vector<DerivedItem> ContextDocuments(const std::vector<storage::DocumentHit>& docs,
                                          const std::vector<std::string>& terms) {
  std::vector<DerivedItem> items;
  for (const storage::DocumentHit& h : docs) {
    std::string body = BestPassage(h.row.summary.empty() ? h.row.content : h.row.summary, terms);
    if (!h.row.source.empty()) body += " [" + h.row.source + "]";
    items.push_back({.text = std::move(body),
                     .owner = h.row.owner,
                     .span = archivist::ParseSegmentDocumentSource(h.row.source)});
  }
  return items;
}

}  // namespace

Result<ContextBlock> RecallService::ContextBuild(const Principal& who, const Query& query,
                                                 const std::optional<SessionId>& session,
                                                 const ContextBuildRequest& req) {
  const context::Preset* preset = context::FindPreset(req.preset);
  if (preset == nullptr) {
    return InvalidArgument("preset must be one of minimal, balanced, extended, maximum", "preset");
  }
  const int64_t budget = req.budget_chars.value_or(static_cast<int64_t>(preset->budget_chars));
  if (budget < 1 || budget > kMaxContextBuildChars) {
    return InvalidArgument(
        "budget_chars must be between 1 and " + std::to_string(kMaxContextBuildChars),
        "budget_chars");
  }
  MNEMO_ASSIGN_OR_RETURN(const Window window, Window::Parse(req.window));
  if (req.agent_id) MNEMO_RETURN_IF_ERROR(ValidateKey(*req.agent_id, "agent_id"));
  const int k = preset->items_per_section;
  // A preset's count of entries is the engine's, in range (context_block.h).
  MNEMO_ASSIGN_OR_RETURN(const ResultCount entries, ResultCount::Parse(k));
  const std::vector<std::string> terms = text::QueryTerms(query.view());

  std::vector<context::BlockSection> sections(kSectionCount);
  sections[kEntries] = {.title = "Relevant memories", .share = kEntriesShare};
  MNEMO_ASSIGN_OR_RETURN(sections[kEntries].items,
                         ContextEntries(search_, who, query, window, entries));
  // The profile keeps to its share: what the entries leave goes to the
  // turns, the evidence.
  sections[kProfile] = {.title = "About the user", .share = kProfileShare, .takes_carry = false};
  MNEMO_ASSIGN_OR_RETURN(sections[kProfile].items, ContextProfile(archivist_.Profile(who), terms));
  MNEMO_RETURN_IF_ERROR(
      AddOpenTasks(episodic_, !options_.acl_enabled, who, terms, sections[kProfile].items));
  sections[kTurns] = {.title = "Relevant turns", .share = kTurnsShare};
  sections[kRecaps] = {.title = "Earlier in this conversation", .share = kRecapsShare};
  if (!session) sections[kRecaps].title = "Earlier conversations";
  sections[kDocuments] = {.title = "Documents", .share = kDocumentsShare};

  // Enough turn candidates to fill the whole budget with short turns.
  const int turn_candidates = static_cast<int>(std::clamp<int64_t>(
      budget / kShortTurnChars, int64_t{kTurnsPerItem} * k, kMaxTurnCandidates));
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<RankedTurn> turns,
      RankTurnsInConversation(episodic_,
                              {.terms = terms,
                               .all = !options_.acl_enabled,
                               .owner = who.name,
                               .limit = turn_candidates,
                               .since = window.get().since,
                               .until = window.get().until,
                               .agent_id = req.agent_id},
                              {}, {.matcher = search_.soft_matcher(), .query = req.query}));
  std::vector<std::string> texts;
  texts.reserve(turns.size());
  for (const RankedTurn& h : turns)
    texts.push_back(ReadableTurnText(h.row, terms, &tools_.registry()));
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<DerivedItem> recaps,
      ContextRecaps(
          [this](const std::string& query, const std::vector<std::string>& query_terms, int n,
                 const std::string& owner) {
            return archivist_.RecallRecaps(query, query_terms, n, owner);
          },
          episodic_, !options_.acl_enabled, who, req, session, terms,
          ItemsFitting(budget, kRecapsShare, k)));
  std::vector<storage::DocumentHit> document_hits;
  if (TakesDerived(req)) {
    MNEMO_ASSIGN_OR_RETURN(
        document_hits,
        documents_.Rank(req.query, terms,
                        options_.acl_enabled ? std::optional(who.name) : std::nullopt,
                        ItemsFitting(budget, kDocumentsShare, k)));
  }
  std::vector<DerivedItem> documents = ContextDocuments(document_hits, terms);

  // The turns fit their room; the recaps and documents that only repeat
  // them are left out, and the room that frees goes to more turns.
  const auto total = static_cast<size_t>(budget);
  const size_t room = context::SectionRoom(sections, total, kTurns);
  TurnRuns runs = FitTurns(turns, texts, room);
  FillFromRuns(runs, recaps, documents, sections);
  const size_t unused = total - context::PackContextBlock(sections, total).chars;
  if (unused > 0 && runs.count() < turns.size()) {
    sections[kTurns].extra_chars = unused;
    runs = FitTurns(turns, texts, room + unused);
    FillFromRuns(runs, recaps, documents, sections);
  }
  // Room still unused (every turn is in) goes back to the entries, which
  // come first and so never get what later sections leave.
  context::PackedBlock packed = context::PackContextBlock(sections, total);
  if (packed.chars < total && !sections[kEntries].items.empty()) {
    sections[kEntries].extra_chars = total - packed.chars;
    packed = context::PackContextBlock(sections, total);
  }
  ContextBlock out{.text = std::move(packed.text),
                   .preset = std::string(preset->name),
                   .budget_chars = budget,
                   .used_chars = static_cast<int64_t>(packed.chars)};
  for (const context::PackedSection& p : packed.sections) {
    out.sections.push_back({.name = p.title,
                            .items = static_cast<int64_t>(p.items),
                            .chars = static_cast<int64_t>(p.chars)});
  }
  return out;
}

}  // namespace mnemo
