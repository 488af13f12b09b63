#include "storage/postgres/sql/pg_text.h"

#include <algorithm>
#include <utility>

#include "storage/rules/bm25.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal::pg {
namespace {

constexpr size_t kMaxPositions = 256;     // PostgreSQL's MAXNUMPOS
constexpr size_t kMaxLexemeBytes = 2046;  // below its MAXSTRLEN

}  // namespace

bool SearchableTerm(std::string_view term) {
  return !term.empty() && term.size() <= kMaxLexemeBytes;
}

IndexedText IndexText(std::initializer_list<std::string_view> columns) {
  // Every token's bytes one after the other, then the tokens sorted and
  // counted by runs: no allocation per token (a map of strings made one for
  // each, and was most of a bulk write's tokenizing after the tokenizer).
  std::string bytes;
  std::vector<std::pair<uint32_t, uint32_t>> tokens;  // offset, size in bytes
  IndexedText out;
  for (std::string_view column : columns) {
    out.length += IndexColumn(column, [&](const text::TokenView& t) {
      // A lexeme is at most 2 KiB; a longer token (never a word) is counted
      // in the length but not searchable.
      if (t.text.size() <= kMaxLexemeBytes) {
        tokens.emplace_back(static_cast<uint32_t>(bytes.size()),
                            static_cast<uint32_t>(t.text.size()));
        bytes += t.text;
      }
    });
  }
  const std::string_view all = bytes;
  auto view = [&](const std::pair<uint32_t, uint32_t>& t) { return all.substr(t.first, t.second); };
  std::sort(tokens.begin(), tokens.end(),
            [&](const auto& x, const auto& y) { return view(x) < view(y); });
  out.lexeme_bytes.reserve(bytes.size());
  for (size_t i = 0; i < tokens.size();) {
    const std::string_view token = view(tokens[i]);
    size_t j = i + 1;
    while (j < tokens.size() && view(tokens[j]) == token) ++j;
    out.lexeme_bytes += token;
    out.lexeme_ends.push_back(static_cast<uint32_t>(out.lexeme_bytes.size()));
    out.lexeme_tf.push_back(static_cast<uint16_t>(std::min(j - i, kMaxPositions)));
    i = j;
  }
  return out;
}

std::string TsvectorLiteral(const IndexedText& text) {
  std::string out;
  for (size_t i = 0; i < text.LexemeCount(); ++i) {
    if (i > 0) out += ' ';
    AppendQuotedLexeme(out, text.Lexeme(i));
    out += ':';
    for (uint16_t p = 1; p <= text.lexeme_tf[i]; ++p) {
      if (p > 1) out += ',';
      out += std::to_string(p);
    }
  }
  return out;
}

void AppendCopyBinaryTsvector(std::string& out, const IndexedText& text) {
  // tsvectorrecv's form: the lexeme count, then each lexeme NUL-terminated,
  // its position count and its positions (weight D: the bare number).
  size_t size = 4 + text.lexeme_bytes.size();
  for (size_t i = 0; i < text.LexemeCount(); ++i) size += 3 + 2 * size_t{text.lexeme_tf[i]};
  AppendCopyBinaryLength(out, size);
  AppendBigEndian32(out, static_cast<uint32_t>(text.LexemeCount()));
  for (size_t i = 0; i < text.LexemeCount(); ++i) {
    out += text.Lexeme(i);
    out += '\0';
    AppendBigEndian16(out, text.lexeme_tf[i]);
    for (uint16_t p = 1; p <= text.lexeme_tf[i]; ++p) AppendBigEndian16(out, p);
  }
}

Status AddTextStats(PgConn& conn, std::string_view name, int64_t documents, int64_t tokens) {
  auto& delta = conn.text_stats_delta[std::string(name)];
  delta.first += documents;
  delta.second += tokens;
  return Status::Ok();
}

Status FlushTextStats(PgConn& conn) {
  for (const auto& [name, delta] : conn.text_stats_delta) {
    if (delta.first == 0 && delta.second == 0) continue;
    conn.before_commit.push_back({.sql = "UPDATE text_stats SET documents = documents + $2, "
                                         "total_tokens = total_tokens + $3 WHERE name = $1",
                                  .params = Params().Add(name).Add(delta.first).Add(delta.second),
                                  .prepared = true});
  }
  conn.text_stats_delta.clear();
  return Status::Ok();
}

namespace {

// " AND (owner = $n [OR visibility = 'public'])" for `scope` (its owner the
// next parameter of `params`), "" without one.
std::string TextScopeSql(const std::optional<TextScope>& scope, Params& params) {
  if (!scope) return "";
  params.Add(scope->owner);
  return " AND (owner = $" + std::to_string(params.size()) +
         (scope->with_public ? " OR visibility = 'public')" : ")");
}

}  // namespace

