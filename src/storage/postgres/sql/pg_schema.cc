#include "storage/postgres/sql/pg_schema.h"

#include <chrono>

namespace mnemo::storage::internal::pg {
namespace {

// Schema v1: every table of the SQLite schema v1..v9 (sqlite/migrations.cc
// explains each); the differences:
//   - text columns use the "C" collation: byte order, as SQLite sorts, and
//     the same on every server whatever its default locale;
//   - a keyword-searchable row carries its tokens in `tsv`, a tsvector built
//     by mnemo (pg_text.h; never by the server's parsers, so Chinese and
//     Arabic are tokenised exactly as on SQLite) with a GIN index, and its
//     BM25 document length in `doc_length`; text_stats keeps each searchable
//     table's document count and token total (BM25's N and avgdl), updated
//     in the writing transaction;
//   - labels, turn ids, event and document row ids come from sequences, so
//     they are never reused, also across processes;
//   - lists of strings (tags, entities, segment ids) are text[];
//   - vectors are bytea (float32 little-endian, as the SQLite blobs);
//   - a document's content is bytea: stored byte for byte, invalid UTF-8
//     and NUL included, which a text column refuses.
// Every write transaction takes the schema's advisory lock first
// (postgres_database.cc), so writers from every process are serialised as on
// SQLite and sequence order is commit order (vector_changes.seq and
// segment_vectors.version rely on it).
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE store_info (id TEXT COLLATE "C" PRIMARY KEY);
INSERT INTO store_info (id) VALUES (gen_random_uuid()::text);
CREATE TABLE text_stats (
  name TEXT COLLATE "C" PRIMARY KEY,
  documents BIGINT NOT NULL DEFAULT 0,
  total_tokens BIGINT NOT NULL DEFAULT 0
);
INSERT INTO text_stats (name) VALUES ('entries'), ('turns'), ('events'), ('documents'),
  ('segment_recaps'), ('context_events');
CREATE TABLE generations (name TEXT COLLATE "C" PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO generations (name, value) VALUES ('tool_rules', 0), ('tool_registry', 0),
  ('segment_vectors', 0);

CREATE SEQUENCE labels;
CREATE TABLE entries (
  label BIGINT PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  owner TEXT COLLATE "C" NOT NULL,
  namespace TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  content TEXT COLLATE "C" NOT NULL,
  category TEXT COLLATE "C" NOT NULL,
  tags TEXT[] COLLATE "C" NOT NULL DEFAULT '{}',
  visibility TEXT COLLATE "C" NOT NULL DEFAULT 'private' CHECK (visibility IN ('private', 'public')),
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  access_count BIGINT NOT NULL DEFAULT 0,
  useful_count BIGINT NOT NULL DEFAULT 0,
  archived BOOLEAN NOT NULL DEFAULT false,
  doc_length BIGINT NOT NULL DEFAULT 0,
  fingerprint TEXT COLLATE "C",
  tsv TSVECTOR NOT NULL DEFAULT '',
  UNIQUE (owner, namespace, key)
);
CREATE INDEX entries_by_update ON entries (updated_at DESC, key, owner, namespace);
CREATE INDEX entries_by_name ON entries (namespace, key, owner);
CREATE INDEX entries_by_fingerprint ON entries (owner, namespace, fingerprint);
CREATE INDEX entries_tsv ON entries USING GIN (tsv);
CREATE FUNCTION bump_entry_generations() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ns_new TEXT := CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.namespace END;
  ns_old TEXT := CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.namespace END;
BEGIN
  IF left(ns_new, 5) = 'tool-' OR left(ns_old, 5) = 'tool-' THEN
    UPDATE generations SET value = value + 1 WHERE name = 'tool_rules';
  END IF;
  IF ns_new = 'tool_registry' OR ns_old = 'tool_registry' THEN
    UPDATE generations SET value = value + 1 WHERE name = 'tool_registry';
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER entries_generations AFTER INSERT OR UPDATE OR DELETE ON entries
  FOR EACH ROW EXECUTE FUNCTION bump_entry_generations();

CREATE TABLE entry_vectors (
  label BIGINT NOT NULL,
  signature TEXT COLLATE "C" NOT NULL,
  dim INTEGER NOT NULL,
  vector BYTEA NOT NULL,
  PRIMARY KEY (signature, label)
);
CREATE INDEX entry_vectors_by_label ON entry_vectors (label);
CREATE TABLE vector_changes (
  seq BIGSERIAL PRIMARY KEY,
  signature TEXT COLLATE "C" NOT NULL,
  label BIGINT NOT NULL,
  present INTEGER NOT NULL
);
CREATE INDEX vector_changes_by_signature ON vector_changes (signature, seq);

CREATE SEQUENCE turn_ids;
CREATE TABLE turns (
  id BIGINT PRIMARY KEY,
  owner TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  seq BIGINT NOT NULL,
  role TEXT COLLATE "C" NOT NULL CHECK (role IN ('user', 'assistant')),
  content TEXT COLLATE "C" NOT NULL,
  lesson TEXT COLLATE "C" NOT NULL DEFAULT '',
  tool_calls_json TEXT COLLATE "C" NOT NULL DEFAULT '',
  timestamp_ms BIGINT NOT NULL,
  cost_microdollars BIGINT NOT NULL DEFAULT 0,
  agent_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  search_text TEXT COLLATE "C" NOT NULL,
  doc_length BIGINT NOT NULL DEFAULT 0,
  tsv TSVECTOR NOT NULL DEFAULT '',
  UNIQUE (owner, session_id, seq)
);
CREATE INDEX turns_tsv ON turns USING GIN (tsv);

CREATE TABLE segments (
  id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  owner TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL CHECK (status IN ('open', 'closed')),
  first_seq BIGINT NOT NULL,
  last_seq BIGINT NOT NULL,
  turn_count BIGINT NOT NULL,
  started_at BIGINT NOT NULL,
  last_turn_at BIGINT NOT NULL,
  closed_at BIGINT NOT NULL DEFAULT 0,
  centroid BYTEA,
  recap TEXT COLLATE "C" NOT NULL DEFAULT '',
  recap_source TEXT COLLATE "C" NOT NULL DEFAULT '' CHECK (recap_source IN ('', 'llm', 'extractive')),
  recap_attempts BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX segments_by_session ON segments (owner, session_id, status);
CREATE UNIQUE INDEX segments_one_open ON segments (owner, session_id) WHERE status = 'open';
CREATE INDEX segments_by_start ON segments (started_at, id);
CREATE INDEX segments_needing_recap ON segments (closed_at, id)
  WHERE status = 'closed' AND recap_source = 'extractive';

CREATE SEQUENCE event_rows;
CREATE TABLE events (
  row_id BIGINT PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  owner TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  segment_id TEXT COLLATE "C" NOT NULL,
  type TEXT COLLATE "C" NOT NULL,
  text TEXT COLLATE "C" NOT NULL,
  confidence DOUBLE PRECISION NOT NULL,
  created_at BIGINT NOT NULL,
  doc_length BIGINT NOT NULL DEFAULT 0,
  tsv TSVECTOR NOT NULL DEFAULT ''
);
-- On md5(text), not text: an event's text may be longer than a btree entry
-- (about 2.7 kB).
CREATE UNIQUE INDEX events_by_text ON events (owner, type, md5(text));
CREATE INDEX events_by_time ON events (created_at DESC, id);
CREATE INDEX events_tsv ON events USING GIN (tsv);

CREATE TABLE facets (
  owner TEXT COLLATE "C" NOT NULL,
  facet_type TEXT COLLATE "C" NOT NULL,
  key TEXT COLLATE "C" NOT NULL,
  value TEXT COLLATE "C" NOT NULL,
  confidence DOUBLE PRECISION NOT NULL,
  evidence_count BIGINT NOT NULL,
  segment_ids TEXT[] COLLATE "C" NOT NULL DEFAULT '{}',
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (owner, facet_type, key)
);
CREATE INDEX facets_by_type ON facets (facet_type, key, owner);

CREATE SEQUENCE document_rows;
CREATE TABLE documents (
  row_id BIGINT PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  owner TEXT COLLATE "C" NOT NULL,
  source TEXT COLLATE "C" NOT NULL DEFAULT '',
  meta TEXT COLLATE "C" NOT NULL DEFAULT '',
  content BYTEA NOT NULL,
  search_text TEXT COLLATE "C" NOT NULL,
  summary TEXT COLLATE "C" NOT NULL DEFAULT '',
  tags TEXT[] COLLATE "C" NOT NULL DEFAULT '{}',
  entities TEXT[] COLLATE "C" NOT NULL DEFAULT '{}',
  content_hash TEXT COLLATE "C" NOT NULL,
  access_count BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  doc_length BIGINT NOT NULL DEFAULT 0,
  tsv TSVECTOR NOT NULL DEFAULT '',
  UNIQUE (owner, content_hash)
);
CREATE INDEX documents_by_time ON documents (created_at DESC, id);
CREATE INDEX documents_tsv ON documents USING GIN (tsv);

CREATE SEQUENCE recap_rows;
CREATE TABLE segment_recaps (
  row_id BIGINT PRIMARY KEY,
  segment_id TEXT COLLATE "C" NOT NULL UNIQUE,
  body TEXT COLLATE "C" NOT NULL,
  doc_length BIGINT NOT NULL DEFAULT 0,
  tsv TSVECTOR NOT NULL DEFAULT ''
);
CREATE INDEX segment_recaps_tsv ON segment_recaps USING GIN (tsv);
CREATE TABLE segment_vectors (
  segment_id TEXT COLLATE "C" NOT NULL,
  signature TEXT COLLATE "C" NOT NULL,
  version BIGINT NOT NULL,
  dim INTEGER NOT NULL,
  vector BYTEA NOT NULL,
  PRIMARY KEY (signature, segment_id)
);
CREATE UNIQUE INDEX segment_vectors_by_version ON segment_vectors (signature, version);

CREATE SEQUENCE triple_rows;
CREATE TABLE triples (
  row_id BIGINT PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  owner TEXT COLLATE "C" NOT NULL,
  subject TEXT COLLATE "C" NOT NULL,
  subject_key TEXT COLLATE "C" NOT NULL,
  predicate TEXT COLLATE "C" NOT NULL,
  object TEXT COLLATE "C" NOT NULL,
  object_key TEXT COLLATE "C" NOT NULL,
  confidence DOUBLE PRECISION NOT NULL,
  source TEXT COLLATE "C" NOT NULL DEFAULT '',
  sentence TEXT COLLATE "C" NOT NULL DEFAULT '',
  valid_from BIGINT NOT NULL,
  valid_to BIGINT,
  created_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX triples_current ON triples (owner, subject_key, predicate, object_key)
  WHERE valid_to IS NULL;
CREATE INDEX triples_by_subject ON triples (subject_key, predicate);
CREATE INDEX triples_by_object ON triples (object_key);
CREATE INDEX triples_by_source ON triples (source);

CREATE SEQUENCE context_event_ids;
CREATE TABLE context_events (
  id BIGINT PRIMARY KEY,
  owner TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  seq BIGINT NOT NULL,
  event_json TEXT COLLATE "C" NOT NULL,
  search_text TEXT COLLATE "C" NOT NULL,
  timestamp_ms BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  doc_length BIGINT NOT NULL DEFAULT 0,
  tsv TSVECTOR NOT NULL DEFAULT '',
  UNIQUE (owner, session_id, seq)
);
CREATE INDEX context_events_tsv ON context_events USING GIN (tsv);
CREATE TABLE context_sessions (
  owner TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  next_seq BIGINT NOT NULL,
  PRIMARY KEY (owner, session_id)
);
)sql";

struct PgMigration {
  int version;
  const char* description;
  const char* sql;
};

// Schema v2: turn_claims and segments_open_by_last_turn, as SQLite's v10.
constexpr const char* kSchemaV2 = R"sql(
CREATE TABLE turn_claims (
  owner TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  turn_id TEXT COLLATE "C" NOT NULL,
  first_seq BIGINT NOT NULL,
  result TEXT COLLATE "C" NOT NULL DEFAULT '',
  claimed_at BIGINT NOT NULL,
  PRIMARY KEY (owner, session_id, turn_id)
);
CREATE INDEX segments_open_by_last_turn ON segments (last_turn_at, id) WHERE status = 'open';
)sql";

// Schema v3: profile facets as slots with a history, as SQLite's v11.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE facets ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
ALTER TABLE facets ADD COLUMN evidence TEXT COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE facets ADD COLUMN history TEXT COLLATE "C" NOT NULL DEFAULT '[]';
UPDATE facets SET valid_from = updated_at;
)sql";

// Schema v4: the statements of each profile facet, as SQLite's v15.
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE facets ADD COLUMN statements TEXT COLLATE "C";
)sql";

// Schema v5: the sessions captured tool rules came from, as SQLite's v16.
constexpr const char* kSchemaV5 = R"sql(
CREATE TABLE rule_captures (
  owner TEXT COLLATE "C" NOT NULL,
  session_id TEXT COLLATE "C" NOT NULL,
  tool_name TEXT COLLATE "C" NOT NULL,
  rule_id TEXT COLLATE "C" NOT NULL,
  PRIMARY KEY (owner, session_id, tool_name, rule_id)
);
)sql";

