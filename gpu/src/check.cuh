// Error checking shared by the CUDA sources. Every CUDA call goes through WM_CUDA (returns a
// std::string reason from the enclosing function) and every launch is followed by WM_CUDA_LAUNCH.
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace warpmind::gpu {

inline std::string cuda_error(cudaError_t e, const char* what, const char* file, int line) {
  return std::string(what) + " failed: " + cudaGetErrorString(e) + " (" + file + ":" + std::to_string(line) + ")";
}

}  // namespace warpmind::gpu

#define WM_CUDA(call)                                                                               \
  do {                                                                                              \
    cudaError_t wm_e_ = (call);                                                                     \
    if (wm_e_ != cudaSuccess) return ::warpmind::gpu::cuda_error(wm_e_, #call, __FILE__, __LINE__); \
  } while (0)

#define WM_CUDA_LAUNCH(name) WM_CUDA(cudaGetLastError())
