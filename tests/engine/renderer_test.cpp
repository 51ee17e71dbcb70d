// The offscreen renderer on whatever Vulkan device is there (Mesa's lavapipe in CI): heat-map colours
// and orientation, instanced discs where they belong, errors for bad frames.
#include <gtest/gtest.h>

#include <unistd.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "warpmind/engine/renderer.h"
#include "warpmind/engine/stroke_text.h"
#if WARPMIND_HEAT_INTEROP_TESTS
#include <cuda_runtime.h>

#include "gpu_helpers.h"
#include "heat_interop.h"
#endif

namespace warpmind::engine {
namespace {

struct Pixel {
  int r, g, b;
};

Pixel at(const std::vector<std::uint8_t>& img, int w, int x, int y) {
  const std::uint8_t* p = &img[(static_cast<std::size_t>(y) * w + x) * 4];
  return {p[0], p[1], p[2]};
}

std::unique_ptr<OffscreenRenderer> make(int w, int h) {
  std::unique_ptr<OffscreenRenderer> r;
  const std::string err = OffscreenRenderer::create(w, h, r);
  if (!err.empty()) {
    ADD_FAILURE() << "no Vulkan renderer (install mesa-vulkan-drivers): " << err;
    return nullptr;
  }
  return r;
}

TEST(Renderer, HeatMapAndDiscs) {
  constexpr int W = 256, H = 192;
  auto r = make(W, H);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(r->device_name().empty());
  // A field rising from -1 on the left to +1 on the right over a 64 x 32 world.
  std::vector<float> heat(64 * 32);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 64; ++x) heat[y * 64 + x] = (x - 31.5f) / 31.5f;
  const std::vector<UnitInstance> units = {{32.0f, 16.0f, 3.0f, 0xff00ff00u},   // green, centre
                                           {10.0f, 28.0f, 2.0f, 0xffffffffu}};  // white, top left (y up)
  Frame f;
  f.camera = {0, 0, 64, 32};
  f.heat = heat.data();
  f.heat_w = 64;
  f.heat_h = 32;
  f.heat_area = {0, 0, 64, 32};
  f.units = units.data();
  f.unit_count = units.size();
  std::vector<std::uint8_t> img;
  ASSERT_EQ(r->render(f, img), "");
  ASSERT_EQ(img.size(), static_cast<std::size_t>(W) * H * 4);
  const Pixel left = at(img, W, 4, H / 2), right = at(img, W, W - 4, H / 2), mid_dark = at(img, W, W / 2 - 20, H - 4);
  EXPECT_GT(left.b, left.r + 50) << "negative values are blue";
  EXPECT_GT(right.r, right.b + 50) << "positive values are red-yellow";
  EXPECT_LT(mid_dark.r + mid_dark.g + mid_dark.b, 200) << "zero is dark";
  const Pixel centre = at(img, W, W / 2, H / 2);
  EXPECT_GT(centre.g, 200);
  EXPECT_LT(centre.r, 60);
  const Pixel top_left = at(img, W, 40, 24);  // world (10, 28): x 10/64*256, y (1 - 28/32)*192
  EXPECT_GT(top_left.r + top_left.g + top_left.b, 700) << "white disc drawn with y up";
  // Statistics a blank frame would fail.
  double sum = 0, sum2 = 0;
  for (std::size_t i = 0; i < img.size(); i += 4) {
    sum += img[i];
    sum2 += static_cast<double>(img[i]) * img[i];
  }
  const double n = static_cast<double>(W) * H, var = sum2 / n - (sum / n) * (sum / n);
  EXPECT_GT(var, 1000.0);
}

TEST(Renderer, FacingMarker) {
  constexpr int W = 80, H = 80;
  auto r = make(W, H);
  ASSERT_NE(r, nullptr);
  // One red unit of radius 4 at the centre of a 10 x 10 world, facing +x (right).
  const UnitInstance unit{5.0f, 5.0f, 4.0f, 0xff0000ffu, 0.0f};
  Frame f;
  f.camera = {0, 0, 10, 10};
  f.units = &unit;
  f.unit_count = 1;
  std::vector<std::uint8_t> img;
  ASSERT_EQ(r->render(f, img), "");
  const Pixel ahead = at(img, W, 40 + 20, 40), behind = at(img, W, 40 - 20, 40), side = at(img, W, 40, 40 - 20);
  EXPECT_GT(ahead.g, 150);  // the light notch
  EXPECT_LT(behind.g, 40);  // plain red elsewhere
  EXPECT_GT(behind.r, 200);
  EXPECT_LT(side.g, 40);
  UnitInstance plain = unit;
  plain.facing = UnitInstance::kNoFacing;
  f.units = &plain;
  ASSERT_EQ(r->render(f, img), "");
  EXPECT_LT(at(img, W, 40 + 20, 40).g, 40);  // no marker
}

TEST(Renderer, FramesWithoutHeatAndBadFrames) {
  auto r = make(64, 64);
  ASSERT_NE(r, nullptr);
  std::vector<std::uint8_t> img;
  Frame f;
  f.camera = {0, 0, 10, 10};
  ASSERT_EQ(r->render(f, img), "");
  const Pixel bg = at(img, 64, 32, 32);
  EXPECT_LT(bg.r + bg.g + bg.b, 40);  // background only
  // Many units in one frame grow the instance buffer.
  std::vector<UnitInstance> many(5000, UnitInstance{5.0f, 5.0f, 0.5f, 0xff0000ffu});
  f.units = many.data();
  f.unit_count = many.size();
  ASSERT_EQ(r->render(f, img), "");
  EXPECT_GT(at(img, 64, 32, 32).r, 200);
  f.camera = {0, 0, 0, 10};
  EXPECT_NE(r->render(f, img), "");
  std::unique_ptr<OffscreenRenderer> none;
  EXPECT_NE(OffscreenRenderer::create(0, 10, none), "");
}

// Filled triangles: drawn over the heat map and under the units, blended by alpha; stroke text as lines.
TEST(Renderer, FillsUnderUnitsAndStrokeText) {
  constexpr int W = 100, H = 100;
  auto r = make(W, H);
  ASSERT_NE(r, nullptr);
  // A red square over the left half (two triangles), a half-transparent green one over the top right,
  // and a blue disc on the square's centre.
  const std::uint32_t red = 0xff0000ffu, green = 0x8000ff00u;
  const std::vector<LineVertex> fills = {{0, 0, red},     {5, 0, red},   {5, 10, red},    {0, 0, red},
                                         {5, 10, red},    {0, 10, red},  {5, 5, green},   {10, 5, green},
                                         {10, 10, green}, {5, 5, green}, {10, 10, green}, {5, 10, green}};
  const std::vector<UnitInstance> units = {{2.5f, 5.0f, 1.0f, 0xffff0000u}};
  Frame f;
  f.camera = {0, 0, 10, 10};
  f.fills = fills.data();
  f.fill_vertex_count = fills.size();
  f.units = units.data();
  f.unit_count = units.size();
  std::vector<std::uint8_t> img;
  ASSERT_EQ(r->render(f, img), "");
  const Pixel left = at(img, W, 10, 80), disc = at(img, W, 25, 50), top_right = at(img, W, 80, 20),
              bottom_right = at(img, W, 80, 80);
  EXPECT_GT(left.r, 200);
  EXPECT_LT(left.g + left.b, 40);
  EXPECT_GT(disc.b, 200) << "the disc is drawn over the fill";
  EXPECT_GT(top_right.g, 90);   // half green over the dark background
  EXPECT_LT(top_right.g, 200);  // blended, not opaque
  EXPECT_LT(bottom_right.r + bottom_right.g + bottom_right.b, 40);
  f.fill_vertex_count = 4;  // not a whole number of triangles
  EXPECT_NE(r->render(f, img), "");
  // Text: "H8" in white, 4 units tall at (1, 1): lit pixels inside its box, none right of it.
  std::vector<LineVertex> text;
  stroke_text("H8", 1.0f, 1.0f, 4.0f, 0xffffffffu, text);
  EXPECT_EQ(text.size() % 2, 0u);
  EXPECT_FLOAT_EQ(stroke_text_width("H8", 4.0f), 6.0f);
  Frame t;
  t.camera = {0, 0, 10, 10};
  t.lines = text.data();
  t.line_vertex_count = text.size();
  ASSERT_EQ(r->render(t, img), "");
  int inside = 0, outside = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const bool lit = at(img, W, x, y).r > 128;
      const float wx = (x + 0.5f) / W * 10, wy = 10 - (y + 0.5f) / H * 10;
      (wx >= 0.8f && wx <= 7.2f && wy >= 0.8f && wy <= 5.2f ? inside : outside) += lit;
    }
  EXPECT_GT(inside, 60);
  EXPECT_EQ(outside, 0);
}

