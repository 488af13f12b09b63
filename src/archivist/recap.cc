#include "archivist/recap.h"

#include <limits>

#include "archivist/events.h"
#include "text/summary.h"

namespace mnemo::archivist {

std::string ExtractiveRecap(const std::vector<std::string>& turn_texts, int64_t token_budget) {
  if (token_budget <= 0) return "";
  const size_t max_bytes = token_budget > std::numeric_limits<int64_t>::max() / kBytesPerToken
                               ? std::numeric_limits<size_t>::max()
                               : static_cast<size_t>(token_budget * kBytesPerToken);
  return text::ExtractiveSummary(turn_texts, max_bytes, kEventSentenceOptions);
}

}  // namespace mnemo::archivist
