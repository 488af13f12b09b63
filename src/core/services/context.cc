// mnemo::Context (mnemo/context.h): the context window of spec 50 (append,
// window, prune into documents) and the context block, built by recall.
#include "mnemo/context.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "context/context_window.h"
#include "context/documents.h"
#include "core/audit_record.h"
#include "core/formats/context_event_json.h"
#include "core/search/recall_service.h"
#include "core/services/context_options.h"
#include "core/validation.h"
#include "storage/context_event_store.h"
#include "storage/document_store.h"
#include "storage/graph_store.h"
#include "storage/values.h"
#include "text/pipeline/query.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

// Rendered events of one archive document are joined by a blank line.
constexpr std::string_view kEventSeparator = "\n\n";

struct LoadedEvent {
  storage::ContextEventRow row;
  ContextEvent event;
  std::string text;  // RenderEvent
};

Result<std::vector<LoadedEvent>> LoadEvents(storage::ContextEventStore& events,
                                            std::string_view owner, const SessionId& session_id) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<storage::ContextEventRow> rows,
                         events.ContextEvents(owner, session_id));
  std::vector<LoadedEvent> out;
  out.reserve(rows.size());
  for (storage::ContextEventRow& r : rows) {
    Result<ContextEvent> event = ParseContextEvent(r.event_json);
    if (!event.ok()) {
      return Internal("context event " + std::to_string(r.seq) + " of session " + r.session_id +
                      " cannot be read: " + event.status().message());
    }
    std::string text = context::RenderEvent(*event);
    out.push_back({.row = std::move(r), .event = std::move(*event), .text = std::move(text)});
  }
  return out;
}

std::string ArchiveSource(std::string_view session_id, int64_t first_seq, int64_t last_seq) {
  return ContextArchiveSourcePrefix(session_id) + std::to_string(first_seq) + "-" +
         std::to_string(last_seq);
}

bool AllDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::string ContextArchiveSourcePrefix(std::string_view session_id) {
  return "context:" + std::string(session_id) + "#seq";
}

bool IsContextArchiveOf(std::string_view source, std::string_view session_id) {
  const std::string prefix = ContextArchiveSourcePrefix(session_id);
  if (!source.starts_with(prefix)) return false;
  const std::string_view range = source.substr(prefix.size());
  const size_t dash = range.find('-');
  return dash != std::string_view::npos && AllDigits(range.substr(0, dash)) &&
         AllDigits(range.substr(dash + 1));
}

internal::ContextOptions internal::ContextOptionsOf(const Config& config, ToolRegistryFn registry) {
  return {.enabled = config.memory.enabled,
          .max_event_bytes = config.server.max_body_bytes,
          .registry = std::move(registry)};
}

Context::Context(storage::ContextEventStore& events, storage::DocumentStore& documents,
                 storage::GraphStore& graph, RecallService& recall, internal::AuditLog* audit,
                 std::shared_ptr<Clock> clock, internal::ContextOptions options)
    : events_(events),
      documents_(documents),
      graph_(graph),
      recall_(recall),
      audit_(audit),
      clock_(std::move(clock)),
      options_(std::make_unique<const internal::ContextOptions>(std::move(options))) {}

Context::~Context() = default;

Result<ContextBlock> Context::Build(const Principal& who, const ContextBuildRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.context_build");
  return audit.End([&]() -> Result<ContextBlock> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_ASSIGN_OR_RETURN(const Query query, Query::Parse(req.query));
    std::optional<SessionId> session;
    if (req.session_id) {
      MNEMO_ASSIGN_OR_RETURN(session, SessionId::Parse(*req.session_id));
    }
    return recall_.ContextBuild(who, query, session, req);
  }());
}

Result<ContextAppendResult> Context::Append(const Principal& who, const ContextAppendRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.context_append");
  return audit.End([&]() -> Result<ContextAppendResult> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_RETURN_IF_ERROR(SessionId::Parse(req.session_id).status());
    ContextEvent event = req.event;
    std::string raw = req.raw_json;
    if (raw.empty()) {
      raw =
          ContextEventToJson(event).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    // Every reader of the window gets this text back: it gets a request
    // body's limits before it is stored.
    MNEMO_RETURN_IF_ERROR(internal::CheckJsonLimits(raw, "event_json", options_->max_event_bytes));
    // The stored text is the one source of the event: whatever came in is read
    // back exactly as a window will read it.
    MNEMO_ASSIGN_OR_RETURN(event, ParseContextEvent(raw));
    // Another process may have registered tools since (their no_memory and
    // cleaners decide what is indexed).
    MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* tools, options_->registry());
    const TimeMs now = clock_->NowMs();
    storage::ContextEventRow row{.owner = who.name,
                                 .session_id = req.session_id,
                                 .event_json = std::move(raw),
                                 .search_text = context::EventComputationText(*tools, event),
                                 .timestamp_ms = event.timestamp.value_or(now),
                                 .created_at = now};
    MNEMO_ASSIGN_OR_RETURN(storage::ContextEventRow stored, events_.AppendContextEvent(row));
    return ContextAppendResult{
        .session_id = req.session_id,
        .seq = stored.seq,
        .chars = static_cast<int64_t>(text::CountCodePoints(context::RenderEvent(event)))};
  }());
}

