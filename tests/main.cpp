// Test entry point: reports once whether GPU cases will run or skip.
#include <gtest/gtest.h>

#include <cstdio>

#include "gpu_helpers.h"

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const auto& why = warpmind::test::gpu_skip_reason();
  std::fprintf(stderr, "warpmind tests: GPU cases %s%s\n", why.empty() ? "run" : "skip: ", why.c_str());
  return RUN_ALL_TESTS();
}
