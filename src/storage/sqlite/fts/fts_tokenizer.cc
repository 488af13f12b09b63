#include "storage/sqlite/fts/fts_tokenizer.h"

#include <sqlite3.h>

#include <string>

#include "storage/rules/entry_rules.h"
#include "storage/sqlite/connection.h"
#include "storage/sqlite/fts/entry_tokens.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage::internal {

thread_local IndexedLengthCapture* g_capture = nullptr;

struct CaptureAccess {
  static void Add(int64_t tokens) {
    if (g_capture != nullptr) g_capture->tokens_ += tokens;
  }
};

IndexedLengthCapture::IndexedLengthCapture() : previous_(g_capture) { g_capture = this; }

IndexedLengthCapture::~IndexedLengthCapture() { g_capture = previous_; }

thread_local TokenReplay* g_replay = nullptr;

TokenReplay::TokenReplay(const TokenizedTexts& texts, size_t key, size_t content)
    : texts_(texts), key_(key), content_(content), previous_(g_replay) {
  g_replay = this;
}

TokenReplay::~TokenReplay() { g_replay = previous_; }

struct ReplayAccess {
  // The recorded text equal to `text` under the innermost replay, if any.
  static bool Find(std::string_view text, const TokenizedTexts** texts, size_t* index) {
    if (g_replay == nullptr) return false;
    const TokenReplay& r = *g_replay;
    for (const size_t i : {r.key_, r.content_}) {
      if (r.texts_.text(i) == text) {
        *texts = &r.texts_;
        *index = i;
        return true;
      }
    }
    return false;
  }
};

namespace {

// The tokenizer keeps no state; FTS5 still wants a non-null instance.
struct TokenizerInstance {};

int Create(void* /*ctx*/, const char** /*args*/, int /*nargs*/, Fts5Tokenizer** out) {
  *out = reinterpret_cast<Fts5Tokenizer*>(new TokenizerInstance());
  return SQLITE_OK;
}

void Delete(Fts5Tokenizer* tokenizer) { delete reinterpret_cast<TokenizerInstance*>(tokenizer); }

int Tokenize(Fts5Tokenizer* /*tokenizer*/, void* ctx, int flags, const char* text, int size,
             int (*emit)(void*, int, const char*, int, int, int)) {
  if (size <= 0) return SQLITE_OK;
  if ((flags & FTS5_TOKENIZE_QUERY) != 0) return emit(ctx, 0, text, size, 0, size);
  const std::string_view input(text, static_cast<size_t>(size));
  int rc = SQLITE_OK;
  auto pass = [&](const text::TokenView& t) {
    rc = emit(ctx, t.colocated ? FTS5_TOKEN_COLOCATED : 0, t.text.data(),
              static_cast<int>(t.text.size()), t.start, t.end);
    return rc == SQLITE_OK;
  };
  const TokenizedTexts* recorded = nullptr;
  size_t index = 0;
  if (ReplayAccess::Find(input, &recorded, &index)) {
    if (recorded->Replay(index, pass)) CaptureAccess::Add(recorded->length(index));
    return rc;
  }
  // text::Tokenize cannot be stopped, so after an error the rest is skipped.
  const int64_t length = IndexColumn(input, [&](const text::TokenView& t) {
    if (rc == SQLITE_OK && !t.text.empty()) pass(t);
  });
  if (rc == SQLITE_OK) CaptureAccess::Add(length);
  return rc;
}

}  // namespace

Result<fts5_api*> GetFts5Api(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_bind_pointer(stmt, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) return SqliteStatus(rc, "look up the FTS5 extension");
  if (api == nullptr || api->iVersion < 2) {
    return Unavailable("this SQLite library has no usable FTS5 extension");
  }
  return api;
}

Status RegisterFtsTokenizer(sqlite3* db) {
  MNEMO_ASSIGN_OR_RETURN(fts5_api * api, GetFts5Api(db));
  static fts5_tokenizer tokenizer = {Create, Delete, Tokenize};
  const int rc = api->xCreateTokenizer(api, kFtsTokenizerName, nullptr, &tokenizer, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : SqliteStatus(rc, "register the FTS5 tokenizer");
}

}  // namespace mnemo::storage::internal