// Schema v6: when a commitment or a reminder was closed, as SQLite's v17.
constexpr const char* kSchemaV6 = R"sql(
ALTER TABLE events ADD COLUMN closed_at BIGINT NOT NULL DEFAULT 0;
)sql";

// Schema v7: the keyword statistics of entries kept by the writes (issue 46),
// so that a keyword search reads them in its own statement
// (pg_entry_search.h). entry_terms holds, per term and bucket of rows, how
// many rows hold the term; the term '' holds the bucket's row count and
// token total (BM25's N and Σ lengths). A bucket is 'p' for the public rows
// and 'o:' || owner for an owner's other rows, so every read scope is a sum
// of buckets: all of them, or 'p' and the caller's. Statement triggers note
// each change set-wise in entry_terms_delta (only appended to, so a bulk
// write never updates one hot row thousands of times in a transaction);
// each write transaction folds the notes into entry_terms before its
// commit (FlushEntryTerms), and a later one folds any left by other writers.
// The same statement triggers now bump the tool generations (once per
// statement touching a tool namespace, where v1's row trigger ran a
// function per row: a bulk write of 100k entries paid 100k calls).
constexpr const char* kSchemaV7 = R"sql(
CREATE TABLE entry_terms (
  term TEXT COLLATE "C" NOT NULL,
  bucket TEXT COLLATE "C" NOT NULL,
  docs BIGINT NOT NULL DEFAULT 0,
  tokens BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (term, bucket)
);
CREATE UNLOGGED TABLE entry_terms_delta (
  term TEXT COLLATE "C" NOT NULL,
  bucket TEXT COLLATE "C" NOT NULL,
  docs BIGINT NOT NULL,
  tokens BIGINT NOT NULL
);
CREATE FUNCTION entry_text_bucket(owner TEXT, visibility TEXT) RETURNS TEXT
  LANGUAGE sql IMMUTABLE AS $$ SELECT CASE WHEN visibility = 'public' THEN 'p' ELSE 'o:' || owner END $$;
