#include "storage/sqlite/migrations.h"

#include <chrono>
#include <string>

#include "storage/sqlite/fts/recap_index.h"

namespace mnemo::storage::internal {
namespace {

// Schema v1.
//   entries: one row per memory entry, unique per (owner, namespace, key).
//     tags is a JSON array of strings; times are ms since the epoch (UTC);
//     archived is 0/1. rowid is the FTS5 rowid of the entry's text.
//     doc_length is the token count of key + content as FTS5 counts it
//     (entry_rules.h IndexColumn): the BM25 document length, kept here so a
//     search reads it with the filter columns in one lookup instead of a
//     second one in FTS5's docsize table (columnsize=0 drops that table).
//   entries_by_update: List order (updated_at DESC, key, owner).
//   entries_by_name: Resolve by (namespace, key) and ForEach order.
//   entries_fts: contentless FTS5 over key and content with the `mnemo`
//     tokenizer (columnsize=0: lengths live in entries.doc_length; FTS5 still
//     keeps the collection's total size for avgdl); rows are added with the entry and removed with
//     the FTS5 'delete' command given the old key and content.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE entries (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  namespace TEXT NOT NULL,
  key TEXT NOT NULL,
  content TEXT NOT NULL,
  category TEXT NOT NULL,
  tags TEXT NOT NULL DEFAULT '[]',
  visibility TEXT NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0,
  useful_count INTEGER NOT NULL DEFAULT 0,
  archived INTEGER NOT NULL DEFAULT 0 CHECK (archived IN (0, 1)),
  doc_length INTEGER NOT NULL DEFAULT 0,
  UNIQUE (owner, namespace, key)
);
CREATE INDEX entries_by_update ON entries (updated_at DESC, key, owner, namespace);
CREATE INDEX entries_by_name ON entries (namespace, key, owner);
CREATE VIRTUAL TABLE entries_fts USING fts5(key, content, content='', columnsize=0,
  tokenize='mnemo');
)sql";

// Schema v2: vectors (spec 20) and their change log.
//   entry_vectors: one vector per (signature, entry label = entries.rowid),
//     float32 little-endian, `dim` floats. A rowid table, not WITHOUT ROWID:
//     a WITHOUT ROWID b-tree copies whole ~1.5 KiB rows into its interior
//     pages, which made 100k vectors of 384 floats 2.4 times slower to write
//     and 2.2 times larger. The primary key is a unique index; by_label finds
//     an entry's vectors of every signature when it is deleted or rewritten.
//   vector_changes: every put (present = 1) and removal (present = 0) in
//     commit order; the oldest row of a signature may be a trim marker
//     (present = -1, vector_rules.h). by_signature serves the readers.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE entry_vectors (
  label INTEGER NOT NULL,
  signature TEXT NOT NULL,
  dim INTEGER NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (signature, label)
);
CREATE INDEX entry_vectors_by_label ON entry_vectors (label);
CREATE TABLE vector_changes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  signature TEXT NOT NULL,
  label INTEGER NOT NULL,
  present INTEGER NOT NULL
);
CREATE INDEX vector_changes_by_signature ON vector_changes (signature, seq);
)sql";

// Schema v3: generation counters. `tool_rules` changes (in the writing
// transaction, whichever process writes) whenever an entry of a `tool-*`
// namespace is inserted, updated or deleted, so a process can cache what it
// derived from the rules (the pinned prompt block) and notice any change with
// one primary-key read.
constexpr const char* kSchemaV3 = R"sql(
CREATE TABLE generations (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO generations (name, value) VALUES ('tool_rules', 0);
CREATE TRIGGER entries_tool_rules_insert AFTER INSERT ON entries
  WHEN substr(NEW.namespace, 1, 5) = 'tool-'
  BEGIN UPDATE generations SET value = value + 1 WHERE name = 'tool_rules'; END;
CREATE TRIGGER entries_tool_rules_update AFTER UPDATE ON entries
  WHEN substr(NEW.namespace, 1, 5) = 'tool-' OR substr(OLD.namespace, 1, 5) = 'tool-'
  BEGIN UPDATE generations SET value = value + 1 WHERE name = 'tool_rules'; END;
CREATE TRIGGER entries_tool_rules_delete AFTER DELETE ON entries
  WHEN substr(OLD.namespace, 1, 5) = 'tool-'
  BEGIN UPDATE generations SET value = value + 1 WHERE name = 'tool_rules'; END;
)sql";

