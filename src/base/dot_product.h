// The dot-product kernels of every vector comparison (the indexes' scores,
// the word vectors' soft matching): one piece of code for both.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mnemo {

// Dot product of two n-float arrays. Written with independent lanes so that
// -O2 vectorises it without -ffast-math or -march=native, and cloned for
// AVX2 / AVX-512 (chosen when the library loads). The summation order is the same in
// every clone, so a pair always gets the same score on any machine.
float Dot(const float* a, const float* b, size_t n);

// Scalar quantisation of a unit vector to int8 (HnswIndex's kInt8 encoding):
// v[i] ~ scale * q[i] with scale = max|v[i]| / 127, so each component keeps
// ~8 bits relative to the largest one. Returns scale (0 for a zero vector).
float QuantizeInt8(const float* v, size_t n, int8_t* q);
// Sum of a[i] * b[i] over n int8 pairs, exact (int32 accumulation; n below
// 2^17 cannot overflow).
int32_t DotInt8(const int8_t* a, const int8_t* b, size_t n);
// Sum of a[i] * b[i] for a float a and an int8 b (the query against a stored
// quantised vector: only one side carries quantisation error).
float DotFloatInt8(const float* a, const int8_t* b, size_t n);

}  // namespace mnemo