CREATE FUNCTION note_entry_terms() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  tool_rules BOOLEAN;
  tool_registry BOOLEAN;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT bool_or(left(namespace, 5) = 'tool-'), bool_or(namespace = 'tool_registry')
      INTO tool_rules, tool_registry FROM new_rows;
    INSERT INTO entry_terms_delta (term, bucket, docs, tokens)
    WITH changed AS (
      SELECT 1 AS sign, entry_text_bucket(n.owner, n.visibility) AS bucket, n.tsv, n.doc_length
      FROM new_rows n)
    SELECT l.term, c.bucket, sum(c.sign), 0 FROM changed c, unnest(tsvector_to_array(c.tsv)) AS l(term)
      GROUP BY l.term, c.bucket
    UNION ALL
    SELECT '', c.bucket, sum(c.sign), sum(c.sign * c.doc_length) FROM changed c GROUP BY c.bucket;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT bool_or(left(namespace, 5) = 'tool-'), bool_or(namespace = 'tool_registry')
      INTO tool_rules, tool_registry FROM old_rows;
    INSERT INTO entry_terms_delta (term, bucket, docs, tokens)
    WITH changed AS (
      SELECT -1 AS sign, entry_text_bucket(o.owner, o.visibility) AS bucket, o.tsv, o.doc_length
      FROM old_rows o)
    SELECT l.term, c.bucket, sum(c.sign), 0 FROM changed c, unnest(tsvector_to_array(c.tsv)) AS l(term)
      GROUP BY l.term, c.bucket
    UNION ALL
    SELECT '', c.bucket, sum(c.sign), sum(c.sign * c.doc_length) FROM changed c GROUP BY c.bucket;
  ELSE
    SELECT bool_or(left(namespace, 5) = 'tool-'), bool_or(namespace = 'tool_registry')
      INTO tool_rules, tool_registry
      FROM (SELECT namespace FROM old_rows UNION ALL SELECT namespace FROM new_rows) AS touched;
    INSERT INTO entry_terms_delta (term, bucket, docs, tokens)
    WITH pairs AS (
      SELECT o.owner AS o_owner, o.visibility AS o_vis, o.tsv AS o_tsv, o.doc_length AS o_len,
             n.owner AS n_owner, n.visibility AS n_vis, n.tsv AS n_tsv, n.doc_length AS n_len
      FROM old_rows o JOIN new_rows n ON n.label = o.label
      WHERE o.tsv <> n.tsv OR o.doc_length <> n.doc_length OR o.owner <> n.owner
         OR o.visibility <> n.visibility),
    changed AS (
      SELECT -1 AS sign, entry_text_bucket(o_owner, o_vis) AS bucket, o_tsv AS tsv, o_len AS doc_length
      FROM pairs
      UNION ALL
      SELECT 1, entry_text_bucket(n_owner, n_vis), n_tsv, n_len FROM pairs)
    SELECT l.term, c.bucket, sum(c.sign), 0 FROM changed c, unnest(tsvector_to_array(c.tsv)) AS l(term)
      GROUP BY l.term, c.bucket
    UNION ALL
    SELECT '', c.bucket, sum(c.sign), sum(c.sign * c.doc_length) FROM changed c GROUP BY c.bucket;
  END IF;
  IF tool_rules THEN
    UPDATE generations SET value = value + 1 WHERE name = 'tool_rules';
  END IF;
  IF tool_registry THEN
    UPDATE generations SET value = value + 1 WHERE name = 'tool_registry';
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER entries_generations ON entries;
DROP FUNCTION bump_entry_generations();
CREATE TRIGGER entries_terms_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION note_entry_terms();
CREATE TRIGGER entries_terms_update AFTER UPDATE ON entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION note_entry_terms();
CREATE TRIGGER entries_terms_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION note_entry_terms();
INSERT INTO entry_terms (term, bucket, docs, tokens)
WITH rows AS (SELECT entry_text_bucket(owner, visibility) AS bucket, tsv, doc_length FROM entries)
SELECT l.term, r.bucket, count(*), 0 FROM rows r, unnest(tsvector_to_array(r.tsv)) AS l(term)
  GROUP BY l.term, r.bucket
