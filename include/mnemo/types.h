// Plain value types of the public API. No behaviour beyond trivial helpers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mnemo/status.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

enum class Role { kUser, kAdmin };

// Who is calling. Comes from the transport (bearer token, --principal) or the
// configured default ("local"). With ACL off every caller acts as an admin of
// its own single-user store.
struct Principal {
  std::string name = "local";
  Role role = Role::kAdmin;
};

enum class Visibility { kPrivate, kPublic };

// Timestamps are milliseconds since the Unix epoch, UTC; rendered as RFC3339.
using TimeMs = int64_t;

// A memory entry (spec 10). Unique per (owner, namespace, key).
struct Entry {
  std::string id;  // UUID, stable across upserts
  std::string key;
  std::string content;  // byte for byte as stored
  std::string category = "core";
  std::string ns = "global";  // "namespace" on the wire
  std::vector<std::string> tags;
  std::string owner = "local";
  Visibility visibility = Visibility::kPrivate;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
  int64_t access_count = 0;
  int64_t useful_count = 0;
  bool archived = false;
};

struct StoreRequest {
  std::string key;
  std::string content;
  std::string category = "core";
  std::string ns = "global";
  std::optional<std::vector<std::string>> tags;  // absent: keep on upsert
  std::optional<Visibility> visibility;          // absent: keep on upsert (private when new)
  // Bring-your-own vector (spec 20): stored in the space `external:<dim>`
  // beside the embedder's own vector. Normalised by the engine.
  std::optional<std::vector<float>> embedding;
};

struct StoreResult {
  std::string key;
  std::string ns;
  std::string category;
  std::string id;
  bool created = false;
};

struct GetRequest {
  std::string key;
  std::string ns = "global";
  std::optional<std::string> owner;  // admin only: address one principal's entry
};

struct ForgetRequest {
  std::string key;
  std::string ns = "global";
  std::optional<std::string> owner;  // admin only
};

// A time window (RFC 3339 `since`/`until` on the wire): since inclusive,
// until exclusive, either may be absent. Entries are compared by
// updated_at (when their content was written), turns by their timestamp.
struct TimeWindow {
  std::optional<TimeMs> since;
  std::optional<TimeMs> until;
  bool empty() const { return !since && !until; }
};

struct SearchRequest {
  std::string query;
  std::optional<std::string> category;
  std::optional<std::string> ns;  // absent: every non-system namespace
  // Only namespaces starting with it ("users.alice." for the tree under
  // users.alice); not with `ns`.
  std::optional<std::string> ns_prefix;
  std::vector<std::string> tags;    // all must match
  int max_results = 20;             // 1..100
  std::optional<double> min_score;  // absent: search.min_relevance_score
  bool include_archived = false;
  // Bring-your-own query vector: the vector side searches `external:<dim>`
  // instead of embedding the query.
  std::optional<std::vector<float>> embedding;
  TimeWindow window;
  // 0..1: the share of the final score given to recency, 2^(-age / 30 days)
  // of updated_at (fusion.h). 0 (default): relevance only.
  double recency_weight = 0;
};

struct SearchHit {
  std::string id;
  std::string key;
  std::string ns;
  std::string category;
  std::string owner;
  std::string content;
  std::string snippet;  // best passage, <= 200 chars, matched terms in **
  double score = 0;     // final score in [0,1]
  double keyword_score = 0;
  std::optional<double> vector_score;  // absent when no vector side took part
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
  // Soft term matching (spec 20): each query word that had no exact match
  // here and counted through a word of this entry of similar meaning.
  struct SoftMatch {
    std::string query_word;
    std::string stored_word;
    double similarity = 0;  // cosine of the two words' vectors
  };
  std::vector<SoftMatch> soft_matches;
};

struct SearchResponse {
  std::vector<SearchHit> results;
  std::optional<std::string> degraded;  // e.g. "embedder_unavailable"
};

struct RecallRequest {
  std::string query;
  std::optional<std::string> ns;
  int max_results = 20;  // 1..100
  // Neighbouring turns (0..kMaxContextTurns each side, same session) returned
  // with each turn hit in RecallHit::context.
  int context_turns = 0;
  // Entries and turns inside the window, turns of this agent only. Either
  // leaves out what was derived from many turns (recaps, events, documents),
  // which has no single time or agent.
  TimeWindow window;
  std::optional<std::string> agent_id;
  // 0..1: the share of the score given to recency (SearchRequest's formula),
  // for entries by updated_at and turns by their timestamp.
  double recency_weight = 0;
};

