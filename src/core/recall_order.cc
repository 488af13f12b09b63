#include "core/recall_order.h"

#include <algorithm>
#include <string>

namespace mnemo {
namespace {

void ByScore(std::vector<RecallHit>& hits) {
  std::stable_sort(hits.begin(), hits.end(),
                   [](const RecallHit& a, const RecallHit& b) { return a.score > b.score; });
}

// Whether `hit` quotes the text of one of the turns in `evidence`.
bool QuotesATurn(const RecallHit& hit, const std::vector<RecallHit>& evidence) {
  for (const RecallHit& e : evidence) {
    if (e.source == "turn" && !e.content.empty() &&
        hit.content.find(e.content) != std::string::npos) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::vector<RecallHit> EvidenceFirst(std::vector<RecallHit> evidence,
                                     std::vector<RecallHit> derived, size_t limit) {
  ByScore(evidence);
  ByScore(derived);
  if (evidence.size() > limit) evidence.resize(limit);
  std::erase_if(derived, [&](const RecallHit& d) { return QuotesATurn(d, evidence); });

  // Merge by score, derived results limited to their share while evidence is left.
  const size_t derived_cap = limit / kDerivedShareDivisor;
  std::vector<RecallHit> chosen_evidence;
  std::vector<RecallHit> chosen_derived;
  size_t e = 0;
  size_t d = 0;
  while (chosen_evidence.size() + chosen_derived.size() < limit &&
         (e < evidence.size() || d < derived.size())) {
    const bool evidence_left = e < evidence.size();
    const bool take_derived =
        d < derived.size() && (!evidence_left || (chosen_derived.size() < derived_cap &&
                                                  derived[d].score > evidence[e].score));
    if (take_derived) {
      chosen_derived.push_back(std::move(derived[d++]));
    } else {
      chosen_evidence.push_back(std::move(evidence[e++]));
    }
  }
  for (RecallHit& h : chosen_derived) chosen_evidence.push_back(std::move(h));
  return chosen_evidence;
}

}  // namespace mnemo
