#include "core/search/turn_ranking.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "archivist/turn_indexer.h"
#include "context/tool_registry.h"
#include "core/search/fusion.h"
#include "storage/rules/episodic_rules.h"
#include "storage/values.h"
#include "text/pipeline/query.h"
#include "text/snippet.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

// Keyword candidates per requested turn, and how many of the best get their
// neighbours fetched. A turn outside the keyword candidates counts as a
// non-match for its neighbours; with 5x the limit (at least 100) that only
// affects turns far below the ones returned.
constexpr int kPoolPerResult = 5;
constexpr int kMinPool = 100;
constexpr int kExpandPerResult = 3;
constexpr int kMinExpand = 30;

std::string PlaceKey(const storage::TurnRow& r, int64_t seq) {
  std::string key = r.owner;
  key += '\0';
  key += r.session_id;
  key += '\0';
  key += std::to_string(seq);
  return key;
}

bool HasTextToRead(const storage::TurnRow& r) {
  return !r.content.empty() || !r.tool_calls_json.empty();
}

// Whether a turn asks something: it holds a question mark (ASCII, the
// full-width one of CJK text or the Arabic one).
bool AsksAQuestion(const storage::TurnRow& r) {
  const std::string& c = r.content;
  return c.find('?') != std::string::npos || c.find("\xEF\xBC\x9F") != std::string::npos ||
         c.find("\xD8\x9F") != std::string::npos;
}

// How many of `terms` name the date (UTC) a turn was said on: its day of the
// month, its month's name, its year ("13 October 2023"), as QueryTerms gives
// them. A turn's time is searchable without being part of its text.
int64_t DateTermsMatched(const std::vector<std::string>& terms, TimeMs timestamp_ms) {
  static const std::vector<std::string> kMonths = [] {
    std::vector<std::string> out;
    for (const char* name : {"January", "February", "March", "April", "May", "June", "July",
                             "August", "September", "October", "November", "December"}) {
      std::vector<std::string> t = text::QueryTerms(name);
      out.push_back(t.empty() ? std::string() : t.front());
    }
    return out;
  }();
  const std::chrono::year_month_day date{std::chrono::floor<std::chrono::days>(
      std::chrono::sys_time<std::chrono::milliseconds>(std::chrono::milliseconds(timestamp_ms)))};
  const std::string day = std::to_string(static_cast<unsigned>(date.day()));
  const std::string& month = kMonths[static_cast<unsigned>(date.month()) - 1];
  const std::string year = std::to_string(static_cast<int>(date.year()));
  int64_t matched = 0;
  for (const std::string& t : terms) {
    if (t == day || t == year || (!month.empty() && t == month)) ++matched;
  }
  return matched;
}

}  // namespace

std::string ReadableTurnText(const storage::TurnRow& row, const std::vector<std::string>& terms,
                             const context::ToolRegistry* tools) {
  if (row.tool_calls_json.empty() || text::MatchesAnyTerm(row.content, terms)) return row.content;
  Result<std::vector<ToolCall>> calls = archivist::ToolCallsFromJson(row.tool_calls_json);
  if (!calls.ok()) return row.content;
  const ToolCall* first_with_output = nullptr;
  for (const ToolCall& c : *calls) {
    const std::string& out = c.clean_output ? *c.clean_output : c.output;
    if (out.empty()) continue;
    if (tools != nullptr) {
      std::shared_ptr<const context::ToolSpec> spec = tools->Find(c.name);
      if (spec != nullptr && spec->no_memory) continue;
    }
    if (first_with_output == nullptr) first_with_output = &c;
    if (text::MatchesAnyTerm(out, terms)) {
      return "[" + c.name + "] " + text::MakePassage(out, terms, kToolPassageChars);
    }
  }
  if (!row.content.empty() || first_with_output == nullptr) return row.content;
  const ToolCall& c = *first_with_output;
  return "[" + c.name + "] " +
         text::MakePassage(c.clean_output ? *c.clean_output : c.output, terms, kToolPassageChars);
}

Result<std::vector<storage::TurnRow>> NeighbourTurns(storage::EpisodicStore& episodic,
                                                     const storage::TurnRow& hit, int span) {
  std::vector<storage::TurnRow> out;
  if (span <= 0) return out;
  MNEMO_ASSIGN_OR_RETURN(SessionId session, SessionId::Parse(hit.session_id));
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::TurnRow> rows,
      episodic.SessionTurns(hit.owner, session, std::max<int64_t>(0, hit.seq - span),
                            hit.seq + span));
  for (storage::TurnRow& r : rows) {
    if (r.seq != hit.seq) out.push_back(std::move(r));
  }
  return out;
}

