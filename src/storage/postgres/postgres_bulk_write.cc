// Bulk entry writes of the PostgreSQL backend (issue 46): an import, a
// restore or any UpsertBatch of kBulkFrom writes or more. The rows are
// merged in the process exactly as one UpsertIn after another would (a key
// written twice merges onto its first write); the rows stored before are
// staged by COPY into a temporary table and rewritten by one UPDATE, the
// new ones copied straight into `entries` (COPY's binary form: the server
// neither unescapes the fields nor parses a tsvector), so the entry triggers (keyword
// statistics, generations) run once per statement, set-wise, instead of
// once per row. The rows are tokenized on two threads while the server
// parses the chunks already sent (StreamRows). The keyword statistics of
// the inserted rows are counted here, from the tokens just made, and copied
// in beside them (schema v8: the insert trigger then skips its notes);
// those of rewritten rows are the update trigger's. A large batch whose
// buckets the statistics hold no row of (a first import, a restore) copies
// its counts straight into entry_terms instead, with no fold. All inside the
// caller's write transaction: a row the server refuses undoes the whole
// batch.
#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string_view>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "base/string_ids.h"
#include "storage/postgres/postgres_database.h"
#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/rules/entry_rules.h"
#include "storage/rules/vector_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

// Tokenizing is most of a bulk write's CPU in the process: two threads from
// this many rows on (the machines mnemo targets have at least two cores).
constexpr size_t kParallelTokenizeFrom = 4096;

// From this many rows a batch fills the text index in one pass and refreshes
// the planner's statistics of entries.
constexpr size_t kLargeBatch = 10000;

// (owner, namespace, key), viewing the batch's writes (they outlive it).
using EntryKey = std::tuple<std::string_view, std::string_view, std::string_view>;

struct EntryKeyHash {
  size_t operator()(const EntryKey& k) const {
    const std::hash<std::string_view> h;
    size_t seed = h(std::get<0>(k));
    seed = seed * 31 + h(std::get<1>(k));
    return seed * 31 + h(std::get<2>(k));
  }
};

// One distinct (owner, namespace, key) of the batch.
struct Staged {
  std::optional<Entry> entry;  // as the writes so far left it
  Label label = 0;
  bool existed = false;       // in the table before the batch
  int64_t old_length = 0;     // its doc_length then
  bool text_changed = false;  // some write of the batch changed its text
  // The vectors of the last write that changed its text (EntryWrite::vectors).
  std::span<const SignedVector> vectors;
  std::optional<std::string> fingerprint;
  pg::IndexedText text;
};

// The columns of `entries` a bulk write sets, in the order both COPYs below
// send them (entries_stage has two columns before them).
constexpr const char* kCopiedColumns =
    "label, id, owner, namespace, key, content, category, tags, visibility, created_at, "
    "updated_at, access_count, useful_count, archived, fingerprint, doc_length, tsv";
constexpr auto kCopiedFields =
    static_cast<int16_t>(std::ranges::count(std::string_view(kCopiedColumns), ',') + 1);

// The fields of `s` in kCopiedColumns (COPY binary, pg_values.h); a row whose
// text no write changed has no doc_length or tsv (the UPDATE keeps the
// stored ones).
void AppendEntryFields(std::string& out, const Staged& s) {
  const Entry& e = *s.entry;
  pg::AppendCopyBinaryInt8(out, s.label);
  pg::AppendCopyBinaryText(out, e.id);
  pg::AppendCopyBinaryText(out, e.owner);
  pg::AppendCopyBinaryText(out, e.ns);
  pg::AppendCopyBinaryText(out, e.key);
  pg::AppendCopyBinaryText(out, e.content);
  pg::AppendCopyBinaryText(out, e.category);
  pg::AppendCopyBinaryTextArray(out, e.tags);
  pg::AppendCopyBinaryText(out, VisibilityName(e.visibility));
  pg::AppendCopyBinaryInt8(out, e.created_at);
  pg::AppendCopyBinaryInt8(out, e.updated_at);
  pg::AppendCopyBinaryInt8(out, e.access_count);
  pg::AppendCopyBinaryInt8(out, e.useful_count);
  pg::AppendCopyBinaryBool(out, e.archived);
  if (s.fingerprint) {
    pg::AppendCopyBinaryText(out, *s.fingerprint);
  } else {
    pg::AppendCopyBinaryNull(out);
  }
  if (s.text_changed) {
    pg::AppendCopyBinaryInt8(out, s.text.length);
    pg::AppendCopyBinaryTsvector(out, s.text);
  } else {
    pg::AppendCopyBinaryNull(out);
    pg::AppendCopyBinaryNull(out);
  }
}

