// The dependency direction of docs/architecture (demos -> engine, library; ai -> gpu; the library never
// sees the renderer), checked on the sources' #include lines so that no include runs from a lower layer
// up to a higher one:
//   gpu/      includes warpmind/gpu/... and, of ai/, warpmind/core/status.h alone (errors are Status on both
//             sides); nothing of engine/;
//   ai/       nothing of engine/ or demos/; its public headers (ai/include) nothing of gpu/ either, and a
//             module's own headers and sources only its module and core (the C API excepted), so linking
//             warpmind::field pulls in neither the search nor JSON (nlohmann only in the scenario readers);
//   engine/   nothing of the library (ai/ or gpu/).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Include {
  std::string file, target;  // the including file (relative to the source root) and what it includes
};

// The sources' root, or empty where they are not (staged binaries on another machine).
fs::path source_root() {
  const fs::path root = WARPMIND_SOURCE_DIR;
  return fs::is_directory(root / "ai") && fs::is_directory(root / "engine") ? root : fs::path();
}

std::vector<Include> includes_under(const std::string& dir) {
  const fs::path root = source_root();
  std::vector<Include> out;
  if (root.empty() || !fs::is_directory(root / dir)) return out;
  const std::regex line(R"re(^\s*#\s*include\s*[<"]([^>"]+)[>"])re");
  for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh" && ext != ".c") continue;
    std::ifstream in(e.path());
    for (std::string text; std::getline(in, text);) {
      std::smatch m;
      if (std::regex_search(text, m, line)) out.push_back({fs::relative(e.path(), root).string(), m[1].str()});
    }
  }
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// The module a library path belongs to: ai/include/warpmind/<m>/..., ai/src/<m>/..., else "".
std::string module_of(const std::string& file) {
  static const std::regex re(R"re(^ai/(?:include/warpmind|src)/([a-z0-9_]+)/)re");
  std::smatch m;
  return std::regex_search(file, m, re) ? m[1].str() : std::string();
}

#define WM_REQUIRE_SOURCES() \
  if (source_root().empty()) GTEST_SKIP() << "the sources are not at " << WARPMIND_SOURCE_DIR

TEST(Layering, GpuIncludesOnlyItselfAndTheStatusType) {
  WM_REQUIRE_SOURCES();
  const auto inc = includes_under("gpu");
  ASSERT_GT(inc.size(), 20u);
  for (const Include& i : inc) {
    if (!starts_with(i.target, "warpmind/")) continue;  // system, CUDA, CUB and its own relative headers
    EXPECT_TRUE(starts_with(i.target, "warpmind/gpu/") || i.target == "warpmind/core/status.h")
        << i.file << " includes " << i.target;
  }
}

TEST(Layering, TheLibraryNeverSeesTheEngineOrTheProgramsAndModulesStayApart) {
  WM_REQUIRE_SOURCES();
  const auto inc = includes_under("ai");
  ASSERT_GT(inc.size(), 50u);
  const std::set<std::string> modules = {"core", "field", "crowd", "aoi", "ddm", "combat", "search"};
  int checked = 0;
  for (const Include& i : inc) {
    EXPECT_FALSE(starts_with(i.target, "warpmind/engine/")) << i.file << " includes " << i.target;
    EXPECT_EQ(i.target.find("demos/"), std::string::npos) << i.file << " includes " << i.target;
    if (starts_with(i.file, "ai/include/")) {
      EXPECT_FALSE(starts_with(i.target, "warpmind/gpu/")) << "public header " << i.file << " includes " << i.target;
    }
    const std::string m = module_of(i.file);
    if (!modules.count(m) || !starts_with(i.target, "warpmind/")) continue;
    const std::string rest = i.target.substr(std::string("warpmind/").size());
    const std::string target_module = rest.substr(0, rest.find('/'));
    if (target_module == "gpu") continue;  // ai -> gpu: the modules' own kernels (sources only, above)
    EXPECT_TRUE(target_module == m || target_module == "core")
        << i.file << " (module " << m << ") includes " << i.target;
    ++checked;
  }
  EXPECT_GT(checked, 50);
  for (const Include& i : inc)  // JSON only in the scenario readers and the shared reader they use
    if (i.target.find("nlohmann") != std::string::npos) {
      EXPECT_TRUE(i.file.find("scenario") != std::string::npos || i.file == "ai/src/common/json_reader.h")
          << i.file << " includes " << i.target;
    }
}

TEST(Layering, TheEngineKnowsNothingOfTheLibrary) {
  WM_REQUIRE_SOURCES();
  const auto inc = includes_under("engine");
  ASSERT_GT(inc.size(), 10u);
  for (const Include& i : inc) {
    if (!starts_with(i.target, "warpmind/")) continue;
    EXPECT_TRUE(starts_with(i.target, "warpmind/engine/")) << i.file << " includes " << i.target;
  }
}

}  // namespace

namespace {

// The tree stays formatted by its .clang-format: every C, C++ and CUDA source git tracks passes
// clang-format --dry-run --Werror. Pinned to clang-format 14 (Debian 12's; scripts/setup.sh installs it):
// another version may lay out the same code differently, so it skips there, as it does without git or the
// sources.
TEST(Layering, SourcesAreFormattedByTheClangFormatFile) {
  WM_REQUIRE_SOURCES();
  const std::string root = source_root().string();
  if (std::system("clang-format --version 2>/dev/null | grep -q 'version 14\\.'") != 0)
    GTEST_SKIP() << "clang-format 14 is not installed";
  if (std::system(("git -C '" + root + "' rev-parse --git-dir > /dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "the sources are not a git checkout";
  const std::string cmd = "cd '" + root +
                          "' && git ls-files -z '*.cpp' '*.h' '*.cu' '*.cuh' '*.c' | "
                          "xargs -0 clang-format --dry-run --Werror 2>&1 | grep -m 20 'error:'";
  std::string offenders;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char line[512];
    while (std::fgets(line, sizeof line, p)) offenders += line;
    pclose(p);
  }
  EXPECT_EQ(offenders, "") << "run clang-format -i on these files";
}

}  // namespace
