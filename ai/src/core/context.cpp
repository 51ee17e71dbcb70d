#include "warpmind/core/context.h"

#include <cstdio>

#if WARPMIND_HAVE_CUDA
#include "core/device.h"
#endif

namespace warpmind {

bool parse_backend(std::string_view name, Backend& out) {
  if (name == "cpu")
    out = Backend::Cpu;
  else if (name == "cuda")
    out = Backend::Cuda;
  else if (name == "auto")
    out = Backend::Auto;
  else
    return false;
  return true;
}

const char* backend_name(Backend b) {
  switch (b) {
    case Backend::Cpu:
      return "cpu";
    case Backend::Cuda:
      return "cuda";
    case Backend::Auto:
      return "auto";
  }
  return "?";
}

Status Context::create(const ContextOptions& options, std::unique_ptr<Context>& out) {
  std::unique_ptr<Context> ctx(new Context(options.cpu_threads));
  ctx->device_.name = "cpu";
  if (options.backend != Backend::Cpu) {
#if WARPMIND_HAVE_CUDA
    gpu::DeviceProbe probe = gpu::probe_device(options.cuda_device);
    const Status err =
        probe.usable ? gpu::create_stream(options.cuda_device, &ctx->stream_) : Status::Unavailable(probe.reason);
    if (err.ok()) {
      ctx->backend_ = Backend::Cuda;
      ctx->device_ = {probe.name, probe.sm_count, probe.major, probe.minor, probe.memory_bytes};
    } else {
      ctx->fallback_reason_ = err.message();
    }
#else
    ctx->fallback_reason_ = "warpmind was built without CUDA";
#endif
    if (!ctx->cuda()) {
      if (options.backend == Backend::Cuda)
        return Status::Unavailable("backend 'cuda' requested but unusable: " + ctx->fallback_reason_);
      if (!options.quiet) std::fprintf(stderr, "warpmind: using the CPU backend (%s)\n", ctx->fallback_reason_.c_str());
    }
  }
  if (ctx->cuda() && !options.quiet)
    std::fprintf(stderr, "warpmind: using CUDA device '%s' (%d SMs)\n", ctx->device_.name.c_str(),
                 ctx->device_.sm_count);
  out = std::move(ctx);
  return Status::Ok();
}

Context::~Context() {
#if WARPMIND_HAVE_CUDA
  gpu::destroy_stream(stream_);
#endif
}

Status Context::synchronize() {
#if WARPMIND_HAVE_CUDA
  if (stream_) {
    WM_RETURN_IF_ERROR(gpu::synchronize(stream_));
  }
#endif
  return Status::Ok();
}

}  // namespace warpmind