// A row inserted into entries.
void AppendEntryRow(std::string& out, const Staged& s) {
  pg::AppendCopyBinaryFieldCount(out, kCopiedFields);
  AppendEntryFields(out, s);
}

// A row staged in entries_stage: whether it existed and whether its text
// changed, then kCopiedColumns.
void AppendStagedRow(std::string& out, const Staged& s) {
  pg::AppendCopyBinaryFieldCount(out, kCopiedFields + 2);
  pg::AppendCopyBinaryBool(out, true);
  pg::AppendCopyBinaryBool(out, s.text_changed);
  AppendEntryFields(out, s);
}

// A row's binary fields beside its content and lexemes, about: the other
// columns (an id, a key, an owner, times and counters) and each field's
// length.
constexpr size_t kRowBytes = 256;

// Rows per chunk of a streamed COPY: small enough that the server starts
// parsing early, large enough that the hand-over costs nothing.
constexpr size_t kChunkRows = 1024;

// Copies `rows` by `copy_sql` (a COPY ... FROM STDIN (FORMAT binary)),
// tokenizing those whose text changed (IndexText) and formatting them by
// `format`: from kParallelTokenizeFrom rows on, two threads make the
// chunks while this one sends each as soon as it is ready, in order, so
// the server parses one chunk while the next are made (before, the
// process tokenized every row, then formatted them, then waited for the
// server's COPY). `sent` is called here with each chunk's
// rows once it has gone, the work this thread does while the others make
// the next ones.
Status StreamRows(PgConn& conn, std::string_view copy_sql, std::span<Staged* const> rows,
                  void (*format)(std::string&, const Staged&),
                  const std::function<void(std::span<Staged* const>)>& sent,
                  std::string_view what) {
  if (rows.empty()) return Status::Ok();
  auto make = [&](size_t from, size_t to, std::string& out) {
    // The chunk's text is reserved at about its size first: grown as it was
    // formatted, it was copied about as many times as it doubled.
    size_t size = 0;
    for (size_t i = from; i < to; ++i) {
      Staged& s = *rows[i];
      if (s.text_changed) s.text = pg::IndexText({s.entry->key, s.entry->content});
      size += kRowBytes + s.entry->content.size() + s.text.lexeme_bytes.size() +
              5 * s.text.LexemeCount();
    }
    out.reserve(size);
    if (from == 0) pg::AppendCopyBinaryHeader(out);
    for (size_t i = from; i < to; ++i) format(out, *rows[i]);
    if (to == rows.size()) pg::AppendCopyBinaryTrailer(out);
  };
  if (rows.size() < kParallelTokenizeFrom) {
    std::string data;
    make(0, rows.size(), data);
    MNEMO_RETURN_IF_ERROR(conn.CopyIn(copy_sql, data, what));
    sent(rows);
    return Status::Ok();
  }
  const size_t chunks = (rows.size() + kChunkRows - 1) / kChunkRows;
  std::vector<std::string> texts(chunks);
  const auto ready = std::make_unique<std::atomic<bool>[]>(chunks);
  std::atomic<size_t> claimed{0};
  std::atomic<bool> stop{false};
  auto work = [&] {
    for (size_t k; !stop.load(std::memory_order_relaxed) && (k = claimed++) < chunks;) {
      make(k * kChunkRows, std::min(rows.size(), (k + 1) * kChunkRows), texts[k]);
      ready[k].store(true, std::memory_order_release);
      ready[k].notify_one();
    }
  };
  Status status = Status::Ok();
  {
    std::jthread first(work);
    std::jthread second(work);
    size_t next = 0;
    status = conn.CopyIn(
        copy_sql,
        [&]() -> std::optional<std::string_view> {
          if (next > 0) {
            // The chunk before went: its text is released and its rows
            // handed to `sent` while the server parses it.
            std::string().swap(texts[next - 1]);
            const size_t from = (next - 1) * kChunkRows;
            sent(rows.subspan(from, std::min(kChunkRows, rows.size() - from)));
          }
          if (next == chunks) return std::nullopt;
          ready[next].wait(false, std::memory_order_acquire);
          return texts[next++];
        },
        what);
    stop = true;
  }
  return status;
}