// Schema v4: episodic turns (spec 40). `seq` is per (owner, session_id) and
// assigned inside the appending transaction. `search_text` is the
// computation text the contentless `turns_fts` indexed (kept so the row can
// be unindexed exactly); `doc_length` as for entries.
constexpr const char* kSchemaV4 = R"sql(
CREATE TABLE turns (
  id INTEGER PRIMARY KEY,
  owner TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  content TEXT NOT NULL,
  lesson TEXT NOT NULL DEFAULT '',
  tool_calls_json TEXT NOT NULL DEFAULT '',
  timestamp_ms INTEGER NOT NULL,
  cost_microdollars INTEGER NOT NULL DEFAULT 0,
  agent_id TEXT NOT NULL DEFAULT '',
  search_text TEXT NOT NULL,
  doc_length INTEGER NOT NULL DEFAULT 0,
  UNIQUE (owner, session_id, seq)
);
CREATE VIRTUAL TABLE turns_fts USING fts5(body, content='', columnsize=0, tokenize='mnemo');
)sql";

// Schema v5: segments, events and profile facets (spec 40).
//   segments: `centroid` is float32 little-endian like entry_vectors.vector
//     (NULL: none). segments_one_open keeps one open segment per (owner,
//     session); CloseSegment's `UPDATE ... WHERE status = 'open'` makes the
//     open -> closed step happen once. segments_needing_recap serves the
//     re-summarise pass.
//   events: unique per (owner, type, text); rowid is the rowid of the
//     contentless `events_fts` over `text`; doc_length as for entries.
//     confidence is written from its shortest round-trip decimal.
//   facets: segment_ids is a JSON array of strings (tags_json.h).
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE segments (
  id TEXT NOT NULL PRIMARY KEY,
  owner TEXT NOT NULL,
  session_id TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('open', 'closed')),
  first_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  turn_count INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  last_turn_at INTEGER NOT NULL,
  closed_at INTEGER NOT NULL DEFAULT 0,
  centroid BLOB,
  recap TEXT NOT NULL DEFAULT '',
  recap_source TEXT NOT NULL DEFAULT '' CHECK (recap_source IN ('', 'llm', 'extractive')),
  recap_attempts INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX segments_by_session ON segments (owner, session_id, status);
CREATE UNIQUE INDEX segments_one_open ON segments (owner, session_id) WHERE status = 'open';
CREATE INDEX segments_by_start ON segments (started_at, id);
CREATE INDEX segments_needing_recap ON segments (closed_at, id)
  WHERE status = 'closed' AND recap_source = 'extractive';
CREATE TABLE events (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  session_id TEXT NOT NULL,
  segment_id TEXT NOT NULL,
  type TEXT NOT NULL,
  text TEXT NOT NULL,
  confidence REAL NOT NULL,
  created_at INTEGER NOT NULL,
  doc_length INTEGER NOT NULL DEFAULT 0,
  UNIQUE (owner, type, text)
);
CREATE INDEX events_by_time ON events (created_at DESC, id);
CREATE VIRTUAL TABLE events_fts USING fts5(body, content='', columnsize=0, tokenize='mnemo');
CREATE TABLE facets (
  owner TEXT NOT NULL,
  facet_type TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  confidence REAL NOT NULL,
  evidence_count INTEGER NOT NULL,
  segment_ids TEXT NOT NULL DEFAULT '[]',
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (owner, facet_type, key)
) WITHOUT ROWID;
CREATE INDEX facets_by_type ON facets (facet_type, key, owner);
)sql";

