#include "context/graph.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "context/graph_extract.h"
#include "storage/rules/graph_rules.h"
#include "text/sentences.h"

namespace mnemo::context {
namespace {

using internal::Speaker;

// The splitter settings for triples: like events (spec 40), but ';' ends a
// sentence too and no piece is too short ("我叫小明" has 12 bytes, "Bo is 9"
// fewer).
constexpr text::SentenceOptions kTripleSentenceOptions{.split_on_semicolon = true,
                                                       .keep_abbreviations = true,
                                                       .split_before_non_ascii = true,
                                                       .min_bytes = 0};

bool StartsWithFolded(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != prefix[i]) return false;
  }
  return true;
}

}  // namespace

namespace internal {

std::optional<Speaker> TakeSpeaker(std::string_view& line) {
  size_t start = 0;
  while (start < line.size() && (line[start] == ' ' || line[start] == '\t')) ++start;
  const std::string_view rest = line.substr(start);
  if (StartsWithFolded(rest, "user:")) {
    line = rest.substr(5);
    return Speaker::kUser;
  }
  if (StartsWithFolded(rest, "assistant:")) {
    line = rest.substr(10);
    return Speaker::kAssistant;
  }
  if (StartsWithFolded(rest, "[tool]")) {
    const size_t colon = rest.find(':');
    line = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    return Speaker::kTool;
  }
  return std::nullopt;
}

}  // namespace internal

bool IsSingleValued(std::string_view predicate) {
  return std::find(std::begin(kSingleValuedPredicates), std::end(kSingleValuedPredicates),
                   predicate) != std::end(kSingleValuedPredicates);
}

std::vector<ExtractedTriple> ExtractTriples(std::span<const ComputationLine> lines) {
  std::vector<ExtractedTriple> out;
  // (subject key, predicate, object key) -> index in `out`.
  std::map<std::tuple<std::string, std::string, std::string>, size_t> seen;
  Speaker speaker = Speaker::kUnknown;
  for (const ComputationLine& line : lines) {
    std::string_view body = line.text;
    if (std::optional<Speaker> s = internal::TakeSpeaker(body)) speaker = *s;
    if (!line.may_produce_triples) continue;
    for (const std::string& sentence : text::SplitSentences(body, kTripleSentenceOptions)) {
      const std::string normalized = internal::NormalizeSentence(sentence);
      if (internal::IsQuestion(normalized)) continue;
      const double confidence =
          internal::IsHedged(normalized) ? kTripleHedgedConfidence : kTriplePlainConfidence;
      for (const std::string& clause : internal::SplitClauses(normalized)) {
        std::optional<internal::ClauseTriple> t = internal::ExtractClause(clause, speaker);
        if (!t) continue;
        auto key = std::make_tuple(storage::internal::TripleTermKey(t->subject), t->predicate,
                                   storage::internal::TripleTermKey(t->object));
        if (auto it = seen.find(key); it != seen.end()) {
          out[it->second].confidence = std::max(out[it->second].confidence, confidence);
          continue;
        }
        seen.emplace(std::move(key), out.size());
        out.push_back({.subject = std::move(t->subject),
                       .predicate = std::move(t->predicate),
                       .object = std::move(t->object),
                       .confidence = confidence,
                       .sentence = sentence});
      }
    }
  }
  return out;
}

std::vector<ExtractedTriple> ExtractTriplesFromText(std::string_view computation_text) {
  std::vector<ComputationLine> lines;
  size_t start = 0;
  while (start <= computation_text.size()) {
    const size_t end = computation_text.find('\n', start);
    const size_t stop = end == std::string_view::npos ? computation_text.size() : end;
    lines.push_back({.text = computation_text.substr(start, stop - start)});
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return ExtractTriples(lines);
}

Result<int64_t> StoreTriples(storage::GraphStore& graph, std::string_view owner,
                             std::string_view source, TimeMs now,
                             std::span<const ExtractedTriple> triples) {
  int64_t created = 0;
  for (const ExtractedTriple& t : triples) {
    storage::TripleRow row{.owner = std::string(owner),
                           .subject = t.subject,
                           .predicate = t.predicate,
                           .object = t.object,
                           .confidence = t.confidence,
                           .source = std::string(source),
                           .sentence = t.sentence,
                           .valid_from = now,
                           .created_at = now};
    MNEMO_ASSIGN_OR_RETURN(storage::TripleUpsert u,
                           graph.UpsertTriple(row, IsSingleValued(row.predicate)));
    if (u.created) ++created;
  }
  return created;
}

}  // namespace mnemo::context