// A recall hit from any memory layer.
struct RecallHit {
  std::string source = "entry";  // entry, tool_rule, turn, segment, event, document
  std::string id;
  std::string key;
  std::string ns;
  std::string category;
  std::string content;
  double score = 0;
  // Turn hits with RecallRequest::context_turns > 0: the neighbouring turns
  // of the same session, by sequence number, the hit itself excluded.
  std::vector<RecallHit> context;
};

struct RecallResponse {
  std::vector<RecallHit> results;
  std::optional<std::string> degraded;
};

struct ListRequest {
  std::optional<std::string> category;
  std::optional<std::string> ns;         // absent: every non-system namespace
  std::optional<std::string> ns_prefix;  // as in SearchRequest
  bool include_archived = true;
  int limit = 50;  // 1..1000
  int64_t offset = 0;
};

struct ListPage {
  std::vector<Entry> items;
  std::optional<int64_t> next_offset;
};

struct Stats {
  int64_t entries = 0;
  int64_t archived = 0;
  std::vector<std::pair<std::string, int64_t>> by_category;   // sorted by name
  std::vector<std::pair<std::string, int64_t>> by_namespace;  // sorted by name
  std::string backend;
  int schema_version = 0;
  // The active embedder, named as memory.health names it: its provider
  // ("words", "hash" — also when "words" runs without its file —, "openai",
  // "ollama", "none"), its signature ("" without an embedder) and the
  // word-vector file, "<path> (<source name> <version>, sha256 <checksum>)"
  // ("" with another embedder).
  std::string embedding_provider;
  std::string embedder_signature;
  std::string word_vectors;
};

// One line of the audit log (spec 10, "Audit"): the address an operation
// touched and how it ended, never content.
struct AuditEvent {
  std::string method;  // "memory.get"
  std::string ns;      // "" when the operation has none
  std::string key;
  std::string category;
  std::string outcome;  // ok, not_found, denied, invalid, error; redacted (spec 40)
  double duration_ms = 0;
  int64_t count = 0;  // redacted: how many secrets
  // An erasure's counts by kind (ErasureCounts::Named), never content.
  std::vector<std::pair<std::string, int64_t>> erased;
};

// memory.path_protected (spec 10, "Files").
struct PathCheck {
  bool is_protected = false;
  std::string resolved;  // the path with symlinks, `.` and `..` resolved
  std::string reason;    // what it belongs to ("" when not protected)
};

// mnemo hygiene run / memory.hygiene_run (spec 10).
struct HygieneReport {
  TimeMs ran_at = 0;
  int64_t scanned = 0;        // entries looked at (every namespace)
  int64_t archived = 0;       // daily and custom categories past archive_after_days
  int64_t deleted = 0;        // conversation entries past conversation_retention_days
  int64_t exempt_useful = 0;  // would have gone, kept because useful_count >= 3
};

struct ReindexReport {
  std::string signature;        // the embedder's space ("" without an embedder)
  int64_t embedded = 0;         // vectors computed and stored
  int64_t failed = 0;           // left pending (embedder errors)
  int64_t indexed = 0;          // vectors in the rebuilt index
  int64_t recaps_embedded = 0;  // segment recaps that lacked a vector of the space
  // Keyword index rows rebuilt from stored text and the current tool
  // registry (spec 50): assistant turn rows and documents' derived fields.
  int64_t turns_reindexed = 0;
  int64_t documents_reindexed = 0;
  int64_t triples_derived = 0;   // documents' stored triples their text still yields (kept)
  int64_t cleaner_failures = 0;  // tool outputs whose cleaner failed (raw output indexed)
};

struct ImportReport {
  int64_t imported = 0;  // lines written (created or updated)
  int64_t created = 0;   // entries that were new
  int version = 1;       // of the file: 1 (entries only) or 2 (a whole workspace)
  // Version 2: records read, by the header's count names ("entries",
  // "turns", ...), and how many of them --merge skipped (already stored).
  std::map<std::string, int64_t> records;
  int64_t skipped = 0;
};

struct ExportOptions {
  // Also carry bring-your-own vectors (signatures "external:<dims>");
  // embedder vectors are never exported (import recomputes them).
  bool with_vectors = false;
};