UNION ALL
SELECT '', r.bucket, count(*), sum(r.doc_length) FROM rows r GROUP BY r.bucket;
)sql";

// Schema v8: a bulk write of entries notes the keyword statistics of the rows
// it inserts itself (postgres_bulk_write.cc: counted in the process, where
// the rows are tokenised, and copied in), so the insert trigger skips its
// notes while the transaction-local setting mnemo.entry_terms_by_writer is
// 'on'. Unnesting and grouping every tsvector of a 100k-row insert in the
// trigger was a third of that import. The tool generations are still
// bumped by the trigger, and updates and deletes still noted by it. Only
// the function changes: nothing stored is touched.
constexpr const char* kSchemaV8 = R"sql(
CREATE OR REPLACE FUNCTION note_entry_terms() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  tool_rules BOOLEAN;
  tool_registry BOOLEAN;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT bool_or(left(namespace, 5) = 'tool-'), bool_or(namespace = 'tool_registry')
      INTO tool_rules, tool_registry FROM new_rows;
    IF current_setting('mnemo.entry_terms_by_writer', true) IS DISTINCT FROM 'on' THEN
      INSERT INTO entry_terms_delta (term, bucket, docs, tokens)
      WITH changed AS (
        SELECT 1 AS sign, entry_text_bucket(n.owner, n.visibility) AS bucket, n.tsv, n.doc_length
        FROM new_rows n)
      SELECT l.term, c.bucket, sum(c.sign), 0 FROM changed c, unnest(tsvector_to_array(c.tsv)) AS l(term)
        GROUP BY l.term, c.bucket
      UNION ALL
      SELECT '', c.bucket, sum(c.sign), sum(c.sign * c.doc_length) FROM changed c GROUP BY c.bucket;
    END IF;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT bool_or(left(namespace, 5) = 'tool-'), bool_or(namespace = 'tool_registry')
      INTO tool_rules, tool_registry FROM old_rows;
    INSERT INTO entry_terms_delta (term, bucket, docs, tokens)
    WITH changed AS (
      SELECT -1 AS sign, entry_text_bucket(o.owner, o.visibility) AS bucket, o.tsv, o.doc_length
      FROM old_rows o)
    SELECT l.term, c.bucket, sum(c.sign), 0 FROM changed c, unnest(tsvector_to_array(c.tsv)) AS l(term)
      GROUP BY l.term, c.bucket
    UNION ALL
    SELECT '', c.bucket, sum(c.sign), sum(c.sign * c.doc_length) FROM changed c GROUP BY c.bucket;
  ELSE
    SELECT bool_or(left(namespace, 5) = 'tool-'), bool_or(namespace = 'tool_registry')
      INTO tool_rules, tool_registry
      FROM (SELECT namespace FROM old_rows UNION ALL SELECT namespace FROM new_rows) AS touched;
    INSERT INTO entry_terms_delta (term, bucket, docs, tokens)
    WITH pairs AS (
      SELECT o.owner AS o_owner, o.visibility AS o_vis, o.tsv AS o_tsv, o.doc_length AS o_len,
             n.owner AS n_owner, n.visibility AS n_vis, n.tsv AS n_tsv, n.doc_length AS n_len
      FROM old_rows o JOIN new_rows n ON n.label = o.label
      WHERE o.tsv <> n.tsv OR o.doc_length <> n.doc_length OR o.owner <> n.owner
         OR o.visibility <> n.visibility),
    changed AS (
      SELECT -1 AS sign, entry_text_bucket(o_owner, o_vis) AS bucket, o_tsv AS tsv, o_len AS doc_length
      FROM pairs
      UNION ALL
      SELECT 1, entry_text_bucket(n_owner, n_vis), n_tsv, n_len FROM pairs)
    SELECT l.term, c.bucket, sum(c.sign), 0 FROM changed c, unnest(tsvector_to_array(c.tsv)) AS l(term)
      GROUP BY l.term, c.bucket
    UNION ALL
    SELECT '', c.bucket, sum(c.sign), sum(c.sign * c.doc_length) FROM changed c GROUP BY c.bucket;
  END IF;
  IF tool_rules THEN
    UPDATE generations SET value = value + 1 WHERE name = 'tool_rules';
  END IF;
  IF tool_registry THEN
    UPDATE generations SET value = value + 1 WHERE name = 'tool_registry';
  END IF;
  RETURN NULL;
