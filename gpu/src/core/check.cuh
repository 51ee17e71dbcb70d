// Error checking shared by the CUDA sources. Every CUDA call goes through WM_CUDA and every launch is
// followed by WM_CUDA_LAUNCH(kernel): on failure the enclosing function returns a Status —
// OutOfMemory when the device (or pinned host) allocation failed, Internal otherwise — whose message names
// the call or the kernel, the CUDA error and the source line.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "warpmind/core/status.h"

namespace warpmind::gpu {

inline Status cuda_status(cudaError_t e, const char* what, const char* file, int line) {
  std::string m =
      std::string(what) + " failed: " + cudaGetErrorString(e) + " (" + file + ":" + std::to_string(line) + ")";
  return e == cudaErrorMemoryAllocation ? Status::OutOfMemory(std::move(m)) : Status::Internal(std::move(m));
}

// Programmatic dependent launch (compute capability 9.0 and later; elsewhere a plain stream-ordered
// launch): `kernel` may be scheduled while the kernel before it on `stream` drains. Such a kernel must call
// wait_for_prior_grid() before it touches memory the earlier kernel reads or writes; a kernel may call
// allow_dependents() once its blocks are running to let the next one be scheduled early.
template <class... Params, class... Args>
cudaError_t launch_dependent(void (*kernel)(Params...), unsigned blocks, unsigned threads, cudaStream_t stream,
                             Args&&... args) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(threads);
  cfg.stream = stream;
  cudaLaunchAttribute attr{};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

__device__ __forceinline__ void wait_for_prior_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

}  // namespace warpmind::gpu

#define WM_CUDA(call)                                                                                \
  do {                                                                                               \
    cudaError_t wm_e_ = (call);                                                                      \
    if (wm_e_ != cudaSuccess) return ::warpmind::gpu::cuda_status(wm_e_, #call, __FILE__, __LINE__); \
  } while (0)

// After a kernel launch: a launch error (bad configuration, too much shared memory, an earlier
// asynchronous fault) reported under the kernel's name.
#define WM_CUDA_LAUNCH(kernel)                                                                                      \
  do {                                                                                                              \
    cudaError_t wm_e_ = cudaGetLastError();                                                                         \
    if (wm_e_ != cudaSuccess) return ::warpmind::gpu::cuda_status(wm_e_, "launch of " #kernel, __FILE__, __LINE__); \
  } while (0)
