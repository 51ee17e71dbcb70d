#include "search/nnue_layers.h"

#include <algorithm>

#if defined(__x86_64__) || defined(_M_X64)
#define WM_NNUE_X86 1
#include <immintrin.h>
#endif

namespace warpmind::search {

bool supported(Simd s) {
#ifdef WM_NNUE_X86
  if (s == Simd::Avx2) return __builtin_cpu_supports("avx2");
  return true;
#else
  return s == Simd::Scalar;
#endif
}

Simd best_simd() {
  static const Simd best = supported(Simd::Avx2) ? Simd::Avx2 : supported(Simd::Sse2) ? Simd::Sse2 : Simd::Scalar;
  return best;
}

namespace nnue {

namespace {

void update_scalar(const std::int16_t* from, std::int16_t* to, const Rows& r, int h) {
  for (int i = 0; i < h; ++i) {
    int v = from[i];
    for (int k = 0; k < r.adds; ++k) v += r.add[k][i];
    for (int k = 0; k < r.subs; ++k) v -= r.sub[k][i];
    to[i] = static_cast<std::int16_t>(v);  // wraps around (C++20: modulo 2^16)
  }
}

// x[i] = clamp(a[i], 0, 127) for i < h.
void activate_scalar(const std::int16_t* a, std::uint8_t* x, int h) {
  for (int i = 0; i < h; ++i) x[i] = static_cast<std::uint8_t>(std::clamp<int>(a[i], 0, kActivation));
}

// out[j] = Σ_i x[i] · w[j · n + i] for j < 16 (n a multiple of 32).
void dot16_scalar(const std::uint8_t* x, const std::int8_t* w, int n, std::int32_t* out) {
  for (int j = 0; j < kL2; ++j) {
    std::int32_t s = 0;
    const std::int8_t* row = w + static_cast<std::size_t>(j) * static_cast<std::size_t>(n);
    for (int i = 0; i < n; ++i) s += x[i] * row[i];
    out[j] = s;
  }
}

#ifdef WM_NNUE_X86
void update_sse2(const std::int16_t* from, std::int16_t* to, const Rows& r, int h) {
  for (int i = 0; i < h; i += 8) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + i));
    for (int k = 0; k < r.adds; ++k)
      v = _mm_add_epi16(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(r.add[k] + i)));
    for (int k = 0; k < r.subs; ++k)
      v = _mm_sub_epi16(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(r.sub[k] + i)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(to + i), v);
  }
}

void activate_sse2(const std::int16_t* a, std::uint8_t* x, int h) {
  const __m128i top = _mm_set1_epi8(kActivation);
  for (int i = 0; i < h; i += 16) {
    const __m128i lo = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i));
    const __m128i hi = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i + 8));
    // packus saturates to 0..255; then at most 127.
    _mm_storeu_si128(reinterpret_cast<__m128i*>(x + i), _mm_min_epu8(_mm_packus_epi16(lo, hi), top));
  }
}

int hsum_sse2(__m128i v) {
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0x4E));
  v = _mm_add_epi32(v, _mm_shuffle_epi32(v, 0xB1));
  return _mm_cvtsi128_si32(v);
}

void dot16_sse2(const std::uint8_t* x, const std::int8_t* w, int n, std::int32_t* out) {
  const __m128i zero = _mm_setzero_si128();
  for (int j = 0; j < kL2; ++j) {
    const std::int8_t* row = w + static_cast<std::size_t>(j) * static_cast<std::size_t>(n);
    __m128i s = zero;
    for (int i = 0; i < n; i += 16) {
      const __m128i xv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
      const __m128i wv = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i));
      // Widen to 16 bits (x unsigned, w signed) and multiply-add pairs into 32 bits: exact.
      const __m128i x_lo = _mm_unpacklo_epi8(xv, zero), x_hi = _mm_unpackhi_epi8(xv, zero);
      const __m128i w_lo = _mm_srai_epi16(_mm_unpacklo_epi8(wv, wv), 8);
      const __m128i w_hi = _mm_srai_epi16(_mm_unpackhi_epi8(wv, wv), 8);
      s = _mm_add_epi32(s, _mm_add_epi32(_mm_madd_epi16(x_lo, w_lo), _mm_madd_epi16(x_hi, w_hi)));
    }
    out[j] = hsum_sse2(s);
  }
}

