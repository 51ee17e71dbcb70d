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

std::vector<Include> includes_under(const std::string& dir) {
  const fs::path root = WARPMIND_SOURCE_DIR;
  std::vector<Include> out;
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

TEST(Layering, GpuIncludesOnlyItselfAndTheStatusType) {
  const auto inc = includes_under("gpu");
  ASSERT_GT(inc.size(), 20u);
  for (const Include& i : inc) {
    if (!starts_with(i.target, "warpmind/")) continue;  // system, CUDA, CUB and its own relative headers
    EXPECT_TRUE(starts_with(i.target, "warpmind/gpu/") || i.target == "warpmind/core/status.h")
        << i.file << " includes " << i.target;
  }
}

TEST(Layering, TheLibraryNeverSeesTheEngineOrTheProgramsAndModulesStayApart) {
  const auto inc = includes_under("ai");
  ASSERT_GT(inc.size(), 50u);
  const std::set<std::string> modules = {"core", "field", "crowd", "aoi", "ddm", "search"};
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
  const auto inc = includes_under("engine");
  ASSERT_GT(inc.size(), 10u);
  for (const Include& i : inc) {
    if (!starts_with(i.target, "warpmind/")) continue;
    EXPECT_TRUE(starts_with(i.target, "warpmind/engine/")) << i.file << " includes " << i.target;
  }
}

}  // namespace