namespace {

// Every candidate of `query` (the keyword pool and the neighbours of its
// best), scored by the formula of the header, best first; `query.limit`
// sizes the pool.
Result<std::vector<RankedTurn>> ScoreCandidates(storage::EpisodicStore& episodic,
                                                storage::TurnQuery query, TurnRecency recency,
                                                const TurnSoftMatch& soft) {
  const int limit = query.limit;
  if (limit <= 0 || query.terms.empty()) return std::vector<RankedTurn>();
  query.limit = std::max(kPoolPerResult * limit, kMinPool);
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnHit> pool, episodic.SearchTurns(query));

  std::vector<storage::TurnRow> rows;  // keyword hits first, in their order, then neighbours
  std::vector<double> own;             // s(t) of rows[i]: keyword score times coverage
  std::vector<double> keyword;         // keyword score of rows[i]
  std::vector<double> covered;         // coverage of rows[i]
  std::map<std::string, size_t> at;    // (owner, session, seq) -> index in rows
  rows.reserve(pool.size());
  for (storage::TurnHit& h : pool) {
    at.emplace(PlaceKey(h.row, h.row.seq), rows.size());
    const double coverage = std::clamp(
        static_cast<double>(h.matched_terms + DateTermsMatched(query.terms, h.row.timestamp_ms)) /
            static_cast<double>(query.terms.size()),
        0.0, 1.0);
    own.push_back(h.score * coverage);
    covered.push_back(coverage);
    keyword.push_back(h.score);
    rows.push_back(std::move(h.row));
  }

  // Neighbours of the best hits, one read per run of nearby hits of a session.
  const size_t expand =
      std::min(rows.size(), static_cast<size_t>(std::max(kExpandPerResult * limit, kMinExpand)));
  std::map<std::pair<std::string, std::string>, std::vector<int64_t>> by_session;
  for (size_t i = 0; i < expand; ++i) {
    by_session[{rows[i].owner, rows[i].session_id}].push_back(rows[i].seq);
  }
  for (auto& [session, seqs] : by_session) {
    std::sort(seqs.begin(), seqs.end());
    size_t i = 0;
    while (i < seqs.size()) {
      const int64_t from = std::max<int64_t>(0, seqs[i] - kNeighbourSpan);
      int64_t to = seqs[i] + kNeighbourSpan;
      while (i + 1 < seqs.size() && seqs[i + 1] - kNeighbourSpan <= to + 1) {
        to = seqs[++i] + kNeighbourSpan;
      }
      ++i;
      MNEMO_ASSIGN_OR_RETURN(SessionId session_id, SessionId::Parse(session.second));
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::TurnRow> near,
                             episodic.SessionTurns(session.first, session_id, from, to));
      for (storage::TurnRow& r : near) {
        std::string key = PlaceKey(r, r.seq);
        if (at.contains(key) || !HasTextToRead(r) || !storage::internal::TurnInWindow(query, r)) {
          continue;
        }
        at.emplace(std::move(key), rows.size());
        own.push_back(0);
        covered.push_back(0);
        keyword.push_back(0);
        rows.push_back(std::move(r));
      }
    }
  }
  if (soft.matcher != nullptr) {
    const embed::SoftMatcher::Query prepared = soft.matcher->Prepare(text::QueryText(soft.query));
    if (!prepared.words.empty()) {
      for (size_t i = 0; i < rows.size(); ++i) {
        const double s = soft.matcher->Score(prepared, rows[i].content).score;
        if (s <= 0) continue;
        own[i] = keyword[i] * std::min(1.0, covered[i] + s);
      }
    }
  }

  std::vector<double> score(rows.size());
  std::vector<double> passage(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    double miss = 1 - own[i];
    passage[i] = keyword[i];
    for (int d = -kNeighbourSpan; d <= kNeighbourSpan; ++d) {
      if (d == 0) continue;
      auto it = at.find(PlaceKey(rows[i], rows[i].seq + d));
      if (it == at.end()) continue;
      const double weight =
          d == -1 && AsksAQuestion(rows[it->second]) ? kAnswerWeight : kNeighbourWeight;
      miss *= 1 - weight * own[it->second];
      passage[i] = std::max(passage[i], keyword[it->second]);
    }
    score[i] = std::clamp(1 - miss, 0.0, 1.0);
    if (recency.weight.value() > 0 && score[i] > 0) {
      score[i] = BlendRecency(score[i], rows[i].timestamp_ms, recency.now, recency.weight.value());
    }
  }
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return score[a] > score[b]; });
  std::vector<RankedTurn> out;
  for (size_t i : order) {
    if (score[i] <= 0) break;
    out.push_back({.row = std::move(rows[i]), .score = score[i], .passage_score = passage[i]});
  }
  return out;
}

}  // namespace