__attribute__((target("avx2"))) void update_avx2(const std::int16_t* from, std::int16_t* to, const Rows& r, int h) {
  for (int i = 0; i < h; i += 16) {
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(from + i));
    for (int k = 0; k < r.adds; ++k)
      v = _mm256_add_epi16(v, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.add[k] + i)));
    for (int k = 0; k < r.subs; ++k)
      v = _mm256_sub_epi16(v, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(r.sub[k] + i)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(to + i), v);
  }
}

__attribute__((target("avx2"))) void activate_avx2(const std::int16_t* a, std::uint8_t* x, int h) {
  const __m256i top = _mm256_set1_epi8(kActivation);
  for (int i = 0; i < h; i += 32) {
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(a + i + 16));
    // packus works within 128-bit lanes (lo0 hi0 lo1 hi1); the permute puts the quarters back in order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi16(lo, hi), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(x + i), _mm256_min_epu8(packed, top));
  }
}

__attribute__((target("avx2"))) void dot16_avx2(const std::uint8_t* x, const std::int8_t* w, int n, std::int32_t* out) {
  const __m256i ones = _mm256_set1_epi16(1);
  for (int j = 0; j < kL2; ++j) {
    const std::int8_t* row = w + static_cast<std::size_t>(j) * static_cast<std::size_t>(n);
    __m256i s = _mm256_setzero_si256();
    for (int i = 0; i < n; i += 32) {
      const __m256i xv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + i));
      const __m256i wv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + i));
      // maddubs: pairs of x · w summed in 16 bits with saturation, which x ≤ 127 never reaches
      // (|2 · 127 · 128| < 32768); madd with ones widens the pairs to 32 bits.
      s = _mm256_add_epi32(s, _mm256_madd_epi16(_mm256_maddubs_epi16(xv, wv), ones));
    }
    const __m128i half = _mm_add_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
    out[j] = hsum_sse2(half);
  }
}
#endif

void dot16(Simd s, const std::uint8_t* x, const std::int8_t* w, int n, std::int32_t* out) {
#ifdef WM_NNUE_X86
  if (s == Simd::Avx2) return dot16_avx2(x, w, n, out);
  if (s == Simd::Sse2) return dot16_sse2(x, w, n, out);
#endif
  dot16_scalar(x, w, n, out);
}

}  // namespace

void update(Simd s, const std::int16_t* from, std::int16_t* to, const Rows& r, int h) {
#ifdef WM_NNUE_X86
  if (s == Simd::Avx2) return update_avx2(from, to, r, h);
  if (s == Simd::Sse2) return update_sse2(from, to, r, h);
#endif
  update_scalar(from, to, r, h);
}
void activate(Simd s, const std::int16_t* a, std::uint8_t* x, int h) {
#ifdef WM_NNUE_X86
  if (s == Simd::Avx2) return activate_avx2(a, x, h);
  if (s == Simd::Sse2) return activate_sse2(a, x, h);
#endif
  activate_scalar(a, x, h);
}

std::int64_t head(Simd s, const std::uint8_t* x, int n, const Head& h) {
  // The dot products fit 32 bits (|Σ| ≤ 2048 · 127 · 128, 16 · 127 · 128 and 32 · 127 · 32768); the
  // biases, which may be anything, are added in 64 bits.
  std::int32_t sum2[kL2];
  dot16(s, x, h.l2, n, sum2);
  std::int32_t h2[kL2];
  for (int j = 0; j < kL2; ++j)
    h2[j] = static_cast<std::int32_t>(
        std::clamp<std::int64_t>((std::int64_t{h.l2_bias[j]} + sum2[j]) >> kShift, 0, kActivation));
  std::int32_t sum4 = 0;
  for (int k = 0; k < kL3; ++k) {
    std::int32_t v = 0;
    for (int j = 0; j < kL2; ++j) v += h2[j] * h.l3[k * kL2 + j];
    const auto h3 =
        static_cast<std::int32_t>(std::clamp<std::int64_t>((std::int64_t{h.l3_bias[k]} + v) >> kShift, 0, kActivation));
    sum4 += h3 * h.out[k];
  }
  return std::int64_t{h.out_bias} + sum4;
}

}  // namespace nnue
}  // namespace warpmind::search