struct ImportOptions {
  // Version 2 files: add to a workspace that already holds rows (rows
  // already stored are kept and skipped) instead of refusing it.
  bool merge = false;
};

// `mnemo import --from FORMAT PATH` (Admin::ImportForeign): memory kept by
// another tool. The formats and what each becomes are in docs/storage.md
// ("Imports from other tools").
struct ForeignImportOptions {
  // mcp-memory, mem0, basic-memory, markdown or jsonl.
  std::string format;
  // The namespace of the entries; "" = the format's own (mcp-memory, mem0,
  // basic-memory, markdown), "global" for jsonl (whose lines may name one).
  std::string ns;
  // Read, check and count what would be written; write nothing.
  bool dry_run = false;
};

struct ForeignImportReport {
  std::string format;
  int64_t files = 0;  // files read
  // Entries: new, changed (content, category or tags) and already stored as
  // they are (not written again, so a second run changes nothing).
  int64_t entries_created = 0;
  int64_t entries_updated = 0;
  int64_t entries_unchanged = 0;
  int64_t documents_created = 0;
  int64_t documents_unchanged = 0;  // the owner already holds the same content
  int64_t triples_created = 0;
  int64_t triples_unchanged = 0;  // the owner already holds the same current fact
  // What was left out and why, by file and line (line 0: the whole file).
  struct Skip {
    std::string file;
    int64_t line = 0;
    std::string reason;
  };
  std::vector<Skip> skipped;  // the first kMaxReported
  int64_t skipped_count = 0;  // all of them
  bool dry_run = false;
  static constexpr size_t kMaxReported = 1000;
};

// --- Tool-scoped rules (spec 30) ---

// Ordered: a higher value is a higher priority.
enum class RulePriority { kNormal = 0, kHigh = 1, kCritical = 2 };
enum class RuleSource { kProgrammatic, kUserExplicit, kPostTurn };

// A rule about one tool, stored in namespace `tool-{tool_name}` under key
// `rule/{id}`. `tool_name` "*" holds unscoped rules (no tool known).
struct ToolRule {
  std::string id;
  std::string tool_name;  // trimmed, lower-cased
  std::string rule;       // the guidance, as written
  RulePriority priority = RulePriority::kNormal;
  RuleSource source = RuleSource::kProgrammatic;
  std::vector<std::string> tags;
  std::string owner = "local";  // the principal that stored it
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
};

struct ToolRulePut {
  std::string tool_name;
  std::string rule;
  std::optional<RulePriority> priority;  // absent: normal (or kept on an upsert by id)
  std::optional<RuleSource> source;      // absent: programmatic (or kept)
  std::vector<std::string> tags;
  std::optional<std::string> id;  // absent or blank: a new rule (or a refreshed duplicate)
};

// The pinned block of `rules_for_prompt` and the rules it shows.
struct PromptRules {
  std::string rendered;  // "" when there are no rules
  std::vector<ToolRule> rules;
};

// --- Tool registry (spec 50): how a tool's output takes part in computation ---

// A C++ cleaner: the text that takes part in computation, or an error (a
// cleaner failure: the raw output is used and the failure counted).
using ToolCleanerFn = std::function<Result<std::string>(std::string_view output)>;

struct ToolSpec {
  std::string name;  // trimmed and lower-cased like tool-rule tool names
  std::string plugin;
  std::string description;
  bool no_memory = false;  // true: the output takes no part in any computation
  // Declarative cleaner steps as JSON text (spec 50), e.g.
  // `[{"json_field": "content"}]`; "" = none. Nesting at most 64 levels (and
  // when registered, at most server.max_body_bytes bytes).
  std::string cleaner;
  // C++ only (Tools::Register; never persisted): used instead of
  // `cleaner` when set.
  ToolCleanerFn cleaner_fn;
};

// A tool as the registry holds it.
struct ToolInfo {
  std::string name;
  std::string plugin;
  std::string description;
  bool no_memory = false;
  std::string cleaner;      // canonical JSON of the steps ("" = none)
  bool cleaner_fn = false;  // a C++ cleaner is set
  std::string source;       // "config" | "registered" | "code"
};

// --- Turns (memory.turn_complete; spec 30 capture, spec 40 Archivist) ---

