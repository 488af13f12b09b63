#include "index/filtered_walk.h"

#include <algorithm>

namespace mnemo::index {
namespace {

// Subsets this small are always scanned exactly.
constexpr size_t kAlwaysExactSubset = 2048;

// How many ids to offer `accept` next when `wanted` more must pass and it
// passed `passed` of the `offered` so far: `wanted` before any was offered,
// then `wanted` over the pass rate seen, with half again as many for
// margin (one more call costs more than a few more ids in one call).
size_t OfferNext(size_t wanted, size_t offered, size_t passed) {
  if (offered == 0) return wanted;
  const size_t rate_over = std::max<size_t>(passed, 1);
  return std::max(wanted, (wanted * offered * 3 + 2 * rate_over - 1) / (2 * rate_over));
}

}  // namespace

bool SubsetIsCheap(size_t subset_size, size_t live, size_t k, const HnswParams& p) {
  if (subset_size <= kAlwaysExactSubset || subset_size == 0) return true;
  const double want = static_cast<double>(std::max(4 * k, p.ef_search));
  const double results = want * static_cast<double>(live) / static_cast<double>(subset_size);
  return static_cast<double>(subset_size) <= 2.0 * static_cast<double>(p.m) * results;
}

Result<std::vector<Neighbor>> WalkUntilAccepted(
    const WalkPlan& plan, const AcceptFn& accept,
    const std::function<Result<std::vector<Neighbor>>(size_t want)>& walk,
    const std::function<std::vector<Neighbor>(const std::unordered_set<uint64_t>& checked)>&
        scan_rest) {
  const size_t k = plan.k;
  std::unordered_set<uint64_t> checked;
  std::vector<Neighbor> accepted;
  std::vector<uint64_t> batch;
  std::vector<Neighbor> batch_n;
  std::vector<char> ok;
  size_t offered = 0;  // ids offered to `accept` so far, and how many it passed
  size_t passed = 0;
  bool exhausted = false;
  for (size_t want = plan.first_want;; want *= 4) {
    if (want >= plan.live / 2) {
      exhausted = true;  // a walk this wide costs more than a scan
      break;
    }
    MNEMO_ASSIGN_OR_RETURN(std::vector<Neighbor> found, walk(want));
    // The new ids in score order, offered a few at a time: first as many
    // as are still wanted, then, for what that left short, as many as the
    // filter's pass rate so far says it takes to find them (OfferNext). A
    // filter that passes most ids (archived entries out) is then asked
    // about k of them, not the whole over-fetch of 4k, and one that passes
    // a quarter (a caller's scope) in two or three calls instead of a call
    // per few ids: each call can be a round trip to a database server.
    // The first k accepted in score order are the k best, as before; ids
    // accepted past the k-th are not kept, so the answer does not depend on
    // how the ids were batched.
    std::vector<Neighbor> fresh;
    for (const Neighbor& n : found) {
      if (checked.insert(n.id).second) fresh.push_back(n);
    }
    for (size_t lo = 0; lo < fresh.size() && accepted.size() < k;) {
      const size_t hi =
          std::min(fresh.size(), lo + OfferNext(k - accepted.size(), offered, passed));
      batch.clear();
      batch_n.assign(fresh.begin() + static_cast<ptrdiff_t>(lo),
                     fresh.begin() + static_cast<ptrdiff_t>(hi));
      for (const Neighbor& n : batch_n) batch.push_back(n.id);
      ok.assign(batch.size(), 0);
      accept(batch, &ok);
      offered += batch.size();
      for (size_t i = 0; i < batch.size(); ++i) {
        if (!ok[i]) continue;
        ++passed;
        if (accepted.size() < k) accepted.push_back(batch_n[i]);
      }
      lo = hi;
    }
    if (accepted.size() >= k) break;
    if (found.size() < want) {
      exhausted = found.size() < plan.live;  // unreachable elements remain
      break;
    }
  }
  if (exhausted) {
    std::vector<Neighbor> rest = scan_rest(checked);
    std::vector<Neighbor> more = TopKAccepted(rest, k, accept);
    accepted.insert(accepted.end(), more.begin(), more.end());
  }
  return TopKAccepted(accepted, k, {});
}

}  // namespace mnemo::index
