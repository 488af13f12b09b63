#include "transport/rpc/memory_wire.h"

#include <cmath>

#include "base/time.h"
#include "core/formats/entry_json.h"

namespace mnemo::transport {

using nlohmann::json;

namespace {

json OptionalString(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

std::string Str(const json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_string()) return {};
  return it->get<std::string>();
}

double Num(const json& j, const char* field) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_number()) return 0;
  return it->get<double>();
}

std::string NoHits(const json& params) { return "No memories found for: " + Str(params, "query"); }

}  // namespace

int ScorePercent(double score) { return static_cast<int>(std::lround(score * 100.0)); }

std::string GetMissText(const std::string& key) { return "No memory entry found for key: " + key; }

json StoreResultToJson(const StoreResult& r) {
  return {{"key", r.key},
          {"namespace", r.ns},
          {"category", r.category},
          {"id", r.id},
          {"created", r.created}};
}

json SearchResponseToJson(const SearchResponse& r) {
  json hits = json::array();
  for (const SearchHit& h : r.results) {
    hits.push_back({{"id", h.id},
                    {"key", h.key},
                    {"namespace", h.ns},
                    {"category", h.category},
                    {"owner", h.owner},
                    {"content", h.content},
                    {"snippet", h.snippet},
                    {"score", h.score},
                    {"keyword_score", h.keyword_score},
                    {"vector_score", h.vector_score ? json(*h.vector_score) : json(nullptr)},
                    {"created_at", internal::FormatRfc3339(h.created_at)},
                    {"updated_at", internal::FormatRfc3339(h.updated_at)}});
    // Which query word matched which stored word (soft term matching).
    if (!h.soft_matches.empty()) {
      json matches = json::array();
      for (const SearchHit::SoftMatch& m : h.soft_matches) {
        matches.push_back({{"query_word", m.query_word},
                           {"stored_word", m.stored_word},
                           {"similarity", m.similarity}});
      }
      hits.back()["soft_matches"] = std::move(matches);
    }
  }
  return {{"results", std::move(hits)}, {"degraded", OptionalString(r.degraded)}};
}

json RecallResponseToJson(const RecallResponse& r) {
  json hits = json::array();
  auto hit_json = [](const RecallHit& h) {
    return json{
        {"source", h.source},     {"id", h.id},           {"key", h.key},    {"namespace", h.ns},
        {"category", h.category}, {"content", h.content}, {"score", h.score}};
  };
  for (const RecallHit& h : r.results) {
    json hit = hit_json(h);
    if (!h.context.empty()) {
      json context = json::array();
      for (const RecallHit& c : h.context) {
        json turn = hit_json(c);
        turn.erase("score");
        context.push_back(std::move(turn));
      }
      hit["context"] = std::move(context);
    }
    hits.push_back(std::move(hit));
  }
  return {{"results", std::move(hits)}, {"degraded", OptionalString(r.degraded)}};
}

json ListPageToJson(const ListPage& page) {
  json items = json::array();
  for (const Entry& e : page.items) items.push_back(EntryToJson(e));
  return {{"items", std::move(items)},
          {"next_offset", page.next_offset ? json(*page.next_offset) : json(nullptr)}};
}

json StatsToJson(const Stats& s) {
  json by_category = json::object();
  for (const auto& [name, n] : s.by_category) by_category[name] = n;
  json by_namespace = json::object();
  for (const auto& [name, n] : s.by_namespace) by_namespace[name] = n;
  return {{"entries", s.entries},
          {"archived", s.archived},
          {"by_category", by_category},
          {"by_namespace", by_namespace},
          {"backend", s.backend},
          {"schema_version", s.schema_version},
          {"embedder",
           {{"provider", s.embedding_provider},
            {"signature", s.embedder_signature},
            {"word_vectors", s.word_vectors}}}};
}

std::string RenderStore(const json& params, const json& result) {
  return "Stored memory: " + Str(result, "key");
}

std::string RenderForget(const json& params, const json& result) {
  bool forgotten = result.value("forgotten", false);
  return (forgotten ? "Forgot memory: " : "No memory found with key: ") + Str(params, "key");
}

std::string RenderEntry(const json& params, const json& e) {
  return "[" + Str(e, "namespace") + "/" + Str(e, "category") + "] " + Str(e, "key") + ": " +
         Str(e, "content");
}

std::string RenderRecall(const json& params, const json& result) {
  std::string out;
  for (const json& h : result.at("results")) {
    if (!out.empty()) out += "\n";
    // A passage's later lines are indented under its hit.
    std::string content = Str(h, "content");
    for (size_t at = content.find('\n'); at != std::string::npos; at = content.find('\n', at + 1)) {
      content.insert(at + 1, "  ");
    }
    out += "- [" + Str(h, "source") + "/" + Str(h, "category") + "] " + Str(h, "key") + ": " +
           content + " [" + std::to_string(ScorePercent(Num(h, "score"))) + "%]";
  }
  return out.empty() ? NoHits(params) : out;
}

std::string RenderSearch(const json& params, const json& result) {
  std::string out;
  for (const json& h : result.at("results")) {
    std::string text = Str(h, "snippet");
    if (text.empty()) text = Str(h, "content");
    if (!out.empty()) out += "\n";
    out += "- [" + Str(h, "namespace") + "/" + Str(h, "category") + "] " + Str(h, "key") + ": " +
           text + " [" + std::to_string(ScorePercent(Num(h, "score"))) + "%]";
  }
  return out.empty() ? NoHits(params) : out;
}

std::string RenderList(const json& params, const json& result) {
  std::string out;
  for (const json& e : result.at("items")) {
    if (!out.empty()) out += "\n";
    out += "- " + RenderEntry(params, e);
  }
  return out.empty() ? "No memories." : out;
}

std::string RenderStats(const json& params, const json& s) {
  std::string out = std::to_string(s.value("entries", int64_t{0})) + " entries (" +
                    std::to_string(s.value("archived", int64_t{0})) + " archived), backend " +
                    Str(s, "backend") + ", schema version " +
                    std::to_string(s.value("schema_version", 0));
  if (const auto e = s.find("embedder"); e != s.end() && e->is_object()) {
    out += "\nembedder " + Str(*e, "provider");
    if (!Str(*e, "signature").empty()) out += " (" + Str(*e, "signature") + ")";
    if (!Str(*e, "word_vectors").empty()) out += ", word vectors " + Str(*e, "word_vectors");
  }
  for (const char* group : {"by_category", "by_namespace"}) {
    for (const auto& [name, n] : s.at(group).items()) {
      out += "\n  " + std::string(group + 3) + " " + name + ": " + n.dump();
    }
  }
  return out;
}

std::string RenderMarkUseful(const json& params, const json& e) {
  return "Marked useful: " + Str(e, "key") + " (useful_count " +
         std::to_string(e.value("useful_count", int64_t{0})) + ")";
}

}  // namespace mnemo::transport
