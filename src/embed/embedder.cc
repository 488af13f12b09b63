#include "embed/embedder.h"

#include <cmath>
#include <cstdlib>

namespace mnemo::embed {

namespace {
constexpr std::string_view kExternalPrefix = "external:";
}  // namespace

std::string ExternalSignature(int dimensions) {
  return std::string(kExternalPrefix) + std::to_string(dimensions);
}
bool IsExternalSignature(std::string_view signature) {
  return signature.starts_with(kExternalPrefix);
}

bool NormalizeL2(std::span<float> v) {
  double norm2 = 0;
  for (float x : v) norm2 += static_cast<double>(x) * x;
  if (!(norm2 > 0) || !std::isfinite(norm2)) return false;
  const double scale = 1.0 / std::sqrt(norm2);
  for (float& x : v) x = static_cast<float>(x * scale);
  return true;
}

double Dot(std::span<const float> a, std::span<const float> b) {
  double sum = 0;
  const size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) sum += static_cast<double>(a[i]) * b[i];
  return sum;
}

}  // namespace mnemo::embed