END $$;
)sql";

// Schema v9: the generation of entry_terms, moved by every fold of the
// keyword statistics (FlushEntryTerms), so a process may keep the statistics
// it read until the generation moves (pg_keyword_stats.h). Nothing stored is
// touched.
constexpr const char* kSchemaV9 = R"sql(
INSERT INTO generations (name, value) VALUES ('entry_terms', 0) ON CONFLICT (name) DO NOTHING;
)sql";

// Schema v10: a turn's search text is stored only where it differs from
// its content (issue 45): NULL stands for the content (StoredSearchText).
// Every row stays; equal copies become NULL, their tsv unchanged
// (docs/storage.md "Version 10").
constexpr const char* kSchemaV10 = R"sql(
ALTER TABLE turns ALTER COLUMN search_text DROP NOT NULL;
UPDATE turns SET search_text = NULL WHERE search_text = content;
)sql";

// Schema v11: the log of entry_terms' changes, so that a process may hold
// all of the keyword statistics and keep them current by reading only what
// changed (pg_keyword_stats.h). FlushEntryTerms writes each fold's deltas
// (the sums it adds to entry_terms) under the generation it moves
// entry_terms to, in the same statement; a fold too large to copy (a bulk
// write) logs one row with a NULL term instead: reload everything. The fold
// also deletes the generations older than the kept window
// (kLoggedGenerations). Nothing stored is touched; the log starts empty at
// the current generation.
constexpr const char* kSchemaV11 = R"sql(
CREATE TABLE entry_terms_log (
  generation BIGINT NOT NULL,
  term TEXT COLLATE "C",
  bucket TEXT COLLATE "C",
  docs BIGINT NOT NULL,
  tokens BIGINT NOT NULL
);
CREATE INDEX entry_terms_log_by_generation ON entry_terms_log (generation);
)sql";

