// memory.context_build (spec 50, "Context block"): gathers each section's
// candidates from the layers and lets context::PackContextBlock fit them.
#include <algorithm>
#include <map>

#include "base/time.h"
#include "context/context_block.h"
#include "core/engine_impl.h"
#include "core/turn_ranking.h"
#include "core/validation.h"
#include "text/query.h"
#include "text/snippet.h"

namespace mnemo {
namespace {

// Shares of the budget, in section order; what a section leaves unused
// passes to the next. The evidence (entries, then the turns quoted whole)
// comes first and gets most of the room; recaps and documents, derived from
// the turns, follow.
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

constexpr int64_t kMaxBudgetChars = 1'000'000;

constexpr size_t kTurnsSection = 2;  // index of "Relevant turns" in the sections

// "user, 2023-05-08 13:56 (s1 #4): <content>": who said it and when.
std::string TurnLine(const storage::TurnRow& row, const std::string& text) {
  const std::string when = internal::FormatRfc3339(row.timestamp_ms);
  // "2023-05-08T13:56:00.000Z" -> "2023-05-08 13:56"
  const std::string date = when.size() >= 16 ? when.substr(0, 10) + " " + when.substr(11, 5) : when;
  return row.role + ", " + date + " (" + row.session_id + " #" + std::to_string(row.seq) +
         "): " + text;
}

// How many passages of a derived section can show, at least one (the room
// the turns leave may pass to it), at most `k`.
int ItemsFitting(int64_t budget, double share, int k) {
  const auto room = static_cast<int64_t>(static_cast<double>(budget) * share);
  return static_cast<int>(std::clamp<int64_t>(room / 200 + 1, 1, k));
}

// Whether `item` quotes one of `quoted` (texts already in the block).
bool QuotesAny(const std::string& item, const std::vector<std::string>& quoted) {
  for (const std::string& q : quoted) {
    if (!q.empty() && item.find(q) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

Result<ContextBlock> Engine::Impl::ContextBuild(const Principal& who,
                                                const ContextBuildRequest& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (req.query.find_first_not_of(" \t\r\n") == std::string::npos) {
    return InvalidArgument("query must not be blank: say what this turn is about", "query");
  }
  const context::Preset* preset = context::FindPreset(req.preset);
  if (preset == nullptr) {
    return InvalidArgument("preset must be one of minimal, balanced, extended, maximum", "preset");
  }
  const int64_t budget = req.budget_chars.value_or(static_cast<int64_t>(preset->budget_chars));
  if (budget < 1 || budget > kMaxBudgetChars) {
    return InvalidArgument("budget_chars must be between 1 and 1000000", "budget_chars");
  }
  if (req.session_id) MNEMO_RETURN_IF_ERROR(ValidateKey(*req.session_id, "session_id"));
  MNEMO_RETURN_IF_ERROR(ValidateTimeWindow(req.window));
  if (req.agent_id) MNEMO_RETURN_IF_ERROR(ValidateKey(*req.agent_id, "agent_id"));
  // Recaps and documents come from many turns: no one time or agent.
  const bool derived = req.window.empty() && !req.agent_id;
  const int k = preset->items_per_section;
  const bool all = !config.memory.acl_enabled;
  const std::vector<std::string> terms = text::QueryTerms(req.query);

  std::vector<context::BlockSection> sections;
  {
    context::BlockSection s{.title = "Relevant memories", .share = kEntriesShare};
    MNEMO_ASSIGN_OR_RETURN(
        SearchResponse found,
        Search(who, {.query = req.query, .max_results = k, .min_score = 0, .window = req.window}));
    const double best = found.results.empty() ? 0 : found.results.front().score;
    for (const SearchHit& h : found.results) {
      if (h.score <= 0 || h.score < kRelativeEntryScore * best) break;
      s.items.push_back(h.key + ": " + h.content);
    }
    sections.push_back(std::move(s));
  }
  {
    // The profile keeps to its share: what the entries leave goes to the
    // turns, the evidence.
    context::BlockSection s{
        .title = "About the user", .share = kProfileShare, .takes_carry = false};
    MNEMO_ASSIGN_OR_RETURN(std::vector<ProfileFacet> facets, Profile(who));
    // Current values only. Facets the query names first, then the best
    // evidence; Profile's order (type, key) breaks ties.
    std::vector<std::pair<bool, const ProfileFacet*>> order;
    order.reserve(facets.size());
    for (const ProfileFacet& f : facets) {
      order.emplace_back(text::MatchesAnyTerm(f.key + " " + f.value, terms), &f);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
      if (a.first != b.first) return a.first;
      return a.second->evidence_count > b.second->evidence_count;
    });
    for (const auto& [named, f] : order) {
      s.items.push_back(f->facet_type + " " + f->key + ": " + f->value);
    }
    sections.push_back(std::move(s));
  }
  // The turns' texts, to leave out recaps and documents that only repeat them.
  std::vector<std::string> turn_texts;
  {
    context::BlockSection s{.title = "Relevant turns", .share = kTurnsShare};
    // Enough candidates to fill the whole budget with short turns.
    const int turn_candidates = static_cast<int>(std::clamp<int64_t>(
        budget / kShortTurnChars, int64_t{kTurnsPerItem} * k, kMaxTurnCandidates));
    MNEMO_ASSIGN_OR_RETURN(std::vector<RankedTurn> turns,
                           RankTurnsInConversation(*backend, {.terms = terms,
                                                              .all = all,
                                                              .owner = who.name,
                                                              .limit = turn_candidates,
                                                              .since = req.window.since,
                                                              .until = req.window.until,
                                                              .agent_id = req.agent_id}));
    for (const RankedTurn& h : turns) {
      std::string text = ReadableTurnText(h.row, terms, tools.get());
      s.items.push_back(TurnLine(h.row, text));
      turn_texts.push_back(std::move(text));
    }
    sections.push_back(std::move(s));
  }
  {
    context::BlockSection s{.title = "Earlier in this conversation", .share = kRecapsShare};
    const int recap_items = ItemsFitting(budget, kRecapsShare, k);
    if (derived && req.session_id) {
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> rows,
                             backend->Segments(all, who.name, *req.session_id));
      // The recaps that match the query by relevance, then the others newest
      // first: the recent past matters most when nothing matches.
      MNEMO_ASSIGN_OR_RETURN(std::vector<RecallHit> ranked,
                             RecallRecaps(req.query, terms, kMaxRankedRecaps, all ? "" : who.name));
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
        if (r.status == "closed" && !r.recap.empty())
          s.items.push_back(BestPassage(r.recap, terms));
        if (static_cast<int>(s.items.size()) == recap_items) break;
      }
    } else if (derived) {
      s.title = "Earlier conversations";
      MNEMO_ASSIGN_OR_RETURN(std::vector<RecallHit> recaps,
                             RecallRecaps(req.query, terms, recap_items, all ? "" : who.name));
      for (const RecallHit& h : recaps) s.items.push_back(BestPassage(h.content, terms));
    }
    sections.push_back(std::move(s));
  }
  {
    context::BlockSection s{.title = "Documents", .share = kDocumentsShare};
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::DocumentHit> docs,
                           backend->SearchDocuments(
                               {.terms = terms,
                                .owner = all ? std::nullopt : std::optional(who.name),
                                .limit = derived ? ItemsFitting(budget, kDocumentsShare, k) : 0}));
    for (const storage::DocumentHit& h : docs) {
      std::string body = BestPassage(h.row.summary.empty() ? h.row.content : h.row.summary, terms);
      s.items.push_back(h.row.source.empty() ? body : body + " [" + h.row.source + "]");
    }
    sections.push_back(std::move(s));
  }
  // Recaps and documents that quote a turn already in the block add nothing.
  {
    const context::PackedBlock first =
        context::PackContextBlock(sections, static_cast<size_t>(budget));
    size_t turns_in = 0;
    for (const context::PackedSection& p : first.sections) {
      if (p.title == sections[kTurnsSection].title) turns_in = p.items;
    }
    turn_texts.resize(std::min(turn_texts.size(), turns_in));
    for (size_t i = kTurnsSection + 1; i < sections.size(); ++i) {
      std::erase_if(sections[i].items,
                    [&](const std::string& item) { return QuotesAny(item, turn_texts); });
    }
  }

  context::PackedBlock packed = context::PackContextBlock(sections, static_cast<size_t>(budget));
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
