// Error checking shared by the CUDA sources. Every CUDA call goes through WM_CUDA and every launch is
// followed by WM_CUDA_LAUNCH(kernel): on failure the enclosing function returns a Status —
// OutOfMemory when the device (or pinned host) allocation failed, Internal otherwise — whose message names
// the call or the kernel, the CUDA error and the source line.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "warpmind/core/status.h"

namespace warpmind::gpu {

inline Status cuda_status(cudaError_t e, const char* what, const char* file, int line) {
  std::string m =
      std::string(what) + " failed: " + cudaGetErrorString(e) + " (" + file + ":" + std::to_string(line) + ")";
  return e == cudaErrorMemoryAllocation ? Status::OutOfMemory(std::move(m)) : Status::Internal(std::move(m));
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