// Schema v6: documents (spec 50), search over segment recaps and recap
// vectors (spec 40).
//   documents: unique per (owner, content_hash); content is stored byte for
//     byte and never indexed. rowid is the rowid of the contentless
//     `documents_fts` over (search_text, summary, tags one per line); the
//     indexed texts are kept here so the row can be unindexed exactly.
//     tags and entities are JSON arrays of strings; doc_length as for entries.
//   documents_vocab: FTS5's own per-token document counts of documents_fts,
//     for TF-IDF tags against the store.
//   segment_recaps: one row per segment with a non-empty recap; rowid is the
//     rowid of `segment_recaps_fts`, `body` the recap it indexed. A side table
//     because segments has a text key (its implicit rowid may change on
//     VACUUM). Migration 6 indexes the recaps already stored.
//   segment_vectors: one recap vector per (signature, segment), float32
//     little-endian like entry_vectors.vector. `version` comes from the
//     generation counter 'segment_vectors', raised by every write, so readers
//     catch up with `version > last seen` (a replacement gets a new version).
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE documents (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  meta TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL,
  search_text TEXT NOT NULL,
  summary TEXT NOT NULL DEFAULT '',
  tags TEXT NOT NULL DEFAULT '[]',
  entities TEXT NOT NULL DEFAULT '[]',
  content_hash TEXT NOT NULL,
  access_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  doc_length INTEGER NOT NULL DEFAULT 0,
  UNIQUE (owner, content_hash)
);
CREATE INDEX documents_by_time ON documents (created_at DESC, id);
CREATE VIRTUAL TABLE documents_fts USING fts5(body, summary, tags, content='', columnsize=0,
  tokenize='mnemo');
CREATE VIRTUAL TABLE documents_vocab USING fts5vocab(documents_fts, row);
CREATE TABLE segment_recaps (
  rowid INTEGER PRIMARY KEY,
  segment_id TEXT NOT NULL UNIQUE,
  body TEXT NOT NULL,
  doc_length INTEGER NOT NULL DEFAULT 0
);
CREATE VIRTUAL TABLE segment_recaps_fts USING fts5(body, content='', columnsize=0,
  tokenize='mnemo');
CREATE TABLE segment_vectors (
  segment_id TEXT NOT NULL,
  signature TEXT NOT NULL,
  version INTEGER NOT NULL,
  dim INTEGER NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (signature, segment_id)
);
CREATE UNIQUE INDEX segment_vectors_by_version ON segment_vectors (signature, version);
INSERT INTO generations (name, value) VALUES ('segment_vectors', 0);
)sql";

// Schema v7: the graph (spec 50, "Graph"; storage/graph.h).
//   triples: subject–predicate–object with provenance and validity.
//     `subject_key` / `object_key` are graph_rules.h TripleTermKey of subject
//     and object (ASCII case-folded), what upserts and queries compare.
//     `valid_to` NULL: current. The partial unique index keeps one current
//     row per (owner, subject, predicate, object); UpsertTriple ends the
//     other current rows of a single-valued predicate in its transaction.
constexpr const char* kSchemaV7 = R"sql(
CREATE TABLE triples (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  owner TEXT NOT NULL,
  subject TEXT NOT NULL,
  subject_key TEXT NOT NULL,
  predicate TEXT NOT NULL,
  object TEXT NOT NULL,
  object_key TEXT NOT NULL,
  confidence REAL NOT NULL,
  source TEXT NOT NULL DEFAULT '',
  sentence TEXT NOT NULL DEFAULT '',
  valid_from INTEGER NOT NULL,
  valid_to INTEGER,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX triples_current ON triples (owner, subject_key, predicate, object_key)
  WHERE valid_to IS NULL;
CREATE INDEX triples_by_subject ON triples (subject_key, predicate);
CREATE INDEX triples_by_object ON triples (object_key);
CREATE INDEX triples_by_source ON triples (source);
)sql";

// Schema v8: context events (spec 50, "Context window and documents").
//   context_events: one row per memory.context_append, `event_json` byte for
//     byte as received; `id` (AUTOINCREMENT: never reused) is the rowid of
//     the contentless `context_events_fts` over `search_text` (the event's
//     computation text, kept so the row can be unindexed exactly);
//     doc_length as for entries.
//   context_sessions: the next seq of each (owner, session), raised in the
//     appending transaction, so a seq is never handed out twice even after
//     the events that had it are deleted (pruned).
constexpr const char* kSchemaV8 = R"sql(
CREATE TABLE context_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  owner TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_json TEXT NOT NULL,
  search_text TEXT NOT NULL,
  timestamp_ms INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  doc_length INTEGER NOT NULL DEFAULT 0,
  UNIQUE (owner, session_id, seq)
);
CREATE TABLE context_sessions (
  owner TEXT NOT NULL,
  session_id TEXT NOT NULL,
  next_seq INTEGER NOT NULL,
  PRIMARY KEY (owner, session_id)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE context_events_fts USING fts5(body, content='', columnsize=0,
  tokenize='mnemo');
)sql";