struct ToolCall {
  std::string name;
  // The call's arguments as JSON text: at most server.max_body_bytes bytes
  // nesting at most 64 levels (kInvalidArgument naming
  // "tool_calls[i].arguments").
  std::string arguments_json = "{}";
  bool success = true;
  std::string output;
  int64_t duration_ms = 0;
  std::optional<std::string> clean_output;  // caller-supplied cleaned output (spec 50)
};

struct Turn {
  std::string session_id;
  // Each at most kMaxContentBytes (mnemo/limits.h), as are a tool call's
  // output and clean_output.
  std::string user_message;
  std::string assistant_response;
  std::vector<ToolCall> tool_calls;  // in the order they ran
  std::optional<TimeMs> timestamp;   // absent: now
  std::string agent_id;
  int64_t cost_microdollars = 0;
  bool sync = false;  // wait for background work (segment close)
  // The harness's id of this turn (1-kMaxTurnIdBytes bytes), for safe retries: a repeat
  // with the same (principal, session_id, turn_id) stores nothing and returns
  // the first call's result (TurnResult::replayed). Absent: every call is a
  // new turn, even with the same text.
  std::optional<std::string> turn_id;
};

// One episodic row (spec 40): a turn gives a user row, then an assistant row.
struct EpisodicTurn {
  int64_t id = 0;
  std::string session_id;
  int64_t seq = 0;   // per session, in the order the turns arrived
  std::string role;  // "user" | "assistant"
  std::string content;
  std::string lesson;           // assistant rows: "Tools that failed in this turn: ..."
  std::string tool_calls_json;  // assistant rows: the calls as stored ("" when none)
  TimeMs timestamp = 0;
  int64_t cost_microdollars = 0;
  std::string agent_id;
  std::string owner = "local";
};

struct EpisodicQuery {
  std::string query;
  std::optional<std::string> session_id;
  int limit = 20;  // 1..100
  // Neighbouring turns (0..kMaxContextTurns each side, same session)
  // returned with each hit in EpisodicHit::context.
  int context_turns = 0;
  TimeWindow window;                    // turns said inside it
  std::optional<std::string> agent_id;  // turns of this agent only
  double recency_weight = 0;            // 0..1, SearchRequest's formula, by turn time
};

struct EpisodicHit {
  EpisodicTurn turn;
  double score = 0;                   // [0, 1]
  std::string snippet;                // best passage, matched terms in **
  std::vector<EpisodicTurn> context;  // the hit's neighbours by seq, itself excluded
};

struct TurnResult {
  // The episodic rows this turn stored (absent when episodic capture is off).
  std::optional<EpisodicTurn> user_row;
  std::optional<EpisodicTurn> assistant_row;
  int redactions = 0;             // secrets replaced by [REDACTED] in the stored rows
  std::string segment_id;         // the open segment this turn belongs to
  std::string closed_segment_id;  // the segment this turn closed ("" = none)
  // Rules this turn created (spec 30): user edicts and repeated failures.
  std::vector<ToolRule> new_rules;
  // Existing rules this turn refreshed (a repeated edict or failure).
  std::vector<ToolRule> refreshed_rules;
  bool rules_captured = false;  // false when capture is switched off
  // True when this is the answer of an earlier call with the same turn_id:
  // nothing was stored by this call. The fields are those of the first call
  // (its rows read back from the store); when the first call failed part
  // way, what it had stored (rules_captured false when capture did not
  // finish).
  bool replayed = false;
};

// The markdown archive's background queue (Archivist::ArchiveQueue).
struct ArchiveQueueStats {
  int64_t bound = 0;     // learning.archive_queue_rows
  int64_t depth = 0;     // rows waiting now
  int64_t peak = 0;      // the most rows that ever waited at once
  int64_t written = 0;   // rows handled (written, kept or failed)
  int64_t problems = 0;  // rows that failed or whose file already existed
};

// A segment of a conversation (spec 40).
struct SegmentInfo {
  std::string id;
  std::string session_id;
  std::string status;  // open | closed
  int64_t first_seq = 0;
  int64_t last_seq = 0;
  int64_t turn_count = 0;
  TimeMs started_at = 0;
  TimeMs last_turn_at = 0;
  TimeMs closed_at = 0;
  std::string recap;
  std::string recap_source;  // "" | llm | extractive
};

struct SessionEndResult {
  bool closed = false;     // false: no open segment (already ended)
  std::string segment_id;  // the segment closed
};

