// The integer layers the learned evaluations share (chess_network.cpp, connect6_network.cpp), written for
// each instruction set (search/simd.h), the same integers on each:
//   update:     to[i] = from[i] + Σ add rows[i] − Σ sub rows[i]    (int16, wrapping around)
//   activate:   x[i] = clamp(a[i], 0, 127)                           (int16 -> uint8)
//   head:       the dense layers after the accumulators, for `n` inputs x (uint8, ≤ 127):
//     h2[j] = clamp((l2_bias[j] + Σ_i x[i] · l2[j][i]) >> 6, 0, 127)     j < 16
//     h3[k] = clamp((l3_bias[k] + Σ_j h2[j] · l3[k][j]) >> 6, 0, 127)    k < 32
//     o     = out_bias + Σ_k h3[k] · out[k]
//   returned as o (64-bit: the biases may be anything; the dot products fit 32 bits).
// n: a multiple of 64; rows and lengths: multiples of 32 units.
#pragma once

#include <cstdint>

#include "warpmind/search/simd.h"

namespace warpmind::search::nnue {

constexpr int kL2 = 16, kL3 = 32, kActivation = 127, kShift = 6;

struct Rows {
  const std::int16_t* add[3];
  const std::int16_t* sub[3];
  int adds = 0, subs = 0;
};

struct Head {
  const std::int8_t* l2;        // [16][n]
  const std::int32_t* l2_bias;  // [16]
  const std::int8_t* l3;        // [32][16]
  const std::int32_t* l3_bias;  // [32]
  const std::int16_t* out;      // [32]
  std::int32_t out_bias;
};

void update(Simd s, const std::int16_t* from, std::int16_t* to, const Rows& r, int units);
void activate(Simd s, const std::int16_t* a, std::uint8_t* x, int units);
std::int64_t head(Simd s, const std::uint8_t* x, int n, const Head& h);

}  // namespace warpmind::search::nnue
