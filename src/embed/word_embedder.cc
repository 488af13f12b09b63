#include "embed/word_embedder.h"

#include <vector>

namespace mnemo::embed {

void ForEachEnglishWord(std::string_view text, const std::function<void(std::string_view)>& sink) {
  thread_local std::string word;
  size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!letter) {
      ++i;
      continue;
    }
    const size_t start = i;
    word.clear();
    while (i < text.size()) {
      const auto d = static_cast<unsigned char>(text[i]);
      if (d >= 'a' && d <= 'z') {
        word.push_back(static_cast<char>(d));
      } else if (d >= 'A' && d <= 'Z') {
        word.push_back(static_cast<char>(d - 'A' + 'a'));
      } else {
        break;
      }
      ++i;
    }
    // A run glued to a non-ASCII letter or digit ("café", "mp3") is not an
    // English word of the vocabulary's kind; its parts are left alone.
    auto joins = [&](size_t at) {
      const auto b = static_cast<unsigned char>(text[at]);
      return b >= 0x80 || (b >= '0' && b <= '9');
    };
    const bool glued = (i < text.size() && joins(i)) || (start > 0 && joins(start - 1));
    if (!glued) sink(word);
  }
}

WordEmbedder::WordEmbedder(std::shared_ptr<const WordVectors> vectors)
    : vectors_(std::move(vectors)),
      signature_("words-v" + std::to_string(kVersion) + "-" + vectors_->checksum().substr(0, 16)) {}

bool WordEmbedder::EmbedInto(std::string_view text, std::span<float> out) const {
  const uint32_t dims = vectors_->dimensions();
  thread_local std::vector<float> word;
  thread_local std::vector<double> sum;
  word.resize(dims);
  sum.assign(dims, 0.0);
  int found = 0;
  ForEachEnglishWord(text, [&](std::string_view w) {
    const auto rank = vectors_->Find(w);
    if (!rank) return;
    const double weight = SifWeightForRank(*rank);
    vectors_->Load(*rank, word);
    for (uint32_t i = 0; i < dims; ++i) sum[i] += weight * word[i];
    ++found;
  });
  for (float& x : out) x = 0.0f;
  if (found == 0) return false;
  const std::span<const float> pc = vectors_->common();
  double along = 0;
  for (uint32_t i = 0; i < dims; ++i) along += sum[i] * pc[i];
  for (uint32_t i = 0; i < dims; ++i) sum[i] -= along * pc[i];
  for (uint32_t i = 0; i < dims && i < out.size(); ++i) out[i] = static_cast<float>(sum[i]);
  if (NormalizeL2(out.first(std::min<size_t>(dims, out.size())))) return true;
  for (float& x : out) x = 0.0f;
  return false;
}

Result<std::vector<Vector>> WordEmbedder::Embed(std::span<const std::string> texts) {
  std::vector<Vector> out(texts.size(), Vector(vectors_->dimensions()));
  for (size_t i = 0; i < texts.size(); ++i) EmbedInto(texts[i], out[i]);
  return out;
}

}  // namespace mnemo::embed