// Schema v9:
//   entries.fingerprint (EntryWrite::fingerprint), NULL unless the writer gave
//     one; by_fingerprint serves a Mutate narrowed to it (tool rule
//     de-duplication reads its candidates, not every rule of the tool).
//   generation `tool_registry`: as `tool_rules` (v3), for the namespace of
//     saved tool registrations, so a turn checks them with one read.
constexpr const char* kSchemaV9 = R"sql(
ALTER TABLE entries ADD COLUMN fingerprint TEXT;
CREATE INDEX entries_by_fingerprint ON entries (owner, namespace, fingerprint);
INSERT INTO generations (name, value) VALUES ('tool_registry', 0);
CREATE TRIGGER entries_tool_registry_insert AFTER INSERT ON entries
  WHEN NEW.namespace = 'tool_registry'
  BEGIN UPDATE generations SET value = value + 1 WHERE name = 'tool_registry'; END;
CREATE TRIGGER entries_tool_registry_update AFTER UPDATE ON entries
  WHEN NEW.namespace = 'tool_registry' OR OLD.namespace = 'tool_registry'
  BEGIN UPDATE generations SET value = value + 1 WHERE name = 'tool_registry'; END;
CREATE TRIGGER entries_tool_registry_delete AFTER DELETE ON entries
  WHEN OLD.namespace = 'tool_registry'
  BEGIN UPDATE generations SET value = value + 1 WHERE name = 'tool_registry'; END;
)sql";

// Schema v10:
//   turn_claims: one row per (owner, session_id, turn_id) of an idempotent
//     memory.turn_complete, inserted in the transaction that appends the
//     turn's rows; first_seq is the user row's seq (-1 when no rows were
//     stored), result the first call's answer ('' until it is known).
//   segments_open_by_last_turn: the open segments by last turn time, for
//     learning.session_idle_close_secs.
constexpr const char* kSchemaV10 = R"sql(
CREATE TABLE turn_claims (
  owner TEXT NOT NULL,
  session_id TEXT NOT NULL,
  turn_id TEXT NOT NULL,
  first_seq INTEGER NOT NULL,
  result TEXT NOT NULL DEFAULT '',
  claimed_at INTEGER NOT NULL,
  PRIMARY KEY (owner, session_id, turn_id)
) WITHOUT ROWID;
CREATE INDEX segments_open_by_last_turn ON segments (last_turn_at, id) WHERE status = 'open';
)sql";

// Schema v11:
//   store_info: the store's identity (EntryStore::store_id), one row made with
//     the store (or at this upgrade) from 16 random bytes, never changed.
//     Vector index files carry it in their header (docs/storage.md), so a
//     file beside a database that is not the one it was built from (another
//     workspace's, an older copy restored) is rebuilt, not trusted.
constexpr const char* kSchemaV11 = R"sql(
CREATE TABLE store_info (id TEXT NOT NULL PRIMARY KEY);
INSERT INTO store_info (id) VALUES (lower(hex(randomblob(16))));
)sql";

// Schema v12: profile facets as slots (spec 40 §5): when the current value
// was first stated, the sentence that stated it, and the earlier values
// (storage::internal::EncodeFacetHistory).
constexpr const char* kSchemaV12 = R"sql(
ALTER TABLE facets ADD COLUMN valid_from INTEGER NOT NULL DEFAULT 0;
ALTER TABLE facets ADD COLUMN evidence TEXT NOT NULL DEFAULT '';
ALTER TABLE facets ADD COLUMN history TEXT NOT NULL DEFAULT '[]';
UPDATE facets SET valid_from = updated_at;
)sql";