// Schema v12: the indexes a caller's scope is read by (pg_matching_labels.h):
// its own entries by (owner, label) and the public ones by label, each with
// the columns the rest of a filter reads, so that a scoped list of labels
// reads the index alone where the table's pages are all visible. Nothing
// stored is touched.
constexpr const char* kSchemaV12 = R"sql(
CREATE INDEX entries_by_owner_label ON entries (owner, label) INCLUDE (archived, namespace);
CREATE INDEX entries_public_by_label ON entries (label) INCLUDE (owner, archived, namespace)
  WHERE visibility = 'public';
)sql";

// Schema v13: the log of the entries' changes a node-local keyword index
// follows (pg_node_keywords.h), as vector_changes is the vector index's.
// A statement trigger appends the label of each row inserted, deleted, or
// updated in a column the index holds (tsv, doc_length, owner, visibility,
// archived, namespace, updated_at: not the counters an access bumps).
// Writers hold the schema's advisory lock, so seq order is commit order and
// max(seq) in a snapshot says which changes it holds. A statement touching
// more than 1 000 rows (a bulk import, a restore, a reindex) logs one row
// with a NULL label instead: reload everything. The log keeps the last
// `kept` seqs (20 000 unless the window's row says otherwise): the
// trigger deletes older ones a thousand at a time and records the highest
// deleted seq (entry_changes_window, one row: kept, trimmed), so a node
// whose watermark is below it reloads. The log starts with one reload row:
// a node's first load reads the rows anyway.
constexpr const char* kSchemaV13 = R"sql(
CREATE TABLE entry_changes (seq BIGSERIAL PRIMARY KEY, label BIGINT);
CREATE TABLE entry_changes_window (kept BIGINT NOT NULL, trimmed BIGINT NOT NULL);
INSERT INTO entry_changes_window (kept, trimmed) VALUES (20000, 0);
CREATE FUNCTION log_entry_changes() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
DECLARE
  labels BIGINT[];
  last BIGINT;
  window_seqs BIGINT;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.label) INTO labels FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.label) INTO labels FROM old_rows o;
  ELSE
    SELECT array_agg(n.label) INTO labels FROM old_rows o JOIN new_rows n ON n.label = o.label
      WHERE o.tsv <> n.tsv OR o.doc_length <> n.doc_length OR o.owner <> n.owner
         OR o.visibility <> n.visibility OR o.archived <> n.archived
         OR o.namespace <> n.namespace OR o.updated_at <> n.updated_at;
  END IF;
  IF labels IS NULL THEN
    RETURN NULL;
  END IF;
  IF cardinality(labels) > 1000 THEN
    INSERT INTO entry_changes (label) VALUES (NULL) RETURNING seq INTO last;
  ELSE
    WITH ins AS (INSERT INTO entry_changes (label) SELECT unnest(labels) RETURNING seq)
    SELECT max(seq) INTO last FROM ins;
  END IF;
  SELECT w.kept INTO window_seqs FROM entry_changes_window w;
  IF (SELECT min(seq) FROM entry_changes) <= last - window_seqs THEN
    DELETE FROM entry_changes WHERE seq <= last - window_seqs + LEAST(1000, window_seqs / 2);
    UPDATE entry_changes_window SET trimmed = GREATEST(trimmed, last - window_seqs + LEAST(1000, window_seqs / 2));
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER entries_changes_insert AFTER INSERT ON entries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION log_entry_changes();
CREATE TRIGGER entries_changes_update AFTER UPDATE ON entries
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION log_entry_changes();
CREATE TRIGGER entries_changes_delete AFTER DELETE ON entries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION log_entry_changes();
INSERT INTO entry_changes (label) VALUES (NULL);
)sql";

