#include "archivist/profile.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <unordered_set>
#include <utility>

#include "base/sha256.h"
#include "text/query.h"
#include "text/tokenizer.h"
#include "text/utf8.h"

namespace mnemo::archivist {
namespace {

constexpr size_t kKeyWords = 4;
constexpr size_t kHashDigits = 12;

// Sections come in this order; other types follow in byte order.
int SectionRank(std::string_view facet_type) {
  if (facet_type == kFacetPreference) return 0;
  if (facet_type == kFacetContext) return 1;
  return 2;
}

std::string SectionTitle(std::string_view facet_type) {
  std::string title(facet_type);
  if (!title.empty() && title[0] >= 'a' && title[0] <= 'z') {
    title[0] = static_cast<char>(title[0] - 'a' + 'A');
  }
  return title;
}

// A key or value on one line: every run of CR/LF becomes one space.
void AppendOneLine(std::string_view value, std::string* out) {
  bool in_break = false;
  for (char c : value) {
    if (c == '\n' || c == '\r') {
      if (!in_break) *out += ' ';
      in_break = true;
    } else {
      *out += c;
      in_break = false;
    }
  }
}

}  // namespace

std::string FacetKey(std::string_view facet_type, std::string_view text) {
  std::string key(facet_type);
  // QueryTerms rather than Tokenize: it removes Chinese stop words as ICU
  // words before making bigrams, so "我的名字是张伟" keys on 名字/张伟 rather
  // than on 我的/的名/名字/字是, which every "我的名字是…" shares.
  const std::vector<std::string> terms = text::QueryTerms(text);
  if (terms.empty()) {
    key += '_';
    key += internal::Sha256Hex(text).substr(0, kHashDigits);
    return key;
  }
  // QueryTerms lists an identifier and then its parts ("acme.io", "acm",
  // "io"); the parts only repeat it. They are the colocated ASCII tokens of
  // the index side that never occur on their own.
  std::unordered_set<std::string> parts;
  std::unordered_set<std::string> words;
  text::Tokenize(text, [&](const text::TokenView& token) {
    if (!token.colocated) {
      words.emplace(token.text);
    } else if (text::IsAscii(token.text)) {
      parts.emplace(token.text);
    }
  });
  size_t taken = 0;
  for (const std::string& term : terms) {
    if (taken == kKeyWords) break;
    if (parts.contains(term) && !words.contains(term)) continue;
    key += '_';
    key += term;
    ++taken;
  }
  return key;
}

std::optional<Facet> FacetFromEvent(const Event& event, std::string segment_id) {
  std::string_view facet_type;
  if (event.type == kEventPreference) {
    facet_type = kFacetPreference;
  } else if (event.type == kEventFact) {
    facet_type = kFacetContext;
  } else {
    return std::nullopt;
  }
  Facet facet{.facet_type = std::string(facet_type),
              .key = FacetKey(facet_type, event.text),
              .value = event.text,
              .confidence = event.confidence,
              .evidence_count = 1};
  if (!segment_id.empty()) facet.segment_ids.push_back(std::move(segment_id));
  return facet;
}

void MergeFacet(Facet& existing, const Facet& observation) {
  existing.evidence_count += 1;
  for (const std::string& id : observation.segment_ids) {
    if (std::find(existing.segment_ids.begin(), existing.segment_ids.end(), id) ==
        existing.segment_ids.end()) {
      existing.segment_ids.push_back(id);
    }
  }
  if (observation.confidence >= existing.confidence) {
    existing.value = observation.value;
    existing.confidence = observation.confidence;
  }
}

std::string RenderProfile(const std::vector<Facet>& facets) {
  std::vector<const Facet*> sorted;
  sorted.reserve(facets.size());
  for (const Facet& f : facets) sorted.push_back(&f);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Facet* a, const Facet* b) {
    const int rank_a = SectionRank(a->facet_type);
    const int rank_b = SectionRank(b->facet_type);
    if (rank_a != rank_b) return rank_a < rank_b;
    if (a->facet_type != b->facet_type) return a->facet_type < b->facet_type;
    if (a->key != b->key) return a->key < b->key;
    return a->value < b->value;
  });
  std::string out;
  const std::string* section = nullptr;
  for (const Facet* f : sorted) {
    if (section == nullptr || *section != f->facet_type) {
      if (section != nullptr) out += '\n';
      out += "### ";
      out += SectionTitle(f->facet_type);
      out += '\n';
      section = &f->facet_type;
    }
    out += "- ";
    AppendOneLine(f->key, &out);
    out += ": ";
    AppendOneLine(f->value, &out);
    out += " (confirmed ";
    out += std::to_string(f->evidence_count);
    out += "x)\n";
  }
  return out;
}

}  // namespace mnemo::archivist