// How many rows of a group hold each lexeme: the lexemes' dense ids
// (StringIds: one buffer and a flat table; the node-based map this replaces
// missed the cache about three times per lexeme and was a third of a bulk
// write's CPU in the process) and a count per id.
class LexemeCounts {
 public:
  void Add(std::string_view lexeme) {
    const uint32_t id = ids_.Intern(lexeme);
    if (id == counts_.size()) counts_.push_back(0);
    ++counts_[id];
  }

  // f(lexeme, rows) for each lexeme, in the order first added.
  template <typename F>
  void ForEach(const F& f) const {
    for (uint32_t id = 0; id < counts_.size(); ++id) f(ids_.at(id), counts_[id]);
  }

 private:
  mnemo::internal::StringIds ids_;
  std::vector<int64_t> counts_;  // per id
};

// The keyword statistics of the inserted rows: per bucket of entry_terms,
// how many rows hold each lexeme, and under the term '' the row count and
// token total. Each (term, bucket) is counted once, as entry_terms keys it.
class TermNotes {
 public:
  // Asks the server the bucket of each (owner, visibility) of `rows`
  // (entry_text_bucket, pg_schema.cc: the rule is stated there only), and
  // whether entry_terms holds a totals row (term '') of any of them. Every
  // write of entry_terms (the triggers' notes, the bulk writes' counts, v7's
  // fill) gives each bucket it counts a term in a totals row, and no row is
  // ever deleted: a bucket without one has no row at all. One lookup by the
  // primary key per bucket.
  Status Name(PgConn& conn, std::span<Staged* const> rows) {
    std::vector<std::string> owners;
    std::vector<std::string> visibilities;
    for (const Staged* s : rows) {
      const std::pair<std::string, std::string> key(s->entry->owner,
                                                    VisibilityName(s->entry->visibility));
      if (!group_of_.try_emplace(key, 0).second) continue;
      owners.push_back(key.first);
      visibilities.push_back(key.second);
    }
    if (owners.empty()) return Status::Ok();
    MNEMO_ASSIGN_OR_RETURN(
        Rows named,
        conn.Exec("SELECT b.bucket, EXISTS (SELECT 1 FROM entry_terms t WHERE t.term = '' AND "
                  "t.bucket = b.bucket) FROM (SELECT entry_text_bucket(g.owner, g.visibility) "
                  "AS bucket, g.i FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS "
                  "g(owner, visibility, i)) b ORDER BY b.i",
                  Params().AddTextArray(owners).AddTextArray(visibilities),
                  "name the keyword statistics' buckets"));
    if (named.size() != static_cast<int>(owners.size())) {
      return Internal("the server named " + std::to_string(named.size()) + " buckets for " +
                      std::to_string(owners.size()) + " groups of keyword statistics");
    }
    std::map<std::string, size_t, std::less<>> index;
    for (int i = 0; i < named.size(); ++i) {
      const std::string_view bucket = named.Text(i, 0);
      auto [it, added] = index.try_emplace(std::string(bucket), groups_.size());
      if (added) groups_.push_back({.bucket = std::string(bucket)});
      group_of_[{owners[i], visibilities[i]}] = it->second;
      if (named.Bool(i, 1)) counted_before_ = true;
    }
    return Status::Ok();
  }