TEST(Renderer, DebugLinesAndOddVertexCounts) {
  constexpr int W = 100, H = 100;
  auto r = make(W, H);
  ASSERT_NE(r, nullptr);
  // A horizontal and a vertical white line through the centre of a 10 x 10 world.
  const std::vector<LineVertex> lines = {
      {0.0f, 5.02f, 0xffffffffu}, {10.0f, 5.02f, 0xffffffffu}, {5.02f, 0.0f, 0xffffffffu}, {5.02f, 10.0f, 0xffffffffu}};
  Frame f;
  f.camera = {0, 0, 10, 10};
  f.lines = lines.data();
  f.line_vertex_count = lines.size();
  std::vector<std::uint8_t> img;
  ASSERT_EQ(r->render(f, img), "");
  int lit = 0;
  for (int x = 0; x < W; ++x) lit += at(img, W, x, H / 2).r > 200 || at(img, W, x, H / 2 - 1).r > 200;
  EXPECT_GT(lit, 90);                   // the horizontal line crosses the image
  EXPECT_LT(at(img, W, 10, 10).r, 40);  // and nothing else is lit
  f.line_vertex_count = 3;
  EXPECT_NE(r->render(f, img), "");
}

bool have_validation_layer() {
  std::uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (const VkLayerProperties& l : layers)
    if (std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0) return true;
  return false;
}