// What an erasure removed (spec 10, "Erasure"): memory.session_forget,
// memory.principal_forget. Counts of rows, never their content.
struct ErasureCounts {
  int64_t entries = 0;        // memory entries, tool rules and statistics included
  int64_t entry_vectors = 0;  // their vectors (every signature)
  int64_t turns = 0;          // episodic turn rows
  int64_t segments = 0;
  int64_t recaps = 0;         // indexed segment recaps
  int64_t recap_vectors = 0;  // segment recap vectors (every signature)
  int64_t events = 0;
  int64_t facets_removed = 0;  // facets whose only evidence was erased
  int64_t facets_reduced = 0;  // facets that lost some evidence and stay
  int64_t documents = 0;
  int64_t context_events = 0;
  int64_t triples = 0;
  int64_t archive_files = 0;  // markdown archive files (the engine's, not storage's)

  ErasureCounts& operator+=(const ErasureCounts& o);
  // Every count with its name ("entries", "turns", ...), in declaration order.
  std::vector<std::pair<std::string, int64_t>> Named() const;
};

// memory.session_forget: one conversation of `owner` (the caller when
// absent; naming another owner needs the admin role under ACL).
struct SessionForgetRequest {
  std::string session_id;
  std::optional<std::string> owner;
};

// An event of a closed segment (decision, commitment, reminder, preference,
// fact).
struct EventInfo {
  std::string id;
  std::string session_id;
  std::string segment_id;
  std::string type;
  std::string text;
  double confidence = 0;
  TimeMs created_at = 0;
  double score = 0;  // with a query: keyword score in [0, 1]
  // A commitment or reminder the user said was done: when (spec 40 §4);
  // 0 while open. A closed one is kept here and in the export but leaves
  // memory.context_build.
  TimeMs closed_at = 0;
};

struct EventsQuery {
  std::optional<std::string> type;
  std::string query;  // "" = newest first
  int limit = 20;     // 1..100
};

// A profile facet: what the user prefers (preference) or who they are (context).
// An earlier value of a profile slot, valid over [valid_from, valid_to)
// (valid_to == valid_from: stated but never current, spec 40 §5).
struct ProfileValue {
  std::string value;
  double confidence = 0;
  std::string evidence;  // the sentence that stated it ("" when stated directly)
  TimeMs valid_from = 0;
  TimeMs valid_to = 0;
};

// A profile facet (spec 40 §5): a slot with its current value and history.
struct ProfileFacet {
  std::string owner;  // the principal it is about
  std::string facet_type;
  std::string key;
  std::string value;
  double confidence = 0;
  int64_t evidence_count = 0;  // observations of the current value
  std::vector<std::string> segment_ids;
  TimeMs updated_at = 0;
  TimeMs valid_from = 0;              // when the current value was first stated
  std::string evidence;               // its sentence ("" when stated directly)
  std::vector<ProfileValue> history;  // earlier values, oldest first
};

// memory.profile.
struct ProfileRequest {
  // What was true then: each facet with the value it had at as_of (its
  // current one, or the history's value valid then), facets first stated
  // later left out. A past value's evidence_count and segment_ids are 0 and
  // empty (they count the current value's observations).
  std::optional<TimeMs> as_of;
};

// memory.update_memory_md (spec 40).
struct MemoryMdRequest {
  std::string file;               // MEMORY.md or SKILL.md
  std::string action = "append";  // append | replace_section
  std::string section_title;      // replace_section: the title without "## "
  std::string content;
};

struct MemoryMdReport {
  std::string file;
  int64_t bytes = 0;  // the file's size after the write
  bool section_created = false;
};

// A subject–predicate–object fact of the graph (spec 50). Predicates are
// normalised ("lives in" = "lives_in"); subject and object compare
// case-insensitively for ASCII letters. First person in extracted text is
// the subject "user".
struct Triple {
  std::string id;  // UUID
  std::string subject;
  std::string predicate;
  std::string object;
  double confidence = 0;  // [0, 1]
  std::string source;     // the document it was extracted from, or the caller's source
  std::string sentence;   // the sentence it was extracted from ("" when stated)
  TimeMs valid_from = 0;
  TimeMs valid_to = 0;  // 0: current; else when a newer fact superseded it
  TimeMs created_at = 0;
  std::string owner;
};