Result<std::vector<RankedTurn>> RankTurnsInConversation(storage::EpisodicStore& episodic,
                                                        const storage::TurnQuery& query,
                                                        TurnRecency recency,
                                                        const TurnSoftMatch& soft) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<RankedTurn> out,
                         ScoreCandidates(episodic, query, recency, soft));
  if (out.size() > static_cast<size_t>(std::max(query.limit, 0))) out.resize(query.limit);
  return out;
}

std::string BestPassage(const std::string& text, const std::vector<std::string>& terms) {
  if (text::CountCodePoints(text) <= kPassageChars) return text;
  return text::MakePassage(text, terms, kPassageChars);
}

Result<std::vector<TurnPassage>> RankPassages(storage::EpisodicStore& episodic,
                                              const storage::TurnQuery& query,
                                              const context::ToolRegistry* tools,
                                              TurnRecency recency, size_t max_chars,
                                              const TurnSoftMatch& soft) {
  // The candidates hold the best hits' neighbours kNeighbourSpan each side,
  // with their scores: enough for a passage of a few turns.
  MNEMO_ASSIGN_OR_RETURN(std::vector<RankedTurn> ranked,
                         ScoreCandidates(episodic, query, recency, soft));
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < ranked.size(); ++i) {
    at.emplace(PlaceKey(ranked[i].row, ranked[i].row.seq), i);
  }
  std::vector<bool> covered(ranked.size(), false);
  // The uncovered candidate at `seq` of `hit`'s session, or nullopt.
  auto free_at = [&](const storage::TurnRow& hit, int64_t seq) -> std::optional<size_t> {
    auto it = at.find(PlaceKey(hit, seq));
    if (it == at.end() || covered[it->second]) return std::nullopt;
    return it->second;
  };
  std::vector<TurnPassage> out;
  for (size_t h = 0; h < ranked.size() && static_cast<int>(out.size()) < query.limit; ++h) {
    if (covered[h]) continue;
    const storage::TurnRow& hit = ranked[h].row;
    std::vector<size_t> members{h};  // in session order
    std::vector<std::string> lines{ReadableTurnText(hit, query.terms, tools)};
    covered[h] = true;
    // Lines carry "<role>: " once there are several; counted from the start.
    size_t chars = text::CountCodePoints(lines[0]) + hit.role.size() + 2;
    bool before_open = true;
    bool after_open = true;
    while (before_open || after_open) {
      const std::optional<size_t> b =
          before_open ? free_at(hit, ranked[members.front()].row.seq - 1) : std::nullopt;
      const std::optional<size_t> a =
          after_open ? free_at(hit, ranked[members.back()].row.seq + 1) : std::nullopt;
      if (!b) before_open = false;
      if (!a) after_open = false;
      if (!b && !a) break;
      const bool take_before = b && (!a || ranked[*b].score > ranked[*a].score);
      const size_t n = take_before ? *b : *a;
      std::string line = ReadableTurnText(ranked[n].row, query.terms, tools);
      const size_t cost = text::CountCodePoints(line) + ranked[n].row.role.size() + 3;
      if (chars + cost > max_chars) {
        // That side is full; the other may still take a shorter turn.
        (take_before ? before_open : after_open) = false;
        continue;
      }
      chars += cost;
      covered[n] = true;
      if (take_before) {
        members.insert(members.begin(), n);
        lines.insert(lines.begin(), std::move(line));
      } else {
        members.push_back(n);
        lines.push_back(std::move(line));
      }
    }
    TurnPassage p{.hit = ranked[h]};
    if (members.size() == 1) {
      p.text = std::move(lines[0]);
    } else {
      for (size_t i = 0; i < members.size(); ++i) {
        if (i > 0) p.text += '\n';
        p.text += ranked[members[i]].row.role + ": " + lines[i];
      }
    }
    for (size_t m : members) p.turns.push_back(ranked[m].row);
    p.lines = std::move(lines);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace mnemo