  // Whether entry_terms held no row of any bucket named (Name): the counts
  // may then be copied into it as they are, with no fold.
  bool NewBuckets() const { return !counted_before_; }

  // Counts `s`, whose (owner, visibility) was named.
  void Add(const Staged& s) {
    const std::string_view owner = s.entry->owner;
    const std::string_view visibility = VisibilityName(s.entry->visibility);
    // Rows of one group often come together: the last group is kept.
    if (last_ == group_of_.end() || last_->first.first != owner ||
        last_->first.second != visibility) {
      last_ = group_of_.find({std::string(owner), std::string(visibility)});
    }
    Group& g = groups_[last_->second];
    ++g.rows;
    g.tokens += s.text.length;
    for (size_t i = 0; i < s.text.LexemeCount(); ++i) g.docs.Add(s.text.Lexeme(i));
  }

  // Copies them into `table` (entry_terms_delta, or entry_terms itself when
  // NewBuckets), one bucket after the other as they are formatted.
  Status CopyInto(PgConn& conn, std::string_view table) const {
    if (groups_.empty()) return Status::Ok();
    auto group = groups_.begin();
    std::string data;
    // The first bucket's chunk opens with the header, the last one's ends
    // with the trailer (as StreamRows' chunks).
    return conn.CopyIn(
        "COPY " + std::string(table) + " (term, bucket, docs, tokens) FROM STDIN (FORMAT binary)",
        [&]() -> std::optional<std::string_view> {
          if (group == groups_.end()) return std::nullopt;
          data.clear();
          if (group == groups_.begin()) pg::AppendCopyBinaryHeader(data);
          const Group& g = *group++;
          auto row = [&](std::string_view term, int64_t docs, int64_t tokens) {
            pg::AppendCopyBinaryFieldCount(data, 4);
            pg::AppendCopyBinaryText(data, term);
            pg::AppendCopyBinaryText(data, g.bucket);
            pg::AppendCopyBinaryInt8(data, docs);
            pg::AppendCopyBinaryInt8(data, tokens);
          };
          row("", g.rows, g.tokens);
          g.docs.ForEach([&](std::string_view lexeme, int64_t docs) { row(lexeme, docs, 0); });
          if (group == groups_.end()) pg::AppendCopyBinaryTrailer(data);
          return data;
        },
        "note the keyword statistics");
  }

 private:
  struct Group {
    std::string bucket;
    LexemeCounts docs;
    int64_t rows = 0;
    int64_t tokens = 0;
  };
  std::vector<Group> groups_;  // one per bucket
  // (owner, visibility) -> its bucket's group
  std::map<std::pair<std::string, std::string>, size_t> group_of_;
  decltype(group_of_)::const_iterator last_ = group_of_.end();
  bool counted_before_ = false;
};

// The B-tree indexes of `table` (every index but `except`), as statements
// that drop them and statements that make them again, read from the catalog
// so that they follow the schema's migrations.
struct TableIndexes {
  std::string drop;
  std::string make;
};

