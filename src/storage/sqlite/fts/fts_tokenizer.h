// The FTS5 tokenizer `mnemo`: the adapter between FTS5 and the one text
// pipeline (text/pipeline/tokenizer.h), so that index and query agree exactly.
//
// - Document mode (indexing, the 'delete' command, auxiliary functions):
//   text::Tokenize; colocated tokens are passed with FTS5_TOKEN_COLOCATED.
// - Query mode: the input is one term of a MATCH expression the backend built
//   from KeywordQuery::terms, which text::QueryTerms already produced. It is
//   passed on verbatim as one token; re-tokenising it could split or fold it
//   differently and lose the agreement.
#pragma once

#include <sqlite3.h>

#include <cstdint>

#include "mnemo/status.h"

namespace mnemo::storage::internal {

inline constexpr const char* kFtsTokenizerName = "mnemo";

// The connection's fts5_api (SELECT fts5(?1) with a bound "fts5_api_ptr").
Result<struct fts5_api*> GetFts5Api(sqlite3* db);

// Registers `mnemo` on this connection.
Status RegisterFtsTokenizer(sqlite3* db);

// While alive, sums on this thread the lengths (entry_rules.h IndexColumn) of
// every text the `mnemo` tokenizer indexes in document mode, so the writer
// learns a document's length from its FTS5 insert instead of tokenising it
// twice. Nests; not shared between threads.
class IndexedLengthCapture {
 public:
  IndexedLengthCapture();
  ~IndexedLengthCapture();
  IndexedLengthCapture(const IndexedLengthCapture&) = delete;
  IndexedLengthCapture& operator=(const IndexedLengthCapture&) = delete;

  int64_t tokens() const { return tokens_; }

 private:
  friend struct CaptureAccess;
  int64_t tokens_ = 0;
  IndexedLengthCapture* previous_;
};

class TokenizedTexts;

// While alive, the `mnemo` tokenizer on this thread, handed (in document
// mode) a text equal byte for byte to text `key` or `content` of `texts`,
// emits its recorded tokens instead of tokenizing it again (entry_tokens.h).
// Tokens are a function of the text alone, so a replay is what tokenizing
// would have emitted. Nests; not shared between threads.
class TokenReplay {
 public:
  TokenReplay(const TokenizedTexts& texts, size_t key, size_t content);
  ~TokenReplay();
  TokenReplay(const TokenReplay&) = delete;
  TokenReplay& operator=(const TokenReplay&) = delete;

 private:
  friend struct ReplayAccess;
  const TokenizedTexts& texts_;
  size_t key_;
  size_t content_;
  TokenReplay* previous_;
};

}  // namespace mnemo::storage::internal
