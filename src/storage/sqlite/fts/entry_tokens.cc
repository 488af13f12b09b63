#include "storage/sqlite/fts/entry_tokens.h"

#include <algorithm>
#include <system_error>

#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {

size_t TokenizedTexts::Add(std::string_view text) {
  Text t{.text = text, .first = static_cast<uint32_t>(tokens_.size())};
  t.length = IndexColumn(text, [this](const text::TokenView& tok) {
    tokens_.push_back({.offset = static_cast<uint32_t>(bytes_.size()),
                       .size = static_cast<uint32_t>(tok.text.size()),
                       .start = tok.start,
                       .end = tok.end,
                       .colocated = tok.colocated});
    bytes_.append(tok.text);
  });
  t.count = static_cast<uint32_t>(tokens_.size()) - t.first;
  texts_.push_back(t);
  return texts_.size() - 1;
}

void TokenizedTexts::Clear() {
  bytes_.clear();
  tokens_.clear();
  texts_.clear();
}

EntryTokenPipeline::EntryTokenPipeline(std::span<const EntryWrite> writes)
    : writes_(writes),
      chunks_((writes.size() + kChunk - 1) / kChunk),
      slots_(std::min(kSlots, chunks_)),
      ready_(chunks_, 0) {
  if (chunks_ == 0) return;
  next_ = 1;
  if (chunks_ > 1) {
    try {
      helper_ = std::thread([this] { Help(); });
    } catch (const std::system_error&) {
      // No thread to be had (a process limit): the writer tokenizes each
      // chunk itself when it gets there, as with no helper.
    }
  }
  Fill(0);
  std::lock_guard lock(mu_);
  ready_[0] = 1;
}

EntryTokenPipeline::~EntryTokenPipeline() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (helper_.joinable()) helper_.join();
}

void EntryTokenPipeline::Fill(size_t c) {
  TokenizedTexts& slot = slots_[c % slots_.size()];
  slot.Clear();
  const size_t end = std::min(writes_.size(), (c + 1) * kChunk);
  for (size_t i = c * kChunk; i < end; ++i) {
    slot.Add(writes_[i].key);
    slot.Add(writes_[i].content);
  }
}

void EntryTokenPipeline::Help() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || (next_ < chunks_ && next_ < released_ + kSlots); });
    if (stop_) return;
    const size_t c = next_++;
    lock.unlock();
    Fill(c);
    lock.lock();
    ready_[c] = 1;
    cv_.notify_all();
  }
}

const TokenizedTexts& EntryTokenPipeline::Chunk(size_t c) {
  std::unique_lock lock(mu_);
  if (next_ == c) {
    ++next_;
    lock.unlock();
    Fill(c);
    lock.lock();
    ready_[c] = 1;
  } else {
    cv_.wait(lock, [&] { return ready_[c] != 0; });
  }
  return slots_[c % slots_.size()];
}

void EntryTokenPipeline::Release(size_t c) {
  {
    std::lock_guard lock(mu_);
    released_ = std::max(released_, c + 1);
  }
  cv_.notify_all();
}

}  // namespace mnemo::storage::internal