// Schema v13: the narrow rows a keyword search joins its matches to.
//   entries_search: per entry (same rowid) what an unnarrowed search reads of
//     each match: doc_length, updated_at, the owner as an entry_owners id,
//     and flags (kSearchFlag* in entry_sql.h: 1 archived, 2 public, 4 in a
//     system namespace, as mnemo_system_namespace says). Kept equal to
//     `entries` by triggers. Joined to `entries` instead (~350-byte rows with
//     their content), every match's seek missed the cache: at 100k entries
//     that seek was a third of a search (issue 22); these rows are ~18 bytes.
//   entry_owners: each owner of stored entries, with the count and total
//     doc_length of their entries and of their public ones, kept by triggers
//     on entries_search, so a caller's keyword statistics (own + public
//     entries, ScopeStats) are two reads instead of a scan of every entry;
//     an owner's row goes with their last entry.
constexpr const char* kSchemaV13 = R"sql(
CREATE TABLE entry_owners (
  id INTEGER PRIMARY KEY,
  owner TEXT NOT NULL UNIQUE,
  entries INTEGER NOT NULL DEFAULT 0,
  tokens INTEGER NOT NULL DEFAULT 0,
  public_entries INTEGER NOT NULL DEFAULT 0,
  public_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE entries_search (
  rowid INTEGER PRIMARY KEY,
  doc_length INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  owner_id INTEGER NOT NULL,
  flags INTEGER NOT NULL
);
INSERT OR IGNORE INTO entry_owners (owner) SELECT owner FROM entries ORDER BY owner;
INSERT INTO entries_search (rowid, doc_length, updated_at, owner_id, flags)
  SELECT e.rowid, e.doc_length, e.updated_at, o.id,
    e.archived | (CASE WHEN e.visibility = 'public' THEN 2 ELSE 0 END)
      | (CASE WHEN mnemo_system_namespace(e.namespace) THEN 4 ELSE 0 END)
  FROM entries e JOIN entry_owners o ON o.owner = e.owner;
UPDATE entry_owners SET
  entries = (SELECT count(*) FROM entries_search s WHERE s.owner_id = entry_owners.id),
  tokens = (SELECT COALESCE(sum(s.doc_length), 0) FROM entries_search s
    WHERE s.owner_id = entry_owners.id),
  public_entries = (SELECT count(*) FROM entries_search s
    WHERE s.owner_id = entry_owners.id AND s.flags & 2 <> 0),
  public_tokens = (SELECT COALESCE(sum(s.doc_length), 0) FROM entries_search s
    WHERE s.owner_id = entry_owners.id AND s.flags & 2 <> 0);
CREATE TRIGGER entries_search_insert AFTER INSERT ON entries BEGIN
  INSERT OR IGNORE INTO entry_owners (owner) VALUES (NEW.owner);
  INSERT INTO entries_search (rowid, doc_length, updated_at, owner_id, flags)
  VALUES (NEW.rowid, NEW.doc_length, NEW.updated_at,
    (SELECT id FROM entry_owners WHERE owner = NEW.owner),
    NEW.archived | (CASE WHEN NEW.visibility = 'public' THEN 2 ELSE 0 END)
      | (CASE WHEN mnemo_system_namespace(NEW.namespace) THEN 4 ELSE 0 END));
END;
CREATE TRIGGER entries_search_update AFTER UPDATE OF doc_length, updated_at, archived,
  visibility, namespace ON entries BEGIN
  UPDATE entries_search SET doc_length = NEW.doc_length, updated_at = NEW.updated_at,
    flags = NEW.archived | (CASE WHEN NEW.visibility = 'public' THEN 2 ELSE 0 END)
      | (CASE WHEN mnemo_system_namespace(NEW.namespace) THEN 4 ELSE 0 END)
  WHERE rowid = NEW.rowid;
END;
CREATE TRIGGER entries_search_owner AFTER UPDATE OF owner ON entries
  WHEN OLD.owner <> NEW.owner BEGIN
  INSERT OR IGNORE INTO entry_owners (owner) VALUES (NEW.owner);
  UPDATE entries_search SET owner_id = (SELECT id FROM entry_owners WHERE owner = NEW.owner)
  WHERE rowid = NEW.rowid;
END;
CREATE TRIGGER entries_search_delete AFTER DELETE ON entries BEGIN
  DELETE FROM entries_search WHERE rowid = OLD.rowid;
END;
CREATE TRIGGER entry_owners_add AFTER INSERT ON entries_search BEGIN
  UPDATE entry_owners SET entries = entries + 1, tokens = tokens + NEW.doc_length,
    public_entries = public_entries + (NEW.flags & 2 <> 0),
    public_tokens = public_tokens + (CASE WHEN NEW.flags & 2 <> 0 THEN NEW.doc_length ELSE 0 END)
  WHERE id = NEW.owner_id;
END;
CREATE TRIGGER entry_owners_move AFTER UPDATE ON entries_search BEGIN
  UPDATE entry_owners SET entries = entries - 1, tokens = tokens - OLD.doc_length,
    public_entries = public_entries - (OLD.flags & 2 <> 0),
    public_tokens = public_tokens - (CASE WHEN OLD.flags & 2 <> 0 THEN OLD.doc_length ELSE 0 END)
  WHERE id = OLD.owner_id;
  UPDATE entry_owners SET entries = entries + 1, tokens = tokens + NEW.doc_length,
    public_entries = public_entries + (NEW.flags & 2 <> 0),
    public_tokens = public_tokens + (CASE WHEN NEW.flags & 2 <> 0 THEN NEW.doc_length ELSE 0 END)
  WHERE id = NEW.owner_id;
  DELETE FROM entry_owners WHERE id = OLD.owner_id AND entries = 0;
END;
CREATE TRIGGER entry_owners_remove AFTER DELETE ON entries_search BEGIN
  UPDATE entry_owners SET entries = entries - 1, tokens = tokens - OLD.doc_length,
    public_entries = public_entries - (OLD.flags & 2 <> 0),
    public_tokens = public_tokens - (CASE WHEN OLD.flags & 2 <> 0 THEN OLD.doc_length ELSE 0 END)
  WHERE id = OLD.owner_id;
  DELETE FROM entry_owners WHERE id = OLD.owner_id AND entries = 0;
END;
)sql";

