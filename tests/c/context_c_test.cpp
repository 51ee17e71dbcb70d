// The C API's context options: each checked as Context::create checks it (a bad one is
// WM_INVALID_ARGUMENT and creates nothing), and the log callback with its user pointer.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "warpmind/warpmind.h"

namespace {

struct Log {
  std::vector<std::pair<wm_log_level, std::string>> lines;
};

void collect(void* user, wm_log_level level, const char* message) {
  static_cast<Log*>(user)->lines.emplace_back(level, message);
}

TEST(CApi, ContextOptionsAreCheckedAndLogged) {
  wm_context* ctx = nullptr;
  wm_context_options o{};
  EXPECT_EQ(wm_context_create_with(nullptr, &ctx), WM_INVALID_ARGUMENT);
  EXPECT_EQ(wm_context_create_with(&o, nullptr), WM_INVALID_ARGUMENT);
  Log log;
  o.log = collect;
  o.log_user = &log;
  o.cpu_threads = 4097;
  EXPECT_EQ(wm_context_create_with(&o, &ctx), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("cpu_threads"), std::string::npos) << wm_last_error();
  EXPECT_EQ(wm_context_create(WM_BACKEND_CPU, 100000, &ctx), WM_INVALID_ARGUMENT);
  o.cpu_threads = 2;
  o.cuda_device = -1;
  EXPECT_EQ(wm_context_create_with(&o, &ctx), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("cuda_device"), std::string::npos) << wm_last_error();
  o.cuda_device = 0;
  o.backend = static_cast<wm_backend>(42);
  EXPECT_EQ(wm_context_create_with(&o, &ctx), WM_INVALID_ARGUMENT);
  EXPECT_NE(std::string(wm_last_error()).find("42"), std::string::npos) << wm_last_error();
  EXPECT_EQ(ctx, nullptr);
  EXPECT_TRUE(log.lines.empty());

  o.backend = WM_BACKEND_AUTO;  // the backend choice is logged once, to the callback, with the user pointer
  ASSERT_EQ(wm_context_create_with(&o, &ctx), WM_OK) << wm_last_error();
  ASSERT_EQ(log.lines.size(), 1u);
  if (wm_context_uses_gpu(ctx)) {
    EXPECT_EQ(log.lines[0].first, WM_LOG_INFO);
    EXPECT_EQ(log.lines[0].second.rfind("using CUDA device", 0), 0u) << log.lines[0].second;
  } else {
    EXPECT_EQ(log.lines[0].first, WM_LOG_WARNING);
    EXPECT_EQ(log.lines[0].second.rfind("using the CPU backend (", 0), 0u) << log.lines[0].second;
  }
  wm_context_destroy(ctx);

  o.log = nullptr;  // no callback: nothing logged anywhere, and a zeroed struct is a valid AUTO context
  ctx = nullptr;
  wm_context_options zero{};
  ASSERT_EQ(wm_context_create_with(&zero, &ctx), WM_OK) << wm_last_error();
  wm_context_destroy(ctx);
  EXPECT_EQ(log.lines.size(), 1u);
}

}  // namespace