Result<std::vector<int64_t>> CountTermRows(PgConn& conn, std::string_view table,
                                           std::span<const std::string> terms,
                                           const std::optional<TextScope>& scope) {
  std::vector<int64_t> counts(terms.size(), 0);
  // Only lexemes a tsvector can hold are asked for: '' is no valid tsquery.
  std::vector<std::string> lexemes;
  std::vector<size_t> asked;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!SearchableTerm(terms[i])) continue;
    lexemes.push_back(QuoteLexeme(terms[i]));
    asked.push_back(i);
  }
  if (lexemes.empty()) return counts;
  Params params;
  params.AddTextArray(lexemes);
  const std::string in_scope = TextScopeSql(scope, params);
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn.Exec("SELECT (SELECT count(*) FROM " + std::string(table) +
                                                  " WHERE tsv @@ q.lexeme::tsquery" + in_scope +
                                                  ") FROM unnest($1::text[]) "
                                                  "WITH ORDINALITY AS q(lexeme, i) ORDER BY q.i",
                                              params, "count the rows of each term"));
  for (int i = 0; i < rows.size() && static_cast<size_t>(i) < asked.size(); ++i) {
    counts[asked[static_cast<size_t>(i)]] = rows.Int(i, 0);
  }
  return counts;
}

std::optional<TextScope> EntryTextScope(const ReadScope& scope) {
  if (scope.all) return std::nullopt;
  return TextScope{.owner = scope.principal, .with_public = true};
}

Result<TermWeights> WeighTerms(PgConn& conn, std::string_view stats_name, std::string_view table,
                               const std::vector<std::string>& terms,
                               const std::optional<TextScope>& scope) {
  TermWeights w;
  if (terms.empty()) return w;
  Params scoped;
  const std::string in_scope = TextScopeSql(scope, scoped);
  MNEMO_ASSIGN_OR_RETURN(
      Rows stats, scope
                      ? conn.Exec("SELECT count(*), COALESCE(sum(doc_length), 0) FROM " +
                                      std::string(table) + " WHERE true" + in_scope,
                                  scoped, "read the caller's keyword statistics")
                      : conn.Exec("SELECT documents, total_tokens FROM text_stats WHERE name = $1",
                                  Params().Add(stats_name), "read the keyword statistics"));
  const int64_t n = stats.empty() ? 0 : stats.Int(0, 0);
  const int64_t total = stats.empty() ? 0 : stats.Int(0, 1);
  if (n <= 0) return w;
  MNEMO_ASSIGN_OR_RETURN(std::vector<int64_t> df, CountTermRows(conn, table, terms, scope));
  w.terms = terms;
  for (const int64_t n_t : df) {
    const double idf = Bm25Idf(n, n_t);
    w.idf.push_back(idf);
    w.mass += idf;
  }
  w.avgdl = total > 0 ? static_cast<double>(total) / static_cast<double>(n) : 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (i > 0) w.tsquery += " | ";
    w.tsquery += QuoteLexeme(terms[i]);
  }
  return w;
}

ScoreSql AddScoreParams(Params& params, const TermWeights& w, std::string_view alias) {
  const std::string a(alias);
  const int first = params.size() + 1;
  params.Add(w.tsquery).AddTextArray(w.terms).AddDoubleArray(w.idf).Add(w.avgdl).Add(w.mass);
  const std::string q = "$" + std::to_string(first);
  const std::string terms = "$" + std::to_string(first + 1);
  const std::string idf = "$" + std::to_string(first + 2);
  const std::string avgdl = "$" + std::to_string(first + 3);
  const std::string mass = "$" + std::to_string(first + 4);
  // avgdl 0 (no tokens at all): every length is average, as in bm25.cc.
  const std::string ratio = "(CASE WHEN " + avgdl + "::float8 > 0 THEN " + a + ".doc_length / " +
                            avgdl + "::float8 ELSE 1.0 END)";
  ScoreSql out;
  out.match = a + ".tsv @@ " + q + "::tsquery";
  out.score = "LEAST(1.0, (SELECT COALESCE(SUM(w.idf * cardinality(u.positions) * " +
              std::to_string(kBm25K1 + 1) + " / (cardinality(u.positions) + " +
              std::to_string(kBm25K1) + " * (1 - " + std::to_string(kBm25B) + " + " +
              std::to_string(kBm25B) + " * " + ratio + "))), 0) FROM unnest(" + a +
              ".tsv) AS u JOIN unnest(" + terms + "::text[], " + idf +
              "::float8[]) AS w(term, idf) ON u.lexeme = w.term) / " + mass + "::float8)";
  out.matched = "(SELECT count(*) FROM unnest(" + a + ".tsv) AS u WHERE u.lexeme = ANY(" + terms +
                "::text[]))";
  return out;
}

}  // namespace mnemo::storage::internal::pg
