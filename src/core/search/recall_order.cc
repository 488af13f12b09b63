#include "core/search/recall_order.h"

#include <algorithm>
#include <string>

namespace mnemo {
namespace {

void ByScore(std::vector<RecallHit>& hits) {
  std::stable_sort(hits.begin(), hits.end(),
                   [](const RecallHit& a, const RecallHit& b) { return a.score > b.score; });
}

bool QuotesAny(const RecallHit& hit, const std::vector<std::string>& quoted) {
  return std::any_of(quoted.begin(), quoted.end(), [&](const std::string& q) {
    return !q.empty() && hit.content.find(q) != std::string::npos;
  });
}

}  // namespace

std::vector<RecallHit> EvidenceFirst(std::vector<RecallHit> evidence,
                                     std::vector<RecallHit> derived,
                                     const std::vector<std::string>& quoted, size_t limit) {
  ByScore(evidence);
  ByScore(derived);
  if (evidence.size() > limit) evidence.resize(limit);
  for (RecallHit& d : derived) {
    if (evidence.size() >= limit) break;
    if (!QuotesAny(d, quoted)) evidence.push_back(std::move(d));
  }
  return evidence;
}

}  // namespace mnemo
