#include "context/documents.h"

#include <string>
#include <utility>
#include <vector>

#include "context/graph.h"
#include "context/graph_extract.h"
#include "text/entities/entities.h"
#include "text/keywords.h"
#include "text/phatic.h"
#include "text/summary.h"

namespace mnemo::context {

std::string EncodeEntity(std::string_view kind, std::string_view text) {
  std::string out(kind);
  out += ':';
  out += text;
  return out;
}

std::pair<std::string_view, std::string_view> DecodeEntity(std::string_view encoded) {
  const size_t colon = encoded.find(':');
  if (colon == std::string_view::npos) return {std::string_view(), encoded};
  return {encoded.substr(0, colon), encoded.substr(colon + 1)};
}

namespace {

// `text` without the speaker labels lines start with ("user:", "assistant:",
// "[tool] <name>:", the ones triples read): a summary or tag is about the
// content, and in a segment document every line has a label.
std::string WithoutSpeakerLabels(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = text.find('\n', start);
    std::string_view line =
        text.substr(start, (end == std::string_view::npos ? text.size() : end) - start);
    internal::TakeSpeaker(line);
    out.append(line);
    if (end == std::string_view::npos) break;
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace

Result<DocumentFields> DeriveFields(storage::DocumentStore& documents,
                                    std::string_view labelled_computation_text) {
  const std::string computation_text = WithoutSpeakerLabels(labelled_computation_text);
  DocumentFields fields;
  fields.summary = text::ExtractiveSummary({computation_text}, kSummaryMaxBytes, {});
  MNEMO_ASSIGN_OR_RETURN(int64_t n_docs, documents.CountDocuments(std::nullopt));
  Status df_error;
  const text::DocFreqFn df = [&](std::string_view token) -> int64_t {
    const std::string terms[] = {std::string(token)};
    Result<std::vector<int64_t>> counts = documents.DocumentFrequencies(terms);
    if (!counts.ok() || counts->size() != 1) {
      if (df_error.ok()) df_error = counts.ok() ? Internal("document frequency") : counts.status();
      return 0;
    }
    return (*counts)[0];
  };
  // Tags from what the text is about: small talk ("thanks", "bye") is not a
  // topic.
  fields.tags =
      text::TopKeywords(text::WithoutPhaticSentences(computation_text), kMaxTags, df, n_docs);
  MNEMO_RETURN_IF_ERROR(df_error);
  for (const text::Entity& e : text::ExtractEntities(computation_text)) {
    if (fields.entities.size() == kMaxEntities) break;
    fields.entities.push_back(EncodeEntity(text::EntityKindName(e.kind), e.text));
  }
  return fields;
}

Result<storage::DocumentPut> StoreDocument(storage::DocumentStore& documents,
                                           storage::GraphStore& graph, NewDocument doc) {
  MNEMO_ASSIGN_OR_RETURN(DocumentFields fields, DeriveFields(documents, doc.computation_text));
  storage::DocumentRow row;
  row.owner = std::move(doc.owner);
  row.source = std::move(doc.source);
  row.meta = std::move(doc.meta);
  row.content = std::move(doc.content);
  row.search_text = std::move(doc.computation_text);
  row.summary = std::move(fields.summary);
  row.tags = std::move(fields.tags);
  row.entities = std::move(fields.entities);
  row.created_at = doc.now;
  row.updated_at = doc.now;
  MNEMO_ASSIGN_OR_RETURN(storage::DocumentPut put, documents.PutDocument(row));
  // Distilled once, when the content is new (spec 50, "Graph"): a second
  // put of old evidence must not supersede newer facts.
  if (put.created) {
    std::vector<ExtractedTriple> triples = ExtractTriplesFromText(put.row.search_text);
    if (doc.user_predicate_elsewhere != nullptr) {
      std::erase_if(triples, [&](const ExtractedTriple& t) {
        return t.subject == kUserSubject && doc.user_predicate_elsewhere(t.predicate);
      });
    }
    MNEMO_RETURN_IF_ERROR(
        StoreTriples(graph, put.row.owner, put.row.id, doc.now, triples).status());
  }
  return put;
}

}  // namespace mnemo::context
