#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu_helpers.h"
#include "warpmind/core/context.h"
#include "warpmind/field/charge.h"
#include "warpmind/field/field.h"
#include "warpmind/core/device_memory.h"

namespace warpmind {
namespace {

TEST(Context, CpuBackendAlwaysWorks) {
  std::unique_ptr<Context> ctx;
  ContextOptions o;
  o.backend = Backend::Cpu;
  o.cpu_threads = 3;
  ASSERT_TRUE(Context::create(o, ctx).ok());
  EXPECT_EQ(ctx->backend(), Backend::Cpu);
  EXPECT_FALSE(ctx->cuda());
  EXPECT_EQ(ctx->stream(), nullptr);
  EXPECT_EQ(ctx->pool().size(), 3u);
  EXPECT_TRUE(ctx->synchronize().ok());
}

TEST(Context, AutoFallsBackOrUsesCuda) {
  std::unique_ptr<Context> ctx;
  ContextOptions o;
  o.backend = Backend::Auto;
  o.quiet = true;
  ASSERT_TRUE(Context::create(o, ctx).ok());
  if (test::cuda_context()) {
    EXPECT_EQ(ctx->backend(), Backend::Cuda);
    EXPECT_NE(ctx->stream(), nullptr);
    EXPECT_TRUE(ctx->fallback_reason().empty());
  } else {
    EXPECT_EQ(ctx->backend(), Backend::Cpu);
    EXPECT_FALSE(ctx->fallback_reason().empty());
  }
}

TEST(Context, CudaWithoutGpuIsAClearError) {
  if (test::cuda_context()) GTEST_SKIP() << "a GPU is present";
  std::unique_ptr<Context> ctx;
  ContextOptions o;
  o.backend = Backend::Cuda;
  Status s = Context::create(o, ctx);
  EXPECT_EQ(s.code(), StatusCode::Unavailable);
  EXPECT_NE(s.message().find("cuda"), std::string::npos) << s.message();
  EXPECT_EQ(ctx, nullptr);
}

TEST(Context, MissingDeviceOrdinalIsAnError) {
  std::unique_ptr<Context> ctx;
  ContextOptions o;
  o.backend = Backend::Cuda;
  o.cuda_device = 999;
  o.quiet = true;
  EXPECT_EQ(Context::create(o, ctx).code(), StatusCode::Unavailable);
}

// Every option is checked before anything is made, as the C API checks its arguments: a bad one is
// InvalidArgument naming the option, and `out` keeps what it held.
TEST(Context, BadOptionsAreInvalidArgumentAndChangeNothing) {
  std::unique_ptr<Context> keep;
  ContextOptions ok;
  ok.backend = Backend::Cpu;
  ok.cpu_threads = 1;
  ASSERT_TRUE(Context::create(ok, keep).ok());
  Context* const before = keep.get();
  struct Case {
    const char* what;
    ContextOptions o;
  };
  std::vector<Case> cases;
  for (int b : {3, 42, -1}) {
    ContextOptions o = ok;
    o.backend = static_cast<Backend>(b);
    cases.push_back({"backend", o});
  }
  for (unsigned t : {kMaxCpuThreads + 1, 100000u, ~0u}) {
    ContextOptions o = ok;
    o.cpu_threads = t;
    cases.push_back({"cpu_threads", o});
  }
  for (int d : {-1, -2147483647 - 1}) {
    ContextOptions o = ok;
    o.cuda_device = d;
    cases.push_back({"cuda_device", o});
    o.backend = Backend::Auto;  // the sign is checked whatever the backend
    cases.push_back({"cuda_device", o});
  }
  for (const Case& c : cases) {
    int logged = 0;
    ContextOptions o = c.o;
    o.log = [&](LogLevel, std::string_view) { ++logged; };
    const Status s = Context::create(o, keep);
    EXPECT_EQ(s.code(), StatusCode::InvalidArgument) << c.what << ": " << s.message();
    EXPECT_NE(s.message().find(c.what), std::string::npos) << s.message();
    EXPECT_EQ(keep.get(), before) << c.what;
    EXPECT_EQ(logged, 0) << c.what;
  }
}

// The backend choice goes to the log callback, exactly once, at the level the contract gives; quiet drops
// it; a callback that throws does not stop create() and its exception does not escape.
TEST(Context, LogCallbackGetsTheBackendChoice) {
  for (Backend b : {Backend::Auto, Backend::Cpu}) {
    std::vector<std::pair<LogLevel, std::string>> got;
    ContextOptions o;
    o.backend = b;
    o.cpu_threads = 2;
    o.log = [&](LogLevel level, std::string_view m) { got.emplace_back(level, std::string(m)); };
    std::unique_ptr<Context> ctx;
    ASSERT_TRUE(Context::create(o, ctx).ok());
    if (b == Backend::Cpu) {
      EXPECT_TRUE(got.empty()) << "the CPU backend, asked for, is not news";
    } else if (ctx->cuda()) {
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0].first, LogLevel::Info);
      EXPECT_NE(got[0].second.find("using CUDA device '" + ctx->device().name + "'"), std::string::npos)
          << got[0].second;
    } else {
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0].first, LogLevel::Warning);
      EXPECT_EQ(got[0].second, "using the CPU backend (" + ctx->fallback_reason() + ")");
    }
    for (const auto& [level, m] : got) EXPECT_EQ(m.find('\n'), std::string::npos) << "one line, no newline";
    // Later messages go to the same place.
    const std::size_t n = got.size();
    ctx->log(LogLevel::Warning, "from a module");
    ASSERT_EQ(got.size(), n + 1);
    EXPECT_EQ(got.back().second, "from a module");
  }
  int calls = 0;
  ContextOptions quiet;
  quiet.backend = Backend::Auto;
  quiet.quiet = true;
  quiet.log = [&](LogLevel, std::string_view) { ++calls; };
  std::unique_ptr<Context> ctx;
  ASSERT_TRUE(Context::create(quiet, ctx).ok());
  ctx->log(LogLevel::Warning, "dropped");
  EXPECT_EQ(calls, 0);
  ContextOptions throwing;
  throwing.backend = Backend::Auto;
  throwing.log = [&](LogLevel, std::string_view) {
    ++calls;
    throw std::runtime_error("the game's logger failed");
  };
  ASSERT_TRUE(Context::create(throwing, ctx).ok());
  ctx->log(LogLevel::Info, "again");
  EXPECT_EQ(calls, 2);
  EXPECT_STREQ(log_level_name(LogLevel::Warning), "warning");
  EXPECT_STREQ(log_level_name(LogLevel::Info), "info");
}