// Schema v14: entries_fts keeps up to 32 MiB of pending terms in memory
// before writing them to a segment (FTS5's default: 1 MiB). Only a large
// transaction (an import, a restore) fills it; every commit writes what is
// pending anyway. Fewer, larger segments after an import: keyword search at
// 100k went from 0.29 to 0.23 ms p50 (issue 22, docs/storage.md "Version 14").
constexpr const char* kSchemaV14 = R"sql(
INSERT INTO entries_fts (entries_fts, rank) VALUES ('hashsize', 33554432);
)sql";

// Schema v15: the statements each profile facet was folded from (spec 40
// §5; storage/episodic.h FacetStatement), so that erasing a session takes
// away exactly its evidence. NULL for the facets stored before: their
// evidence is known by segment only (docs/storage.md "Version 15").
constexpr const char* kSchemaV15 = R"sql(
ALTER TABLE facets ADD COLUMN statements TEXT;
)sql";

// Schema v16: which session each captured tool rule came from (issue 42
// item 18), so that erasing the session erases the rule (docs/storage.md
// "Version 16").
constexpr const char* kSchemaV16 = R"sql(
CREATE TABLE rule_captures (
  owner TEXT NOT NULL,
  session_id TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  rule_id TEXT NOT NULL,
  PRIMARY KEY (owner, session_id, tool_name, rule_id)
) WITHOUT ROWID;
)sql";

// Schema v17: when a commitment or a reminder was said to be done (spec 40
// §4; 0 while open), so that a closed one is kept but leaves the prompt
// (docs/storage.md "Version 17").
constexpr const char* kSchemaV17 = R"sql(
ALTER TABLE events ADD COLUMN closed_at INTEGER NOT NULL DEFAULT 0;
)sql";

// Schema v18: a turn's search text is stored only where it differs from
// its content (issue 45): NULL stands for the content (StoredSearchText).
// SQLite cannot drop a NOT NULL, so the table is rebuilt with the same
// columns in the same order and every row, ids kept (they are the rowids
// of turns_fts, whose index rows stay as they are); equal copies become
// NULL (docs/storage.md "Version 18").
constexpr const char* kSchemaV18 = R"sql(
CREATE TABLE turns_v18 (
  id INTEGER PRIMARY KEY,
  owner TEXT NOT NULL,
  session_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
  content TEXT NOT NULL,
  lesson TEXT NOT NULL DEFAULT '',
  tool_calls_json TEXT NOT NULL DEFAULT '',
  timestamp_ms INTEGER NOT NULL,
  cost_microdollars INTEGER NOT NULL DEFAULT 0,
  agent_id TEXT NOT NULL DEFAULT '',
  search_text TEXT,
  doc_length INTEGER NOT NULL DEFAULT 0,
  UNIQUE (owner, session_id, seq)
);
INSERT INTO turns_v18 (id, owner, session_id, seq, role, content, lesson, tool_calls_json,
  timestamp_ms, cost_microdollars, agent_id, search_text, doc_length)
  SELECT id, owner, session_id, seq, role, content, lesson, tool_calls_json, timestamp_ms,
    cost_microdollars, agent_id, NULLIF(search_text, content), doc_length FROM turns;
