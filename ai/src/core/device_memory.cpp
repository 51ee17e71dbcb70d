#include "warpmind/core/device_memory.h"

#include <utility>

#if WARPMIND_HAVE_CUDA
#include "core/device.h"
#endif

namespace warpmind {

namespace {
Status need_cuda(const Context& ctx) {
  return ctx.cuda() ? Status::Ok() : Status::Unavailable("device memory needs the CUDA backend");
}
}  // namespace

DeviceBytes::~DeviceBytes() {
#if WARPMIND_HAVE_CUDA
  gpu::device_free(ptr_);
#endif
}

DeviceBytes& DeviceBytes::operator=(DeviceBytes&& o) noexcept {
  std::swap(ptr_, o.ptr_);
  std::swap(size_, o.size_);
  return *this;
}

Status DeviceBytes::allocate(Context& ctx, std::size_t bytes) {
  WM_RETURN_IF_ERROR(need_cuda(ctx));
#if WARPMIND_HAVE_CUDA
  void* p = nullptr;
  WM_RETURN_IF_ERROR(gpu::device_alloc(bytes, &p));
  gpu::device_free(ptr_);
  ptr_ = p;
  size_ = bytes;
#else
  (void)bytes;
#endif
  return Status::Ok();
}

Status DeviceBytes::upload(Context& ctx, const void* host, std::size_t bytes) {
  WM_RETURN_IF_ERROR(need_cuda(ctx));
  if (bytes > size_)
    return Status::Invalid("upload: " + std::to_string(bytes) + " bytes into " + std::to_string(size_));
#if WARPMIND_HAVE_CUDA
  if (bytes) WM_RETURN_IF_ERROR(gpu::copy_to_device(ptr_, host, bytes, ctx.stream()));
#else
  (void)host;
#endif
  return Status::Ok();
}

Status DeviceBytes::download(Context& ctx, void* host, std::size_t bytes) const {
  WM_RETURN_IF_ERROR(need_cuda(ctx));
  if (bytes > size_)
    return Status::Invalid("download: " + std::to_string(bytes) + " bytes from " + std::to_string(size_));
#if WARPMIND_HAVE_CUDA
  if (bytes) WM_RETURN_IF_ERROR(gpu::copy_to_host(host, ptr_, bytes, ctx.stream()));
#else
  (void)host;
#endif
  return Status::Ok();
}

GpuTimer::~GpuTimer() {
#if WARPMIND_HAVE_CUDA
  gpu::event_destroy(begin_);
  gpu::event_destroy(end_);
#endif
}

Status GpuTimer::start(Context& ctx) {
  WM_RETURN_IF_ERROR(need_cuda(ctx));
#if WARPMIND_HAVE_CUDA
  if (!begin_) WM_RETURN_IF_ERROR(gpu::event_create(&begin_));
  if (!end_) WM_RETURN_IF_ERROR(gpu::event_create(&end_));
  WM_RETURN_IF_ERROR(gpu::event_record(begin_, ctx.stream()));
#endif
  return Status::Ok();
}

Status GpuTimer::stop(Context& ctx, float& ms) {
  WM_RETURN_IF_ERROR(need_cuda(ctx));
  if (!begin_) return Status::Invalid("GpuTimer::stop without start");
#if WARPMIND_HAVE_CUDA
  WM_RETURN_IF_ERROR(gpu::event_record(end_, ctx.stream()));
  WM_RETURN_IF_ERROR(gpu::event_elapsed_ms(begin_, end_, &ms));
#else
  ms = 0;
#endif
  return Status::Ok();
}

}  // namespace warpmind
