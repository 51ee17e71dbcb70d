// The CPU context of the libFuzzer targets that run a module (fuzz_common.h stays free of the library, for
// the targets that link none of it, such as fuzz_protocol).
#pragma once

#include <memory>

#include "fuzz_common.h"
#include "warpmind/core/context.h"

namespace warpmind::fuzz {

// The harness's CPU context (quiet, `threads` threads), made at the first call and kept for the process.
inline Context& cpu_context(unsigned threads) {
  static const std::unique_ptr<Context> ctx = [threads] {
    ContextOptions o;
    o.backend = Backend::Cpu;
    o.cpu_threads = threads;
    o.quiet = true;
    std::unique_ptr<Context> c;
    FUZZ_CHECK(Context::create(o, c).ok());
    return c;
  }();
  FUZZ_CHECK(ctx->pool().size() == threads);
  return *ctx;
}

}  // namespace warpmind::fuzz
