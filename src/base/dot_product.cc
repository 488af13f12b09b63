// The dot products every vector comparison uses: the graph's and the flat
// index's scores (index/) and the word vectors' soft matching (embed/). Each
// kernel is built once per instruction set and picked once at load; the
// summation order is the same in every build, so a pair gets the same value
// on any machine.
#include "base/dot_product.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cmath>

namespace mnemo {

namespace {

// Sixteen independent partial sums: each lane is its own dependency chain,
// so the compiler maps them onto SIMD registers without reassociating. The
// summation order is the same in every instruction set below.
[[gnu::always_inline]] inline float DotBody(const float* a, const float* b, size_t n) {
  constexpr size_t kLanes = 16;
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) acc[j] += a[i + j] * b[i + j];
  }
  float tail = 0;
  for (; i < n; ++i) tail += a[i] * b[i];
  for (size_t width = kLanes / 2; width > 0; width /= 2) {
    for (size_t j = 0; j < width; ++j) acc[j] += acc[j + width];
  }
  return acc[0] + tail;
}

// One build of the body per instruction set, picked once from what the
// processor supports: AVX2 and AVX-512 machines get wide registers without
// building with -march=native. (Not GCC's target_clones: its ifunc resolver
// is exported from libmnemo whatever the visibility says.)
__attribute__((target("avx512f"))) float DotAvx512(const float* a, const float* b, size_t n) {
  return DotBody(a, b, n);
}
__attribute__((target("avx2"))) float DotAvx2(const float* a, const float* b, size_t n) {
  return DotBody(a, b, n);
}
float DotDefault(const float* a, const float* b, size_t n) { return DotBody(a, b, n); }

using DotFn = float (*)(const float*, const float*, size_t);

DotFn PickDot() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return DotAvx512;
  if (__builtin_cpu_supports("avx2")) return DotAvx2;
  return DotDefault;
}

// Picked on the first call (constant-initialised, so a call during another
// file's static initialisation finds it too); a race picks the same twice.
std::atomic<DotFn> picked_dot{nullptr};

// The int8 product needs explicit widening multiply-adds: GCC vectorised a
// portable loop with vpmullw and separate sign extensions (half the 1M graph
// build's time went to it). Integer sums are exact, so every variant gives
// the same result.
int32_t DotInt8Default(const int8_t* a, const int8_t* b, size_t n) {
  int32_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<int32_t>(a[i]) * b[i];
  return sum;
}

__attribute__((target("avx2"))) int32_t DotInt8Avx2(const int8_t* a, const int8_t* b, size_t n) {
  __m256i acc = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i va =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m256i vb =
        _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    acc = _mm256_add_epi32(acc, _mm256_madd_epi16(va, vb));
  }
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  int32_t sum = 0;
  for (int32_t lane : lanes) sum += lane;
  return sum + DotInt8Default(a + i, b + i, n - i);
}

__attribute__((target("avx512f,avx512bw"))) int32_t DotInt8Avx512(const int8_t* a, const int8_t* b,
                                                                  size_t n) {
  __m512i acc = _mm512_setzero_si512();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512i va =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i)));
    const __m512i vb =
        _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + i)));
    acc = _mm512_add_epi32(acc, _mm512_madd_epi16(va, vb));
  }
  // Lanes summed through memory: GCC 12 reports _mm512_reduce_add_epi32's own
  // undefined-initialised temporary as used uninitialised (-Wuninitialized).
  alignas(64) int32_t lanes[16];
  _mm512_store_si512(lanes, acc);
  int32_t sum = 0;
  for (int32_t lane : lanes) sum += lane;
  return sum + DotInt8Default(a + i, b + i, n - i);
}

[[gnu::always_inline]] inline float DotFloatInt8Body(const float* a, const int8_t* b, size_t n) {
  constexpr size_t kLanes = 16;
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; ++j) acc[j] += a[i + j] * static_cast<float>(b[i + j]);
  }
  float tail = 0;
  for (; i < n; ++i) tail += a[i] * static_cast<float>(b[i]);
  for (size_t width = kLanes / 2; width > 0; width /= 2) {
    for (size_t j = 0; j < width; ++j) acc[j] += acc[j + width];
  }
  return acc[0] + tail;
}

__attribute__((target("avx512f,avx512bw"))) float DotFloatInt8Avx512(const float* a,
                                                                     const int8_t* b, size_t n) {
  return DotFloatInt8Body(a, b, n);
}
__attribute__((target("avx2"))) float DotFloatInt8Avx2(const float* a, const int8_t* b, size_t n) {
  return DotFloatInt8Body(a, b, n);
}
float DotFloatInt8Default(const float* a, const int8_t* b, size_t n) {
  return DotFloatInt8Body(a, b, n);
}

using DotInt8Fn = int32_t (*)(const int8_t*, const int8_t*, size_t);
using DotFloatInt8Fn = float (*)(const float*, const int8_t*, size_t);

struct Int8Kernels {
  DotInt8Fn dot;
  DotFloatInt8Fn dot_float;
};

Int8Kernels PickInt8() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) {
    return {DotInt8Avx512, DotFloatInt8Avx512};
  }
  if (__builtin_cpu_supports("avx2")) return {DotInt8Avx2, DotFloatInt8Avx2};
  return {DotInt8Default, DotFloatInt8Default};
}

const Int8Kernels& Int8() {
  static const Int8Kernels kKernels = PickInt8();
  return kKernels;
}

}  // namespace

float QuantizeInt8(const float* v, size_t n, int8_t* q) {
  float max_abs = 0;
  for (size_t i = 0; i < n; ++i) max_abs = std::max(max_abs, std::fabs(v[i]));
  if (!(max_abs > 0)) {
    std::fill(q, q + n, int8_t{0});
    return 0;
  }
  const float scale = max_abs / 127.0f;
  const float inv = 127.0f / max_abs;
  for (size_t i = 0; i < n; ++i) {
    const float r = std::nearbyint(v[i] * inv);
    q[i] = static_cast<int8_t>(std::clamp(r, -127.0f, 127.0f));
  }
  return scale;
}

int32_t DotInt8(const int8_t* a, const int8_t* b, size_t n) { return Int8().dot(a, b, n); }

float DotFloatInt8(const float* a, const int8_t* b, size_t n) { return Int8().dot_float(a, b, n); }

float Dot(const float* a, const float* b, size_t n) {
  DotFn dot = picked_dot.load(std::memory_order_relaxed);
  if (dot == nullptr) {
    dot = PickDot();
    picked_dot.store(dot, std::memory_order_relaxed);
  }
  return dot(a, b, n);
}

}  // namespace mnemo
