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