constexpr PgMigration kMigrations[] = {
    {1, "every table of the engine", kSchemaV1},
    {2, "turn claims of idempotent turns; open segments by last turn", kSchemaV2},
    {3, "profile facets as slots with a history", kSchemaV3},
    {4, "the statements of each profile facet", kSchemaV4},
    {5, "the sessions captured tool rules came from", kSchemaV5},
    {6, "when an event was closed", kSchemaV6},
    {7, "keyword statistics of entries kept by the writes", kSchemaV7},
    {8, "a bulk write notes the keyword statistics of the entries it inserts", kSchemaV8},
    {9, "the generation of the keyword statistics", kSchemaV9},
    {10, "a turn's search text stored only where it differs from its content", kSchemaV10},
    {11, "the log of the keyword statistics' changes", kSchemaV11},
    {12, "the indexes a caller's scope is read by", kSchemaV12},
    {13, "the log of the entries' changes a node's keyword index follows", kSchemaV13},
};

int64_t NowMs() {
  using std::chrono::duration_cast;
  using std::chrono::milliseconds;
  return duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace

int LatestPgSchemaVersion() { return kMigrations[std::size(kMigrations) - 1].version; }

std::string QuoteIdentifier(std::string_view name) {
  std::string out = "\"";
  for (char c : name) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

Status InMigrationTransaction(PgConn& conn, const std::string& schema, std::string_view what,
                              const std::function<Status()>& body) {
  MNEMO_RETURN_IF_ERROR(conn.ExecScript("BEGIN", what));
  auto locked = [&]() -> Status {
    MNEMO_RETURN_IF_ERROR(
        conn.Exec("SELECT pg_advisory_xact_lock(hashtext('mnemo migrate ' || $1))",
                  Params().Add(schema), what)
            .status());
    MNEMO_RETURN_IF_ERROR(
        conn.ExecScript("CREATE SCHEMA IF NOT EXISTS " + QuoteIdentifier(schema), what));
    MNEMO_RETURN_IF_ERROR(
        conn.ExecScript("SET LOCAL search_path TO " + QuoteIdentifier(schema), what));
    return body();
  };
  if (Status s = locked(); !s.ok()) {
    if (conn.ok()) (void)conn.ExecScript("ROLLBACK", "roll back");
    return s;
  }
  return conn.ExecScript("COMMIT", what);
}

Result<int> MigrateSchema(PgConn& conn, const std::string& schema, int up_to) {
  const std::string what = "migrate the PostgreSQL schema " + QuoteIdentifier(schema);
  int version = 0;
  MNEMO_RETURN_IF_ERROR(InMigrationTransaction(conn, schema, what, [&]() -> Status {
    MNEMO_RETURN_IF_ERROR(
        conn.ExecScript("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                        "applied_at BIGINT NOT NULL)",
                        what));
    MNEMO_ASSIGN_OR_RETURN(Rows rows,
                           conn.Exec("SELECT COALESCE(MAX(version), 0) FROM schema_version", what));
    version = static_cast<int>(rows.Int(0, 0));
    const int latest = LatestPgSchemaVersion();
    if (version > latest) {
      return Unavailable("the PostgreSQL schema " + schema + " has version " +
                         std::to_string(version) + ", newer than this mnemo supports (" +
                         std::to_string(latest) + "); use a newer mnemo");
    }
    for (const PgMigration& m : kMigrations) {
      if (m.version <= version || m.version > up_to) continue;
      const std::string step = "apply PostgreSQL schema migration " + std::to_string(m.version) +
                               " (" + m.description + ")";
      MNEMO_RETURN_IF_ERROR(conn.ExecScript(m.sql, step));
      MNEMO_RETURN_IF_ERROR(conn.Exec("INSERT INTO schema_version (version, applied_at) "
                                      "VALUES ($1, $2)",
                                      Params().Add(m.version).Add(NowMs()), step)
                                .status());
      version = m.version;
    }
    return Status::Ok();
  }));
  return version;
}

}  // namespace mnemo::storage::internal::pg