TEST(Renderer, CleanUnderTheValidationLayer) {
  if (!have_validation_layer()) GTEST_SKIP() << "VK_LAYER_KHRONOS_validation not installed (vulkan-validationlayers)";
  setenv("WARPMIND_VK_VALIDATION", "1", 1);
  auto r = make(128, 96);
  unsetenv("WARPMIND_VK_VALIDATION");
  ASSERT_NE(r, nullptr);
  std::vector<float> heat(300 * 200, 0.5f);  // a second heat size and more units re-create resources
  std::vector<UnitInstance> units(3000, UnitInstance{4.0f, 4.0f, 0.5f, 0xff00ffffu});
  const std::vector<LineVertex> lines = {{0, 0, 0xffffffffu}, {8, 8, 0xffffffffu}};
  std::vector<LineVertex> fills(600, LineVertex{2, 2, 0x80ff8000u});  // more than the first buffer holds
  for (std::size_t k = 0; k < fills.size(); k += 3) fills[k + 1].x = 6, fills[k + 2].y = 6;
  std::vector<std::uint8_t> img;
  for (int i = 0; i < 3; ++i) {
    Frame f;
    f.camera = {0, 0, 8, 8};
    f.heat = heat.data();
    f.heat_w = i == 0 ? 30 : 300;
    f.heat_h = i == 0 ? 20 : 200;
    f.heat_area = {0, 0, 8, 8};
    f.units = units.data();
    f.unit_count = i == 0 ? 10 : units.size();
    f.lines = lines.data();
    f.line_vertex_count = lines.size();
    f.fills = fills.data();
    f.fill_vertex_count = i == 0 ? 3 : fills.size();
    ASSERT_EQ(r->render(f, img), "");
  }
  EXPECT_EQ(r->validation_messages(), 0);
}

TEST(Renderer, SharedHeatNeedsShareFirst) {
  auto r = make(32, 32);
  ASSERT_NE(r, nullptr);
  Frame f;
  f.camera = {0, 0, 1, 1};
  f.heat_shared = true;
  f.heat_w = f.heat_h = 4;
  f.heat_area = {0, 0, 1, 1};
  std::vector<std::uint8_t> img;
  EXPECT_NE(r->render(f, img), "");  // no shared buffer yet
  SharedHeat sh;
  const std::string err = r->share_heat(4, 4, sh);
  if (!err.empty()) GTEST_SKIP() << err;  // the device cannot export memory
  EXPECT_GE(sh.fd, 0);
  EXPECT_GE(sh.bytes, 64u);
  close(sh.fd);
  EXPECT_EQ(r->render(f, img), "");
  f.heat_w = 5;  // not the shared size
  EXPECT_NE(r->render(f, img), "");
}

#if WARPMIND_HEAT_INTEROP_TESTS
TEST(Renderer, HeatFromCudaWithoutHostCopyMatchesHostUpload) {
  WM_REQUIRE_GPU();
  constexpr int W = 96, H = 64, FW = 48, FH = 24;
  auto r = make(W, H);
  ASSERT_NE(r, nullptr);
  SharedHeat sh;
  std::string err = r->share_heat(FW, FH, sh);
  if (!err.empty()) GTEST_SKIP() << err;
  std::unique_ptr<demos::HeatInterop> interop;
  err = demos::HeatInterop::open(sh, 0, interop);
  if (!err.empty()) GTEST_SKIP() << err;  // e.g. a software Vulkan device beside the GPU
  std::vector<float> heat(FW * FH);
  for (int y = 0; y < FH; ++y)
    for (int x = 0; x < FW; ++x) heat[y * FW + x] = std::sin(0.3f * x) * (y - FH / 2.0f);
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, heat.size() * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(d, heat.data(), heat.size() * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(interop->copy(d, nullptr), "");
  cudaFree(d);
  Frame f;
  f.camera = {0, 0, 12, 6};
  f.heat = heat.data();
  f.heat_w = FW;
  f.heat_h = FH;
  f.heat_area = {0, 0, 12, 6};
  f.heat_lo = -12.0f;
  f.heat_hi = 12.0f;
  std::vector<std::uint8_t> host, shared;
  ASSERT_EQ(r->render(f, host), "");
  f.heat_shared = true;
  ASSERT_EQ(r->render(f, shared), "");
  EXPECT_EQ(host, shared);
  EXPECT_GT(std::count_if(host.begin(), host.end(), [](std::uint8_t v) { return v > 100; }), 1000);
}
#endif

}  // namespace
}  // namespace warpmind::engine
