// memory.context_build (spec 50, "Context block"): gathers each section's
// candidates from the layers and lets context::PackContextBlock fit them.
#include <algorithm>

#include "context/context_block.h"
#include "core/engine_impl.h"
#include "core/validation.h"
#include "text/query.h"

namespace mnemo {
namespace {

// Shares of the budget, in section order; what a section leaves unused
// passes to the next.
constexpr double kEntriesShare = 0.30;
constexpr double kProfileShare = 0.10;
constexpr double kRecapsShare = 0.20;
constexpr double kTurnsShare = 0.20;
constexpr double kDocumentsShare = 0.20;

constexpr int64_t kMaxBudgetChars = 1'000'000;

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
  const int k = preset->items_per_section;
  const bool all = !config.memory.acl_enabled;
  const std::vector<std::string> terms = text::QueryTerms(req.query);

  std::vector<context::BlockSection> sections;
  {
    context::BlockSection s{.title = "Relevant memories", .share = kEntriesShare};
    MNEMO_ASSIGN_OR_RETURN(SearchResponse found,
                           Search(who, {.query = req.query, .max_results = k}));
    for (const SearchHit& h : found.results) s.items.push_back(h.key + ": " + h.content);
    sections.push_back(std::move(s));
  }
  {
    context::BlockSection s{.title = "About the user", .share = kProfileShare};
    MNEMO_ASSIGN_OR_RETURN(std::vector<ProfileFacet> facets, Profile(who));
    // Best evidence first; Profile's order (type, key) breaks ties.
    std::stable_sort(facets.begin(), facets.end(), [](const auto& a, const auto& b) {
      return a.evidence_count > b.evidence_count;
    });
    for (const ProfileFacet& f : facets) {
      s.items.push_back(f.facet_type + " " + f.key + ": " + f.value + " (confirmed " +
                        std::to_string(f.evidence_count) + "x)");
    }
    sections.push_back(std::move(s));
  }
  {
    context::BlockSection s{.title = "Earlier in this conversation", .share = kRecapsShare};
    if (req.session_id) {
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentRow> rows,
                             backend->Segments(all, who.name, *req.session_id));
      // Newest first: the recent past matters most when the budget is short.
      std::stable_sort(rows.begin(), rows.end(),
                       [](const auto& a, const auto& b) { return a.first_seq > b.first_seq; });
      for (const storage::SegmentRow& r : rows) {
        if (r.status == "closed" && !r.recap.empty()) s.items.push_back(r.recap);
        if (static_cast<int>(s.items.size()) == k) break;
      }
    } else {
      s.title = "Earlier conversations";
      MNEMO_ASSIGN_OR_RETURN(std::vector<RecallHit> recaps,
                             RecallRecaps(req.query, terms, k, all ? "" : who.name));
      for (const RecallHit& h : recaps) s.items.push_back(h.content);
    }
    sections.push_back(std::move(s));
  }
  {
    context::BlockSection s{.title = "Relevant turns", .share = kTurnsShare};
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::TurnHit> turns,
        backend->SearchTurns({.terms = terms, .all = all, .owner = who.name, .limit = k}));
    for (const storage::TurnHit& h : turns) {
      s.items.push_back(h.row.role + " (" + h.row.session_id + " #" + std::to_string(h.row.seq) +
                        "): " + h.row.content);
    }
    sections.push_back(std::move(s));
  }
  {
    context::BlockSection s{.title = "Documents", .share = kDocumentsShare};
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::DocumentHit> docs,
        backend->SearchDocuments(
            {.terms = terms, .owner = all ? std::nullopt : std::optional(who.name), .limit = k}));
    for (const storage::DocumentHit& h : docs) {
      const std::string& body = h.row.summary.empty() ? h.row.content : h.row.summary;
      s.items.push_back(h.row.source.empty() ? body : body + " [" + h.row.source + "]");
    }
    sections.push_back(std::move(s));
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