Result<TableIndexes> ReadIndexes(PgConn& conn, std::string_view table, std::string_view except) {
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn.Exec("SELECT i.relname, pg_get_indexdef(i.oid), c.conname, pg_get_constraintdef(c.oid) "
                "FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid LEFT JOIN pg_constraint "
                "c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid AND c.contype IN "
                "('p', 'u') WHERE x.indrelid = $1::regclass AND i.relname <> $2 ORDER BY "
                "i.relname",
                Params().Add(table).Add(except), "read the indexes of a table"));
  const std::string alter = "ALTER TABLE " + pg::QuoteIdentifier(table);
  TableIndexes out;
  for (int i = 0; i < rows.size(); ++i) {
    const std::string index = pg::QuoteIdentifier(rows.Text(i, 0));
    if (rows.IsNull(i, 2)) {
      out.drop += "DROP INDEX " + index + "; ";
      out.make += std::string(rows.Text(i, 1)) + "; ";
    } else {
      const std::string constraint = pg::QuoteIdentifier(rows.Text(i, 2));
      out.drop += alter + " DROP CONSTRAINT " + constraint + "; ";
      out.make +=
          alter + " ADD CONSTRAINT " + constraint + " " + std::string(rows.Text(i, 3)) + "; ";
    }
  }
  return out;
}

// The vectors the writes carried for the texts they left (EntryWrite::vectors),
// by signature: one PutVectorsIn each.
Status PutStagedVectors(PostgresDatabase& db, PgConn& conn, std::span<Staged* const> rows) {
  std::map<std::string_view, std::vector<LabeledVector>> by_signature;
  for (const Staged* s : rows) {
    for (const SignedVector& v : s->vectors) {
      by_signature[v.signature].push_back({.label = s->label, .vector = v.vector});
    }
  }
  for (const auto& [signature, vectors] : by_signature) {
    MNEMO_RETURN_IF_ERROR(db.PutVectorsIn(conn, signature, vectors));
  }
  return Status::Ok();
}

}  // namespace

