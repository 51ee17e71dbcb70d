// The field layer handed to the renderer without a host copy: the renderer exports a Vulkan buffer
// (engine::SharedHeat), CUDA imports it as external memory, and each frame the layer is copied device to
// device into it. Only for a CUDA context whose GPU is the renderer's Vulkan device (matched by UUID).
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "warpmind/engine/renderer.h"

namespace warpmind::demos {

class HeatInterop {
 public:
  // Imports `shared` on CUDA device `cuda_device`. Takes ownership of shared.fd either way (closed on
  // failure). Fails when the UUIDs differ or the import does.
  static std::string open(const engine::SharedHeat& shared, int cuda_device, std::unique_ptr<HeatInterop>& out);
  ~HeatInterop();
  // Copies w * h floats from device memory `src`, ordered after the work on `stream` (a cudaStream_t), into
  // the shared buffer, and waits for the copy. The renderer must not be reading the buffer (its frame done).
  std::string copy(const float* src, void* stream);

  struct Impl;

 private:
  HeatInterop() = default;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpmind::demos
