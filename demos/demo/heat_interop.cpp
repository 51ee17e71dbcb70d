#include "heat_interop.h"

#include <cuda_runtime.h>
#include <unistd.h>

#include <cstring>

namespace warpmind::demos {

namespace {
std::string cuda_error(cudaError_t e, const char* what) { return std::string(what) + ": " + cudaGetErrorString(e); }
}  // namespace

struct HeatInterop::Impl {
  cudaExternalMemory_t memory = nullptr;
  void* data = nullptr;
  std::size_t bytes = 0;
  ~Impl() {
    if (data) cudaFree(data);
    if (memory) cudaDestroyExternalMemory(memory);
  }
};

std::string HeatInterop::open(const engine::SharedHeat& shared, int cuda_device, std::unique_ptr<HeatInterop>& out) {
  const auto fail = [&](const std::string& why) {
    if (shared.fd >= 0) close(shared.fd);
    return "heat interop: " + why;
  };
  cudaDeviceProp prop{};
  cudaError_t e = cudaGetDeviceProperties(&prop, cuda_device);
  if (e != cudaSuccess) return fail(cuda_error(e, "cudaGetDeviceProperties"));
  if (std::memcmp(prop.uuid.bytes, shared.device_uuid, sizeof shared.device_uuid) != 0)
    return fail("the renderer's Vulkan device is not the CUDA device");
  std::unique_ptr<HeatInterop> h(new HeatInterop());
  h->impl_ = std::make_unique<Impl>();
  cudaExternalMemoryHandleDesc desc{};
  desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
  desc.handle.fd = shared.fd;
  desc.size = shared.bytes;
  e = cudaImportExternalMemory(&h->impl_->memory, &desc);
  if (e != cudaSuccess) return fail(cuda_error(e, "cudaImportExternalMemory"));  // the fd is still ours
  // From here CUDA owns the fd.
  cudaExternalMemoryBufferDesc buf{};
  buf.offset = 0;
  buf.size = static_cast<unsigned long long>(shared.w) * shared.h * sizeof(float);
  e = cudaExternalMemoryGetMappedBuffer(&h->impl_->data, h->impl_->memory, &buf);
  if (e != cudaSuccess) return "heat interop: " + cuda_error(e, "cudaExternalMemoryGetMappedBuffer");
  h->impl_->bytes = buf.size;
  out = std::move(h);
  return {};
}

HeatInterop::~HeatInterop() = default;

std::string HeatInterop::copy(const float* src, void* stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  cudaError_t e = cudaMemcpyAsync(impl_->data, src, impl_->bytes, cudaMemcpyDeviceToDevice, s);
  if (e == cudaSuccess) e = cudaStreamSynchronize(s);
  return e == cudaSuccess ? std::string() : "heat interop: " + cuda_error(e, "copy");
}

}  // namespace warpmind::demos