// Threads the system cannot start are an error, not an exception that ends the process: in a child
// process whose address space leaves no room for 4,096 thread stacks, create() returns Unavailable and
// says how many started. (Not under the sanitizers, which need the address space the limit takes away.)
TEST(Context, ThreadsThatCannotStartAreUnavailable) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "an address-space limit and a sanitizer's shadow memory do not mix";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto child = [] {
    long pages = 0;
    if (FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
      std::fclose(f);
    }
    if (pages <= 0) std::_Exit(3);
    const rlim_t limit = static_cast<rlim_t>(pages) * sysconf(_SC_PAGESIZE) + (rlim_t{256} << 20);
    rlimit rl{limit, limit};
    if (setrlimit(RLIMIT_AS, &rl) != 0) std::_Exit(4);
    ContextOptions o;
    o.backend = Backend::Cpu;
    o.cpu_threads = kMaxCpuThreads;
    std::unique_ptr<Context> ctx;
    const Status s = Context::create(o, ctx);
    std::fprintf(stderr, "%s\n", s.message().c_str());
    std::_Exit(s.code() == StatusCode::Unavailable && !ctx ? 0 : 1);
  };
  EXPECT_EXIT(child(), ::testing::ExitedWithCode(0), "could start only [0-9]+ of 4096 CPU threads");
#endif
}

TEST(Context, ParseBackend) {
  Backend b;
  EXPECT_TRUE(parse_backend("cpu", b));
  EXPECT_EQ(b, Backend::Cpu);
  EXPECT_TRUE(parse_backend("cuda", b));
  EXPECT_EQ(b, Backend::Cuda);
  EXPECT_TRUE(parse_backend("auto", b));
  EXPECT_EQ(b, Backend::Auto);
  EXPECT_FALSE(parse_backend("gpu", b));
  EXPECT_STREQ(backend_name(Backend::Cuda), "cuda");
}

TEST(DeviceMemory, UnavailableOnCpu) {
  DeviceBytes d;
  EXPECT_EQ(d.allocate(test::cpu_context(), 64).code(), StatusCode::Unavailable);
  GpuTimer t;
  EXPECT_EQ(t.start(test::cpu_context()).code(), StatusCode::Unavailable);
}

TEST(DeviceMemory, RoundTripOnGpu) {
  WM_REQUIRE_GPU();
  Context& ctx = *test::cuda_context();
  DeviceBytes d;
  ASSERT_TRUE(d.allocate(ctx, 1000).ok());
  std::vector<unsigned char> in(1000), out(1000, 0);
  for (int i = 0; i < 1000; ++i) in[i] = static_cast<unsigned char>(i * 7);
  ASSERT_TRUE(d.upload(ctx, in.data(), in.size()).ok());
  ASSERT_TRUE(d.download(ctx, out.data(), out.size()).ok());
  EXPECT_EQ(in, out);
  EXPECT_EQ(d.upload(ctx, in.data(), 2000).code(), StatusCode::InvalidArgument);
}

// A device allocation that cannot succeed is OutOfMemory (not Internal), names the call, and leaves the
// buffer as it was; the same code comes out of a module whose device buffers do not fit.
TEST(DeviceMemory, AnAllocationThatFailsIsOutOfMemory) {
  WM_REQUIRE_GPU();
  Context& ctx = *test::cuda_context();
  DeviceBytes d;
  ASSERT_TRUE(d.allocate(ctx, 64).ok());
  const Status st = d.allocate(ctx, std::size_t{1} << 52);  // 4 PiB
  EXPECT_EQ(st.code(), StatusCode::OutOfMemory) << st.message();
  EXPECT_NE(st.message().find("cudaMalloc"), std::string::npos) << st.message();
  EXPECT_EQ(d.size(), 64u);
  field::FieldConfig c;  // 32768^2 cells x 256 layers: 1 TiB of layers
  c.width = c.height = 32768;
  c.kinds = {field::circle(1.0f)};
  for (int l = 0; l < 256; ++l) c.layers.push_back({"layer" + std::to_string(l), {{0, 0}}});
  c.variant = field::FieldVariant::GpuBinned;
  std::unique_ptr<field::FieldLayers> f;
  const Status fs = field::FieldLayers::create(ctx, c, f);
  EXPECT_EQ(fs.code(), StatusCode::OutOfMemory) << fs.message();
  EXPECT_EQ(f, nullptr);
}

}  // namespace
}  // namespace warpmind