Result<int64_t> PostgresDatabase::UpsertManyIn(PgConn& conn, std::span<const EntryWrite> writes,
                                               std::vector<Label>* labels) {
  if (writes.empty()) return int64_t{0};
  for (const EntryWrite& w : writes) MNEMO_RETURN_IF_ERROR(ValidateWrite(w));
  // Hashed, and keyed by views into the writes: no key is copied.
  std::unordered_map<EntryKey, Staged, EntryKeyHash> staged;
  staged.reserve(writes.size());
  std::vector<Staged*> order;  // first-seen order
  std::vector<Staged*> of_write;
  of_write.reserve(writes.size());
  for (const EntryWrite& w : writes) {
    auto [it, fresh] = staged.try_emplace(EntryKey{w.owner, w.ns, w.key});
    if (fresh) order.push_back(&it->second);
    of_write.push_back(&it->second);
  }
  // A table holding no row holds none of the keys (a first import, a
  // restore): for a large batch one probe instead of sending every key
  // (three arrays of 100k strings for a 100k import, parsed and joined by
  // the server); a small batch looks its keys up at once, no extra round
  // trip. Writers are serialised (the schema's advisory lock): no row
  // appears meanwhile.
  bool look_up = true;
  if (order.size() >= kLargeBatch) {
    MNEMO_ASSIGN_OR_RETURN(
        Rows any, conn.Exec("SELECT EXISTS (SELECT 1 FROM entries)", "look up the entries"));
    look_up = any.Bool(0, 0);
  }
  if (look_up) {
    std::vector<std::string> owners, namespaces, keys;
    for (const auto& [k, s] : staged) {
      owners.emplace_back(std::get<0>(k));
      namespaces.emplace_back(std::get<1>(k));
      keys.emplace_back(std::get<2>(k));
    }
    MNEMO_ASSIGN_OR_RETURN(
        Rows found,
        conn.Exec(std::string("SELECT e.label, e.doc_length, ") + pg::kEntryColumns +
                      " FROM unnest($1::text[], $2::text[], $3::text[]) AS k(owner, ns, key) "
                      "JOIN entries e ON e.owner = k.owner AND e.namespace = k.ns AND e.key = "
                      "k.key",
                  Params().AddTextArray(owners).AddTextArray(namespaces).AddTextArray(keys),
                  "look up the entries"));
    for (int i = 0; i < found.size(); ++i) {
      Entry e = pg::ReadEntry(found, i, 2);
      const auto it = staged.find(EntryKey{e.owner, e.ns, e.key});
      if (it == staged.end())
        return Internal("the server found an entry the batch has no write of");
      Staged& s = it->second;
      s.label = found.Int(i, 0);
      s.old_length = found.Int(i, 1);
      s.existed = true;
      s.entry = std::move(e);
    }
  }
  int64_t created = 0;
  int64_t fresh_rows = 0;
  for (size_t i = 0; i < writes.size(); ++i) {
    Staged& s = *of_write[i];
    if (!s.entry) {
      ++created;
      ++fresh_rows;
    }
    Entry e = MergeWrite(writes[i], s.entry);
    if (!s.entry || s.entry->content != e.content) {
      s.text_changed = true;
      s.vectors = writes[i].vectors;
    }
    s.entry = std::move(e);
    s.fingerprint = writes[i].fingerprint;
  }
  if (fresh_rows > 0) {
    MNEMO_ASSIGN_OR_RETURN(Rows fresh,
                           conn.Exec("SELECT nextval('labels') FROM generate_series(1, $1)",
                                     Params().Add(fresh_rows), "number the new entries"));
    int next = 0;
    for (Staged* s : order) {
      if (!s->existed) s->label = fresh.Int(next++, 0);
    }
  }
  // The rows stored before are rewritten by an UPDATE from entries_stage;
  // the new ones are copied straight into entries, in label order (as
  // numbered above), with no staging table between.
  std::vector<Staged*> existing;
  std::vector<Staged*> inserted;
  for (Staged* s : order) (s->existed ? existing : inserted).push_back(s);
  std::sort(inserted.begin(), inserted.end(),
            [](const Staged* x, const Staged* y) { return x->label < y->label; });
  const bool large = order.size() >= kLargeBatch;
  // The inserted rows' keyword statistics are counted here as their chunks
  // go (the insert trigger skips its notes of them), per bucket. A large
  // batch whose buckets entry_terms holds no row of (a first import, a
  // restore, new owners) copies its counts straight into entry_terms: the
  // fold of the notes (aggregate, update, insert of about 900 000 rows for
  // 100k entries) was 2.5 s of server time where the copy is a fraction.
  // Each (term, bucket) then gets the count the fold would have summed;
  // notes other statements of the transaction leave (the triggers of the
  // rows rewritten) are folded onto them after, which adds as the fold
  // would have. Named before the indexes are dropped (a lookup by key).
  TermNotes notes;
  if (!inserted.empty()) MNEMO_RETURN_IF_ERROR(notes.Name(conn, inserted));
  const bool copy_counts = large && !inserted.empty() && notes.NewBuckets();
  // A large batch into a table holding fewer rows than it (a first import,
  // a restore) builds the text index anew after the merge: a GIN build
  // sorts every key once, several times faster than inserting them. The
  // dropped index locks `entries` until the commit, which a reader of a
  // store being loaded waits for. Any other large batch puts its keys in
  // the index's pending list whole, then sorts them into the index at once
  // (gin_clean_pending_list below) instead of 4 MB at a time.
  bool rebuild_index = false;
  TableIndexes btrees;
  TableIndexes term_keys;
  if (large) {
    MNEMO_ASSIGN_OR_RETURN(
        Rows present, conn.Exec("SELECT COALESCE(sum(docs), 0) FROM entry_terms WHERE term = ''",
                                "count the entries"));
    rebuild_index = present.Int(0, 0) < static_cast<int64_t>(order.size());
    // So are the B-tree indexes of entries: five of them maintained row by
    // row made the merge three times as long as building them after it.
    if (rebuild_index) {
      MNEMO_ASSIGN_OR_RETURN(btrees, ReadIndexes(conn, "entries", "entries_tsv"));
      MNEMO_ASSIGN_OR_RETURN(term_keys, ReadIndexes(conn, "entry_terms", ""));
    }
    // The keyword statistics are then folded into entry_terms without its
    // primary key (read from the catalog as well), which is built anew
    // after: a sorted build instead of a B-tree insertion per (term,
    // bucket), about 900 000 of them for 100k entries (five times faster).
    // entry_terms is locked before entries, in the order a keyword search
    // takes them (pg_entry_search.cc), so a search already holding one
    // cannot deadlock with this write.
    // The memory of the sorts that follow, for this transaction only: the
    // fold of the statistics (about 900 000 (term, bucket) groups for 100k
    // entries) spilled to disk at the connections' 64 MB (a hash aggregate
    // in five batches: 1.5 s, against 1.4 s in one at 256 MB), and the
    // B-tree builds sort in memory. Taken only as used. The GIN build sets
    // its own, smaller maintenance_work_mem (below).
    MNEMO_RETURN_IF_ERROR(conn.ExecScript(
        std::string("SET LOCAL work_mem = '256MB'; SET LOCAL maintenance_work_mem = '512MB'; ") +
            (rebuild_index ? "LOCK TABLE entry_terms, entries IN ACCESS EXCLUSIVE MODE; DROP "
                             "INDEX entries_tsv; " +
                                 term_keys.drop + btrees.drop
                           : std::string("SET LOCAL gin_pending_list_limit = '256MB'")),
        "stage the entries"));
  }
  // A row's entry, tsvector and lexemes are not needed once its chunk went
  // and its statistics were counted (TermNotes copies what it keeps); its
  // label and length are. Freed here, while the server parses, instead of
  // all at the end of the batch while it waits.
  auto release = [](std::span<Staged* const> rows) {
    for (Staged* s : rows) {
      s->entry.reset();
      s->fingerprint.reset();
      s->text = pg::IndexedText{.length = s->text.length};
    }
  };
  if (!existing.empty()) {
    MNEMO_RETURN_IF_ERROR(conn.ExecScript(
        "CREATE TEMP TABLE IF NOT EXISTS entries_stage (existed boolean, text_changed boolean, "
        "label bigint, id text, owner text, namespace text, key text, content text, category "
        "text, tags text[], visibility text, created_at bigint, updated_at bigint, access_count "
        "bigint, useful_count bigint, archived boolean, fingerprint text, doc_length bigint, tsv "
        "tsvector) ON COMMIT DELETE ROWS",
        "stage the entries"));
    MNEMO_RETURN_IF_ERROR(StreamRows(conn,
                                     std::string("COPY entries_stage (existed, text_changed, ") +
                                         kCopiedColumns + ") FROM STDIN (FORMAT binary)",
                                     existing, AppendStagedRow, release, "stage the entries"));
    MNEMO_RETURN_IF_ERROR(conn.ExecScript(
        "UPDATE entries e SET id = s.id, content = s.content, category = s.category, "
        "tags = s.tags, visibility = s.visibility, created_at = s.created_at, updated_at "
        "= s.updated_at, access_count = s.access_count, useful_count = s.useful_count, "
        "archived = s.archived, fingerprint = s.fingerprint, doc_length = CASE WHEN "
        "s.text_changed THEN s.doc_length ELSE e.doc_length END, tsv = CASE WHEN "
        "s.text_changed THEN s.tsv ELSE e.tsv END FROM entries_stage s WHERE s.existed "
        "AND e.label = s.label; TRUNCATE entries_stage",
        "merge the entries"));
  }
  if (!inserted.empty()) {
    MNEMO_RETURN_IF_ERROR(
        conn.ExecScript("SET LOCAL mnemo.entry_terms_by_writer = 'on'", "insert the entries"));
    MNEMO_RETURN_IF_ERROR(StreamRows(
        conn, std::string("COPY entries (") + kCopiedColumns + ") FROM STDIN (FORMAT binary)",
        inserted, AppendEntryRow,
        [&](std::span<Staged* const> rows) {
          for (const Staged* s : rows) notes.Add(*s);
          release(rows);
        },
        "insert the entries"));
    MNEMO_RETURN_IF_ERROR(
        conn.ExecScript("SET LOCAL mnemo.entry_terms_by_writer = 'off'", "insert the entries"));
    MNEMO_RETURN_IF_ERROR(notes.CopyInto(conn, copy_counts ? "entry_terms" : "entry_terms_delta"));
  }
  int64_t documents = 0;
  int64_t tokens = 0;
  std::vector<int64_t> rewritten;  // existing labels whose text changed
  for (const Staged* s : order) {
    if (!s->text_changed) continue;
    if (!s->existed) {
      ++documents;
      tokens += s->text.length;
    } else {
      tokens += s->text.length - s->old_length;
      rewritten.push_back(s->label);
    }
  }
  MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, "entries", documents, tokens));
  if (!rewritten.empty()) {
    Params p;
    p.Add(static_cast<int64_t>(kChangeRemoved)).AddIntArray(rewritten);
    MNEMO_ASSIGN_OR_RETURN(
        Rows logged,
        conn.Exec("INSERT INTO vector_changes (signature, label, present) SELECT signature, "
                  "label, $1 FROM entry_vectors WHERE label = ANY($2::bigint[]) ORDER BY label, "
                  "signature",
                  p, "log the removal of the entries' vectors"));
    if (logged.affected() > 0) {
      logged_changes_ += logged.affected();
      MNEMO_RETURN_IF_ERROR(conn.Exec("DELETE FROM entry_vectors WHERE label = ANY($1::bigint[])",
                                      Params().AddIntArray(rewritten),
                                      "delete the entries' vectors")
                                .status());
    }
  }
  if (large) {
    // The generation of entry_terms moves once and the log says "reload
    // everything" once, whichever way the counts went in: the bulk fold
    // folds the notes there are (all of them, or the rewrites' beside the
    // copied counts).
    MNEMO_RETURN_IF_ERROR(pg::FlushEntryTerms(conn, {.bulk = true, .copied = copy_counts}));
  }
  if (large) {
    // A pending list left unmerged makes every search read it whole (and the
    // planner prefers a sequential scan); and the planner's statistics of
    // entries just filled are those of the empty table until autovacuum
    // gets to it. entry_terms is left to autovacuum (pg_entry_search.h,
    // FlushEntryTerms: analysed right after a load, the writes' fold cost
    // five times the server CPU).
    // The text index is built with little memory: a GIN build gathers its
    // keys in a red-black tree as large as maintenance_work_mem and spends
    // most of its time comparing lexemes in it; a tree that outgrows the
    // CPU's caches makes every comparison a cache miss. At 100k entries
    // 16 MB cost 4 s of server CPU where 256 MB or more cost 7 s, and gave
    // a smaller index (docs/scaling.md).
    MNEMO_RETURN_IF_ERROR(conn.ExecScript(
        rebuild_index ? term_keys.make + btrees.make +
                            "SET LOCAL maintenance_work_mem = '8MB'; CREATE INDEX entries_tsv ON "
                            "entries USING GIN (tsv); ANALYZE entries"
                      : std::string("SELECT gin_clean_pending_list('entries_tsv'::regclass); "
                                    "ANALYZE entries"),
        "index the entries"));
  }
  // After the indexes are back: each vector's insert looks its entry up.
  MNEMO_RETURN_IF_ERROR(PutStagedVectors(*this, conn, order));
  if (labels != nullptr) {
    for (const Staged* s : of_write) labels->push_back(s->label);
  }
  return created;
}

}  // namespace mnemo::storage::internal
