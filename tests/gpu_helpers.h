// Shared by the tests: one CPU context, one CUDA context when a GPU is usable, and a skip macro.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "warpmind/core/context.h"

namespace warpmind::test {

inline Context& cpu_context() {
  static std::unique_ptr<Context> ctx = [] {
    std::unique_ptr<Context> c;
    ContextOptions o;
    o.backend = Backend::Cpu;
    o.cpu_threads = 4;
    o.quiet = true;
    if (!Context::create(o, c).ok()) std::abort();
    return c;
  }();
  return *ctx;
}

// nullptr when no usable GPU.
inline Context* cuda_context() {
  static std::unique_ptr<Context> ctx = [] {
    std::unique_ptr<Context> c;
    ContextOptions o;
    o.backend = Backend::Cuda;
    o.quiet = true;
    if (!Context::create(o, c).ok()) c.reset();
    return c;
  }();
  return ctx.get();
}

inline const std::string& gpu_skip_reason() {
  static const std::string why = [] {
    if (cuda_context()) return std::string();
    std::unique_ptr<Context> c;
    ContextOptions o;
    o.backend = Backend::Cuda;
    o.quiet = true;
    Status s = Context::create(o, c);
    return s.message().empty() ? std::string("no GPU") : s.message();
  }();
  return why;
}

// Where the built programs and the source tree (assets) are; the environment variables
// WARPMIND_BIN_DIR / WARPMIND_SOURCE_DIR override the build-time paths (staged runs on another machine).
inline std::string bin_dir() {
  const char* e = std::getenv("WARPMIND_BIN_DIR");
  return e && *e ? e : WARPMIND_BIN_DIR;
}
inline std::string source_dir() {
  const char* e = std::getenv("WARPMIND_SOURCE_DIR");
  return e && *e ? e : WARPMIND_SOURCE_DIR;
}

}  // namespace warpmind::test

#define WM_REQUIRE_GPU() \
  if (!::warpmind::test::cuda_context()) GTEST_SKIP() << ::warpmind::test::gpu_skip_reason()
