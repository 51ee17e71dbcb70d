// WM_HD marks functions written once for host and device: __host__ __device__ under nvcc, plain inline
// functions under a host compiler (the rules headers that tests check on machines without CUDA).
#pragma once

#if defined(__CUDACC__)
#define WM_HD __host__ __device__ __forceinline__
#else
#define WM_HD inline
#endif

// WM_UNROLL before a loop with a constant trip count unrolls it on the device, so that arrays indexed by
// the loop variable stay in registers.
#if defined(__CUDA_ARCH__)
#define WM_UNROLL _Pragma("unroll")
#else
#define WM_UNROLL
#endif

// Exactly rounded float arithmetic written once for both sides: on the device the _rn intrinsics, which
// nvcc never fuses into a multiply-add; on the host the plain operators (the library is compiled with
// -ffp-contract=off). A formula written with these gives the same bits on CPU and GPU.
#include <cmath>
#include <cstdint>

namespace warpmind {

WM_HD float fadd(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
WM_HD float fsub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
WM_HD float fmul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
WM_HD float fdiv(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
WM_HD float fsqrt(float a) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}
// Nearest integer, ties to even (the host's default rounding mode); |v| < 2^31.
WM_HD std::int32_t round_to_int(float v) {
#if defined(__CUDA_ARCH__)
  return __float2int_rn(v);
#else
  return static_cast<std::int32_t>(std::lrint(v));
#endif
}
WM_HD int clamp_int(int v, int lo, int hi) { return v < lo ? lo : (v > hi ? hi : v); }

}  // namespace warpmind
