// Keyword search on PostgreSQL with mnemo's own tokens and mnemo's score.
//
// Indexing: the columns of a row go through IndexColumn (entry_rules.h), the
// same tokenizer as the SQLite FTS5 tables, and are stored as a tsvector
// built here (a literal, or the binary form a bulk write's COPY sends):
// each distinct token once, with positions 1..tf, so the
// server never parses the text (its `simple` parser would split Chinese and
// Arabic differently) and a token's term frequency is the number of its
// positions. PostgreSQL keeps at most 256 positions per lexeme, so tf is
// capped at 256 (a difference from SQLite only for a token repeated more
// than 256 times in one row).
//
// Scoring: bm25.h's normalised BM25, computed by the server per candidate:
//   score = min(1, Σ_t idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl)) / Σ_t idf(t))
// with N and avgdl from text_stats, n_t counted with the GIN index, and
// idf(t) = bm25.h's Bm25Idf computed here, exactly
// as the SQLite rank function computes it.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/entry_store.h"
#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

struct IndexedText {
  int64_t length = 0;  // BM25 document length, as FTS5 counts it
  // The tsvector's lexemes, in byte order, unquoted (as tsvector_to_array
  // gives them back): Lexeme(i) for i < LexemeCount(), one after the other
  // in lexeme_bytes (no allocation per lexeme; a bulk write keeps them for
  // its keyword statistics), each with its term frequency (positions
  // 1..tf in the tsvector).
  std::string lexeme_bytes;
  std::vector<uint32_t> lexeme_ends;
  std::vector<uint16_t> lexeme_tf;
  size_t LexemeCount() const { return lexeme_ends.size(); }
  std::string_view Lexeme(size_t i) const {
    const uint32_t from = i == 0 ? 0 : lexeme_ends[i - 1];
    return std::string_view(lexeme_bytes).substr(from, lexeme_ends[i] - from);
  }
};

// `text`'s tsvector as a literal ('lexeme':1,2 ...), a statement's parameter.
std::string TsvectorLiteral(const IndexedText& text);
// The same as one field of a COPY (FORMAT binary) row (pg_values.h), no
// literal made or parsed.
void AppendCopyBinaryTsvector(std::string& out, const IndexedText& text);

// Whether a tsvector can hold `term` as a lexeme (not empty, not longer
// than IndexText keeps).
bool SearchableTerm(std::string_view term);

// The tokens of `columns` (one indexed column each, like an FTS5 row).
IndexedText IndexText(std::initializer_list<std::string_view> columns);

// Adds `documents` and `tokens` to the text_stats row `name` (negative to
// remove) for the caller's write transaction: collected on `conn` and written
// once by FlushTextStats, in the commit's pipeline (PostgresDatabase::Write,
// Pool::Transaction). Updating
// the row per written row would cost O(n²) in a bulk import: every update in
// one transaction walks the chain of that row's earlier versions.
Status AddTextStats(PgConn& conn, std::string_view name, int64_t documents, int64_t tokens);
Status FlushTextStats(PgConn& conn);

// The rows whose statistics a caller's search uses (issue 17: one
// principal's scores never depend on another's private rows): those of
// `owner`, plus the public ones when `with_public` (entries).
struct TextScope {
  std::string owner;
  bool with_public = false;
};

// The entries `scope` may read (none: every entry).
std::optional<TextScope> EntryTextScope(const ReadScope& scope);

// How many rows of `table` (with a `tsv` column) hold each of `terms`, in
// order, counted with the GIN index (only the rows of `scope` when given). A
// term no tsvector can hold (empty, or longer than IndexText keeps) counts 0.
Result<std::vector<int64_t>> CountTermRows(PgConn& conn, std::string_view table,
                                           std::span<const std::string> terms,
                                           const std::optional<TextScope>& scope = std::nullopt);

// What a search of `terms` over a table needs: the tsquery matching any term,
// each term's idf, the sum of the idfs, and avgdl.
struct TermWeights {
  std::string tsquery;
  std::vector<std::string> terms;
  std::vector<double> idf;
  double mass = 0;
  double avgdl = 1;
  bool empty() const { return terms.empty() || mass <= 0; }
};

// Reads N and the token total of text_stats `stats_name` and counts the rows
// of `table` (with a `tsv` column) holding each of `terms` (distinct, in
// order). With a `scope`, N, the token total and the counts are those of
// the scope's rows instead (a count over them: O(rows in scope)).
Result<TermWeights> WeighTerms(PgConn& conn, std::string_view stats_name, std::string_view table,
                               const std::vector<std::string>& terms,
                               const std::optional<TextScope>& scope = std::nullopt);

// Adds the weights as four parameters (tsquery, terms, idf, avgdl then mass:
// five) to `params` and returns the SQL of the normalised score of the row
// `alias` (with columns tsv and doc_length), plus its match condition.
struct ScoreSql {
  std::string match;    // "<alias>.tsv @@ $n::tsquery"
  std::string score;    // a double in [0, 1]
  std::string matched;  // a bigint: how many of the terms the row holds
};
ScoreSql AddScoreParams(Params& params, const TermWeights& weights, std::string_view alias);

}  // namespace mnemo::storage::internal::pg