Result<ContextWindow> Context::Window(const Principal& who, const ContextWindowRequest& req) {
  internal::AuditRecord audit(audit_, who, "memory.context_window");
  return audit.End([&]() -> Result<ContextWindow> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_ASSIGN_OR_RETURN(const SessionId session, SessionId::Parse(req.session_id));
    if (req.budget_chars < 1 || req.budget_chars > kMaxWindowBudgetChars) {
      return InvalidArgument(
          "budget_chars must be between 1 and " + std::to_string(kMaxWindowBudgetChars),
          "budget_chars");
    }
    if (req.protected_count < 0 || req.protected_count > kMaxProtectedEvents) {
      return InvalidArgument(
          "protected must be between 0 and " + std::to_string(kMaxProtectedEvents), "protected");
    }
    MNEMO_RETURN_IF_ERROR(ValidateQueryLength(req.query));
    MNEMO_ASSIGN_OR_RETURN(std::vector<LoadedEvent> events, LoadEvents(events_, who.name, session));
    // Keyword relevance over the events' computation text. (A vector side
    // would need event vectors, which are not stored.)
    std::map<int64_t, double> score_of;  // by event id
    const std::vector<std::string> terms = text::QueryTerms(req.query);
    if (!terms.empty() && !events.empty()) {
      MNEMO_ASSIGN_OR_RETURN(
          std::vector<storage::ContextEventHit> hits,
          events_.SearchContextEvents(
              {.terms = terms,
               .all = false,
               .owner = who.name,
               .session_id = session,
               .limit = static_cast<int>(std::min<size_t>(events.size(), INT32_MAX))}));
      for (const storage::ContextEventHit& h : hits) score_of[h.row.id] = h.score;
    }
    std::vector<context::WindowItem> items;
    items.reserve(events.size());
    for (const LoadedEvent& e : events) {
      auto it = score_of.find(e.row.id);
      items.push_back({.chars = static_cast<int64_t>(text::CountCodePoints(e.text)),
                       .score = it == score_of.end() ? 0.0 : it->second});
    }
    ContextWindow out{.session_id = req.session_id,
                      .total_events = static_cast<int64_t>(events.size())};
    for (const context::WindowPick& pick :
         context::SelectWindow(items, static_cast<size_t>(req.protected_count), req.budget_chars)) {
      LoadedEvent& e = events[pick.index];
      std::string text = std::move(e.text);
      if (pick.truncated) {
        text.resize(text::Utf8PrefixBytes(text, static_cast<size_t>(pick.chars)));
      }
      out.used_chars += pick.chars;
      out.events.push_back({.seq = e.row.seq,
                            .event = std::move(e.event),
                            .raw_json = std::move(e.row.event_json),
                            .text = std::move(text),
                            .chars = pick.chars,
                            .is_protected = pick.is_protected,
                            .truncated = pick.truncated,
                            .score = items[pick.index].score,
                            .timestamp = e.row.timestamp_ms});
    }
    return out;
  }());
}

Result<ContextPruneResult> Context::Prune(const Principal& who, std::string_view session_id,
                                          int64_t keep) {
  internal::AuditRecord audit(audit_, who, "memory.context_prune");
  return audit.End([&]() -> Result<ContextPruneResult> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_ASSIGN_OR_RETURN(const SessionId session, SessionId::Parse(std::string(session_id)));
    if (keep < 0) return InvalidArgument("keep must be >= 0", "keep");
    MNEMO_ASSIGN_OR_RETURN(std::vector<LoadedEvent> events, LoadEvents(events_, who.name, session));
    ContextPruneResult out{.session_id = std::string(session_id)};
    const size_t n = events.size();
    const size_t pruned = n > static_cast<size_t>(keep) ? n - static_cast<size_t>(keep) : 0;
    out.kept = static_cast<int64_t>(n - pruned);
    if (pruned == 0) return out;
    // Archived first, deleted after: a crash in between leaves the events in
    // the window, and the next prune finds its documents already stored (an
    // owner's identical content is stored once). One document per run of
    // events whose rendered text stays within the 1 MiB of a doc_put.
    const TimeMs now = clock_->NowMs();
    size_t begin = 0;
    while (begin < pruned) {
      std::string content = events[begin].text;
      std::string computation = events[begin].row.search_text;
      size_t end = begin + 1;
      while (end < pruned && content.size() + kEventSeparator.size() + events[end].text.size() <=
                                 kMaxContentBytes) {
        content.append(kEventSeparator).append(events[end].text);
        computation.append(kEventSeparator).append(events[end].row.search_text);
        ++end;
      }
      const int64_t first_seq = events[begin].row.seq;
      const int64_t last_seq = events[end - 1].row.seq;
      const nlohmann::json meta = {{"session_id", session_id},
                                   {"first_seq", first_seq},
                                   {"last_seq", last_seq},
                                   {"events", end - begin}};
      std::string source = ArchiveSource(session_id, first_seq, last_seq);
      MNEMO_ASSIGN_OR_RETURN(
          storage::DocumentPut put,
          context::StoreDocument(
              documents_, graph_,
              {.owner = who.name,
               .source = source,
               .meta = meta.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
               .content = std::move(content),
               .computation_text = std::move(computation),
               .now = now}));
      out.documents.push_back({.document_id = std::move(put.row.id),
                               .source = std::move(source),
                               .first_seq = first_seq,
                               .last_seq = last_seq,
                               .created = put.created});
      begin = end;
    }
    MNEMO_ASSIGN_OR_RETURN(
        out.pruned, events_.DeleteContextEventsUpTo(who.name, session, events[pruned - 1].row.seq));
    return out;
  }());
}

}  // namespace mnemo
