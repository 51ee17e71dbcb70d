#include <gtest/gtest.h>

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
