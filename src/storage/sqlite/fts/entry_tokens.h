// The keyword-index tokens of a batch of entry writes, computed before the
// writer needs them (issue 22). Tokenizing is about half of a keyword-only
// import's CPU; done inside the FTS5 insert it runs on the writer's thread
// while the writer lock is held. Here a small batch is tokenized before the
// lock is taken, and a large one chunk by chunk, a helper thread working
// ahead of the writer. The `mnemo` FTS5 tokenizer replays these tokens
// (fts_tokenizer.h TokenReplay) instead of tokenizing the text again, and
// each entry row is inserted with its document length already known, so the
// length no longer costs a second write of the row.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "storage/entry_store.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage::internal {

// The tokens of some texts, exactly as IndexColumn (entry_rules.h) emits
// them, with each text's column length.
class TokenizedTexts {
 public:
  // Tokenizes `text` and returns its index. The text is kept by reference:
  // it must outlive this object (or the next Clear).
  size_t Add(std::string_view text);
  void Clear();

  std::string_view text(size_t i) const { return texts_[i].text; }
  int64_t length(size_t i) const { return texts_[i].length; }
  // Calls `emit` for each token of text i, in order, until it returns false;
  // returns false when it did.
  template <typename Emit>
  bool Replay(size_t i, const Emit& emit) const {
    const Text& t = texts_[i];
    for (uint32_t k = t.first; k < t.first + t.count; ++k) {
      const Token& tok = tokens_[k];
      const text::TokenView view{std::string_view(bytes_).substr(tok.offset, tok.size), tok.start,
                                 tok.end, tok.colocated};
      if (!emit(view)) return false;
    }
    return true;
  }

 private:
  struct Token {
    uint32_t offset = 0;  // in bytes_
    uint32_t size = 0;
    int32_t start = 0;
    int32_t end = 0;
    bool colocated = false;
  };
  struct Text {
    std::string_view text;
    uint32_t first = 0;  // in tokens_
    uint32_t count = 0;
    int64_t length = 0;
  };
  std::string bytes_;
  std::vector<Token> tokens_;
  std::vector<Text> texts_;
};

// Tokenizes the key and content of every write, in chunks of kChunk writes
// taken in order: write i of chunk c is text 2i (key) and 2i + 1 (content)
// of Chunk(c). The constructor tokenizes chunk 0 on the calling thread
// (before the caller takes its lock) and, when there are more, starts one
// helper thread that works at most kSlots - 1 chunks ahead of the writer;
// the writer tokenizes a chunk itself when it gets there first, so both
// cores work whichever side is slower. Memory is bounded by kSlots chunks.
// When no thread can be started the writer tokenizes every chunk itself.
// One writer thread; `writes` must outlive the pipeline.
class EntryTokenPipeline {
 public:
  static constexpr size_t kChunk = 2048;
  static constexpr size_t kSlots = 3;

  explicit EntryTokenPipeline(std::span<const EntryWrite> writes);
  ~EntryTokenPipeline();
  EntryTokenPipeline(const EntryTokenPipeline&) = delete;
  EntryTokenPipeline& operator=(const EntryTokenPipeline&) = delete;

  size_t chunks() const { return chunks_; }
  // The tokens of chunk c. Chunks are asked for in order, each after the one
  // before it was released.
  const TokenizedTexts& Chunk(size_t c);
  // The writer is done with chunk c: its slot may take a later chunk.
  void Release(size_t c);

 private:
  void Fill(size_t c);
  void Help();

  std::span<const EntryWrite> writes_;
  size_t chunks_;
  std::vector<TokenizedTexts> slots_;
  std::mutex mu_;
  std::condition_variable cv_;
  size_t next_ = 0;      // the next chunk nobody has started
  size_t released_ = 0;  // chunks below this are released
  std::vector<char> ready_;
  bool stop_ = false;
  std::thread helper_;
};

}  // namespace mnemo::storage::internal
