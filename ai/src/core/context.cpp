#include "warpmind/core/context.h"

#include <algorithm>
#include <cstdio>
#include <new>
#include <string>
#include <thread>

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

const char* log_level_name(LogLevel level) { return level == LogLevel::Warning ? "warning" : "info"; }

namespace {

// The options' one-line faults, checked before anything is created; empty when they are all valid.
std::string option_error(const ContextOptions& o) {
  const int b = static_cast<int>(o.backend);
  if (o.backend != Backend::Cpu && o.backend != Backend::Cuda && o.backend != Backend::Auto)
    return "ContextOptions.backend: unknown value " + std::to_string(b) + " (Cpu, Cuda or Auto)";
  if (o.cpu_threads > kMaxCpuThreads)
    return "ContextOptions.cpu_threads: " + std::to_string(o.cpu_threads) + " is more than " +
           std::to_string(kMaxCpuThreads) + " (0: one per hardware thread)";
  if (o.cuda_device < 0) return "ContextOptions.cuda_device: " + std::to_string(o.cuda_device) + " is negative";
  return {};
}

}  // namespace

Context::Context(const ContextOptions& options)
    : quiet_(options.quiet), log_(options.quiet ? LogCallback() : options.log), pool_(options.cpu_threads) {}

void Context::log(LogLevel level, std::string_view message) const noexcept {
  if (quiet_) return;
  if (!log_) {
    std::fprintf(stderr, "warpmind: %.*s\n", static_cast<int>(message.size()), message.data());
    return;
  }
  try {
    log_(level, message);
  } catch (...) {
    // the contract: a callback's exception is dropped, never passed to the caller
  }
}

Status Context::create(const ContextOptions& options, std::unique_ptr<Context>& out) {
  try {
    if (std::string err = option_error(options); !err.empty()) return Status::Invalid(std::move(err));
    std::unique_ptr<Context> ctx(new Context(options));
    if (!ctx->pool_.start_error().empty()) {
      const unsigned want =
          options.cpu_threads ? options.cpu_threads : std::max(1u, std::thread::hardware_concurrency());
      return Status::Unavailable("could start only " + std::to_string(ctx->pool_.size()) + " of " +
                                 std::to_string(want) + " CPU threads: " + ctx->pool_.start_error());
    }
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
        ctx->log(LogLevel::Warning, "using the CPU backend (" + ctx->fallback_reason_ + ")");
      }
    }
    if (ctx->cuda())
      ctx->log(LogLevel::Info,
               "using CUDA device '" + ctx->device_.name + "' (" + std::to_string(ctx->device_.sm_count) + " SMs)");
    out = std::move(ctx);
    return Status::Ok();
  } catch (const std::bad_alloc&) {
    return Status::OutOfMemory("Context::create: out of host memory");
  } catch (const std::exception& e) {
    return Status::Internal(std::string("Context::create: ") + e.what());
  } catch (...) {
    return Status::Internal("Context::create: unknown failure");
  }
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