// memory.graph_upsert: a stated fact.
struct GraphUpsertRequest {
  std::string subject;
  std::string predicate;
  std::string object;
  std::optional<double> confidence;  // absent: 0.9, like other stated facts (spec 40)
  std::string source;
};

struct GraphUpsertResult {
  Triple triple;                        // as stored
  bool created = false;                 // false: an identical current triple was refreshed
  std::vector<std::string> superseded;  // ids of the triples it ended (single-valued predicates)
};

// memory.graph_query: every filter given must match.
struct GraphQueryRequest {
  std::optional<std::string> subject;
  std::optional<std::string> predicate;
  std::optional<std::string> object;
  bool include_history = false;  // false: current triples only
  int limit = 100;               // 1..1000
  // What was true then: triples with valid_from <= as_of < valid_to (or
  // still current); include_history is then ignored.
  std::optional<TimeMs> as_of;
};

// memory.context_build (spec 50, "Context block").
struct ContextBuildRequest {
  std::optional<std::string> session_id;  // recaps of this conversation's earlier segments
  std::string query;
  std::string preset = "balanced";      // minimal, balanced, extended, maximum
  std::optional<int64_t> budget_chars;  // absent: the preset's budget
  // As RecallRequest's: entries and turns inside the window, turns of this
  // agent; recaps and documents are left out when either is given.
  TimeWindow window;
  std::optional<std::string> agent_id;
};

struct ContextBlockSection {
  std::string name;
  int64_t items = 0;
  int64_t chars = 0;
};

struct ContextBlock {
  std::string text;  // what the harness injects; at most budget_chars code points
  std::string preset;
  int64_t budget_chars = 0;
  int64_t used_chars = 0;
  std::vector<ContextBlockSection> sections;
};

// --- Documents (spec 50): memory.doc_put and friends ---

// A document is its owner's: under ACL nobody else reads, finds, lists or
// deletes it (another principal's document is "not found", like a missing
// one); with ACL off every principal reads every document.
struct DocumentPutRequest {
  std::string content;  // stored byte for byte; its computation text is itself
  std::string source;   // provenance ("" = none), at most 1024 bytes
  // A JSON object's text ("" = none), at most server.max_body_bytes bytes
  // nesting at most 64 levels.
  std::string meta;
};

struct DocumentPutResult {
  std::string id;
  bool created = false;  // false: the owner already had this content (that id)
};

struct DocumentEntity {
  std::string kind;  // email, url, path, file, identifier, name, quantity, ...
  std::string text;
};

struct Document {
  std::string id;
  std::string owner;
  std::string source;
  std::string meta;     // a JSON object's text ("" = none)
  std::string content;  // empty in lists and search hits
  std::string summary;
  std::vector<std::string> tags;
  std::vector<DocumentEntity> entities;
  std::string content_hash;  // lower-case hex SHA-256 of content
  int64_t access_count = 0;
  TimeMs created_at = 0;
  TimeMs updated_at = 0;
};

struct DocumentSearchRequest {
  std::string query;
  int max_results = 20;  // 1..100
};

struct DocumentSearchHit {
  Document document;    // without content
  double score = 0;     // keyword score in [0, 1]
  std::string snippet;  // best passage of the content, matched terms in **
};

struct DocumentListRequest {
  std::optional<std::string> source;  // only sources starting with this
  int limit = 50;                     // 1..1000
  int64_t offset = 0;
};

struct DocumentList {
  std::vector<Document> documents;  // newest first, without content
  std::optional<int64_t> next_offset;
};

// --- Corrections (issue 44 section 3): every derived memory, a profile
// facet, an event or a triple, can be corrected or deleted by the person it
// is about. A user changes its own; an admin (everyone while ACL is off)
// any principal's.

// A profile facet: (owner, facet_type, key). `owner`: the caller's when
// absent (another principal's only for an admin).
struct FacetAddress {
  std::string facet_type;
  std::string key;
  std::optional<std::string> owner;
};

// memory.event_correct: what changes; at least one of type and text.
struct EventCorrection {
  std::string id;
  std::optional<std::string> type;
  std::optional<std::string> text;
};

// memory.graph_correct: a current triple restated; what is absent is kept.
struct GraphCorrection {
  std::string id;
  std::optional<std::string> subject;
  std::optional<std::string> predicate;
  std::optional<std::string> object;
  std::optional<double> confidence;
};

}  // namespace mnemo

#pragma GCC visibility pop