DROP TABLE turns;
ALTER TABLE turns_v18 RENAME TO turns;
)sql";

constexpr Migration kMigrations[] = {
    {1, "entries and their full-text index", kSchemaV1},
    {2, "entry vectors and their change log", kSchemaV2},
    {3, "generation counter of the tool rules", kSchemaV3},
    {4, "episodic turns and their full-text index", kSchemaV4},
    {5, "segments, events and profile facets", kSchemaV5},
    {6, "documents, recap search and recap vectors", kSchemaV6, IndexExistingRecaps},
    {7, "the graph: subject-predicate-object triples", kSchemaV7},
    {8, "context events and their full-text index", kSchemaV8},
    {9, "entry fingerprints; generation of the tool registry", kSchemaV9},
    {10, "turn claims of idempotent turns; open segments by last turn", kSchemaV10},
    {11, "the store's identity", kSchemaV11},
    {12, "profile facets as slots with a history", kSchemaV12},
    {13, "the narrow rows keyword search filters and orders by", kSchemaV13},
    {14, "a larger in-memory batch for the entries' text index", kSchemaV14},
    {15, "the statements of each profile facet", kSchemaV15},
    {16, "the sessions captured tool rules came from", kSchemaV16},
    {17, "when an event was closed", kSchemaV17},
    {18, "a turn's search text stored only where it differs from its content", kSchemaV18},
};

int64_t NowMs() {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Status Apply(Connection& conn, const Migration& m) {
  const std::string what =
      "apply schema migration " + std::to_string(m.version) + " (" + m.description + ")";
  MNEMO_RETURN_IF_ERROR(conn.Exec(m.sql, what));
  if (m.backfill != nullptr) {
    if (Status filled = m.backfill(conn); !filled.ok()) {
      return Status(filled.code(), what + ": " + filled.message());
    }
  }
  MNEMO_ASSIGN_OR_RETURN(
      Statement insert,
      conn.Prepare("INSERT INTO schema_version (version, applied_at) VALUES (?1, ?2)",
                   "record the schema version"));
  insert.Bind(1, static_cast<int64_t>(m.version));
  insert.Bind(2, NowMs());
  return insert.Run("record the schema version");
}

}  // namespace

std::span<const Migration> SchemaMigrations() { return kMigrations; }

int LatestSchemaVersion() { return SchemaMigrations().back().version; }

Result<int> ReadSchemaVersion(Connection& conn) {
  MNEMO_RETURN_IF_ERROR(
      conn.Exec("CREATE TABLE IF NOT EXISTS schema_version ("
                "version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)",
                "create the schema_version table"));
  MNEMO_ASSIGN_OR_RETURN(Statement select,
                         conn.Prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version",
                                      "read the schema version"));
  MNEMO_ASSIGN_OR_RETURN(bool row, select.Step("read the schema version"));
  return row ? static_cast<int>(select.ColumnInt(0)) : 0;
}

Result<int> Migrate(Connection& conn, std::span<const Migration> migrations) {
  const int latest = migrations.empty() ? 0 : migrations.back().version;
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(conn));
  MNEMO_ASSIGN_OR_RETURN(int version, ReadSchemaVersion(conn));
  if (version > latest) {
    return Unavailable("the database has schema version " + std::to_string(version) +
                       ", newer than this mnemo supports (" + std::to_string(latest) +
                       "); use a newer mnemo");
  }
  for (const Migration& m : migrations) {
    if (m.version <= version) continue;
    MNEMO_RETURN_IF_ERROR(Apply(conn, m));
    version = m.version;
  }
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return version;
}

}  // namespace mnemo::storage::internal
