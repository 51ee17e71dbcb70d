// The dependency direction of docs/architecture.md, checked on the sources' #include lines (.h, .cpp, .cu,
// .cuh, .c) so that no include runs from a lower layer up to a higher one:
//   demos -> engine, ai (public headers);  gpu -> ai;  engine -> nothing of the library.
//   ai/      owns each module: public headers (ai/include/warpmind/<module>/), its internals and host/device
//            arithmetic (ai/src/<module>/, <module>_rules.h) and the interface its kernels implement
//            (<module>_device.h). It includes nothing of gpu/, engine/ or demos/; its public headers only
//            public headers; a module's headers and sources only its own module and core (the C API, the
//            scenario readers, the in-tree benchmark support and the world map — which includes the public
//            headers of the field, the crowd and nav, whose forms of the map it writes — excepted), so that linking warpmind::field
//            pulls in neither the search nor JSON (nlohmann only in the scenario readers).
//   gpu/     kernels only: its own .cuh support headers and, of ai/, the module it implements and core
//            (public headers and ai/src internals); nothing of engine/ or demos/.
//   demos/   public headers of ai/ and engine/, never ai/src or gpu/ (nor include folders pointing there).
//   engine/  nothing of the library (ai/ or gpu/).
// An include is placed by where the file it names exists: beside the including file, or under one of the
// include folders of the tree (ai/include, ai/src, gpu/src, engine/include).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Include {
  std::string file, target;  // the including file (relative to the source root) and what it includes
  bool quoted = false;       // "..." rather than <...>
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
  const std::regex line(R"re(^\s*#\s*include\s*([<"])([^>"]+)[>"])re");
  for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
    if (!e.is_regular_file()) continue;
    const std::string ext = e.path().extension().string();
    if (ext != ".h" && ext != ".cpp" && ext != ".cu" && ext != ".cuh" && ext != ".c") continue;
    std::ifstream in(e.path());
    for (std::string text; std::getline(in, text);) {
      std::smatch m;
      if (std::regex_search(text, m, line))
        out.push_back({fs::relative(e.path(), root).string(), m[2].str(), m[1].str() == "\""});
    }
  }
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Where the file an include names lies, relative to the root: beside the including file first, then under
// the tree's include folders; empty when it lies in none (a system, CUDA or third-party header).
std::string resolve(const Include& i) {
  const fs::path root = source_root();
  if (i.quoted) {
    const fs::path beside = fs::path(i.file).parent_path() / i.target;
    if (fs::is_regular_file(root / beside)) return beside.lexically_normal().string();
  }
  for (const char* dir : {"ai/include", "ai/src", "gpu/src", "engine/include"}) {
    const fs::path p = fs::path(dir) / i.target;
    if (fs::is_regular_file(root / p)) return p.lexically_normal().string();
  }
  return {};
}

// The library module a path belongs to: ai/include/warpmind/<m>/..., ai/src/<m>/... or gpu/src/<m>/...;
// "" for anything else (warpmind/warpmind.h, the programs, the tests).
std::string module_of(const std::string& path) {
  static const std::regex re(R"re(^(?:ai/include/warpmind|ai/src|gpu/src)/([a-z0-9_]+)/)re");
  std::smatch m;
  return std::regex_search(path, m, re) ? m[1].str() : std::string();
}

#define WM_REQUIRE_SOURCES() \
  if (source_root().empty()) GTEST_SKIP() << "the sources are not at " << WARPMIND_SOURCE_DIR

TEST(Layering, GpuHoldsKernelsThatIncludeTheirModuleOfTheLibrary) {
  WM_REQUIRE_SOURCES();
  const auto inc = includes_under("gpu");
  ASSERT_GT(inc.size(), 40u);
  int from_ai = 0;
  for (const Include& i : inc) {
    const std::string where = resolve(i);
    EXPECT_FALSE(starts_with(i.target, "warpmind/engine/")) << i.file << " includes " << i.target;
    if (where.empty()) {
      EXPECT_FALSE(i.quoted) << i.file << " includes \"" << i.target << "\", which is nowhere in the tree";
      continue;
    }
    EXPECT_TRUE(starts_with(where, "gpu/src/") || starts_with(where, "ai/"))
        << i.file << " includes " << i.target << " (" << where << ")";
    if (starts_with(where, "gpu/src/")) {
      EXPECT_EQ(fs::path(where).extension(), ".cuh") << i.file << " includes " << where << ": gpu/ holds .cu and .cuh";
      continue;
    }
    ++from_ai;
    const std::string m = module_of(i.file), target = module_of(where);
    EXPECT_TRUE(target == m || target == "core") << i.file << " (module " << m << ") includes " << where;
  }
  EXPECT_GT(from_ai, 10);  // every module's kernels include their rules and device interface
  // No headers of its own to export: gpu/ implements interfaces declared in ai/src.
  int exported = 0;
  if (fs::is_directory(source_root() / "gpu/include"))
    for (const auto& e : fs::recursive_directory_iterator(source_root() / "gpu/include"))
      exported += e.is_regular_file();
  EXPECT_EQ(exported, 0) << "gpu/include: interfaces belong to ai/src/<module>/";
}

TEST(Layering, TheLibraryIncludesNothingOfTheGpuTheEngineOrTheProgramsAndModulesStayApart) {
  WM_REQUIRE_SOURCES();
  const auto inc = includes_under("ai");
  ASSERT_GT(inc.size(), 100u);
  const std::set<std::string> modules = {"core", "field", "crowd", "aoi", "ddm", "combat", "nav", "world", "search"};
  int checked = 0;
  for (const Include& i : inc) {
    const std::string where = resolve(i);
    EXPECT_FALSE(starts_with(i.target, "warpmind/engine/")) << i.file << " includes " << i.target;
    EXPECT_FALSE(starts_with(i.target, "warpmind/gpu/")) << i.file << " includes " << i.target;
    EXPECT_NE(fs::path(i.target).extension(), ".cuh") << i.file << " includes " << i.target;
    EXPECT_FALSE(starts_with(where, "gpu/") || starts_with(where, "engine/") || starts_with(where, "demos/"))
        << i.file << " includes " << i.target << " (" << where << ")";
    if (starts_with(i.file, "ai/include/")) {
      EXPECT_TRUE(where.empty() || starts_with(where, "ai/include/"))
          << "public header " << i.file << " includes " << i.target << " (" << where << ")";
    }
    const std::string m = module_of(i.file);
    if (!modules.count(m) || where.empty()) continue;
    const std::string target = module_of(where);
    // The scenario readers (target warpmind::scenarios) share the JSON reader in ai/src/common, and the
    // crowd's draws its "shapes" with the world map.
    const bool scenario_reader =
        fs::path(i.file).stem() == "scenario" && (target == "common" || (m == "crowd" && target == "world"));
    // The world map hands the field, the crowd and navigation their forms of it: their public headers.
    const bool world_map = m == "world" && (target == "field" || target == "crowd" || target == "nav") &&
                           starts_with(where, "ai/include/");
    EXPECT_TRUE(target == m || target == "core" || scenario_reader || world_map)
        << i.file << " (module " << m << ") includes " << where;
    ++checked;
  }
  EXPECT_GT(checked, 100);
  for (const Include& i : inc)  // JSON only in the scenario readers and the shared reader they use
    if (i.target.find("nlohmann") != std::string::npos) {
      EXPECT_TRUE(i.file.find("scenario") != std::string::npos || i.file == "ai/src/common/json_reader.h")
          << i.file << " includes " << i.target;
    }
}

TEST(Layering, TheProgramsUseThePublicHeadersAlone) {
  WM_REQUIRE_SOURCES();
  const auto inc = includes_under("demos");
  ASSERT_GT(inc.size(), 100u);
  for (const Include& i : inc) {
    const std::string where = resolve(i);
    EXPECT_FALSE(starts_with(i.target, "warpmind/gpu/")) << i.file << " includes " << i.target;
    EXPECT_FALSE(starts_with(where, "gpu/") || starts_with(where, "ai/src/"))
        << i.file << " includes " << i.target << " (" << where << ")";
  }
  // Nor through an include folder: no build file of the programs names ai/src or gpu/ as one.
  const std::regex folder(R"re(target_include_directories\([^)]*(ai/src|/gpu\b|gpu/src)[^)]*\))re");
  for (const auto& e : fs::recursive_directory_iterator(source_root() / "demos")) {
    if (e.path().filename() != "CMakeLists.txt") continue;
    std::ifstream in(e.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    EXPECT_FALSE(std::regex_search(s, folder)) << e.path() << " gives a program an include folder of ai/src or gpu/";
  }
}

TEST(Layering, TheEngineKnowsNothingOfTheLibrary) {
  WM_REQUIRE_SOURCES();
  const auto inc = includes_under("engine");
  ASSERT_GT(inc.size(), 10u);
  for (const Include& i : inc) {
    const std::string where = resolve(i);
    if (starts_with(i.target, "warpmind/")) {
      EXPECT_TRUE(starts_with(i.target, "warpmind/engine/")) << i.file << " includes " << i.target;
    }
    EXPECT_FALSE(starts_with(where, "ai/") || starts_with(where, "gpu/")) << i.file << " includes " << where;
  }
}

}  // namespace

namespace {

bool sources_are_a_git_checkout() {
  return std::system(("git -C '" + source_root().string() + "' rev-parse --git-dir > /dev/null 2>&1").c_str()) == 0;
}

// What a shell command run in the sources' root prints on stdout.
std::string output_in_sources(const std::string& command) {
  std::string out;
  if (FILE* p = popen(("cd '" + source_root().string() + "' && " + command).c_str(), "r")) {
    char line[1024];
    while (std::fgets(line, sizeof line, p)) out += line;
    pclose(p);
  }
  return out;
}

// Files that do one thing: no source file of the tree (C, C++, CUDA, Python, shell) longer than 900
// lines, no test longer than 1,000 (docs/architecture.md, Files). Counted on the files git tracks.
TEST(Layering, NoSourceFileIsLongerThanItsLimit) {
  WM_REQUIRE_SOURCES();
  if (!sources_are_a_git_checkout()) GTEST_SKIP() << "the sources are not a git checkout";
  std::istringstream in(output_in_sources(
      "git ls-files -z '*.cpp' '*.h' '*.cu' '*.cuh' '*.c' '*.py' '*.sh' | xargs -0 wc -l | grep -v ' total$'"));
  int files = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream row(line);
    long lines = 0;
    std::string path;
    row >> lines >> path;
    if (path.empty()) continue;
    ++files;
    const bool test = starts_with(path, "tests/");
    EXPECT_LE(lines, test ? 1000 : 900) << path << ": split it (a file that needs a table of contents is two files)";
  }
  EXPECT_GT(files, 200);
}

// The tree stays formatted by its .clang-format: every C, C++ and CUDA source git tracks passes
// clang-format --dry-run --Werror. Pinned to clang-format 14 (Debian 12's; scripts/setup.sh installs it):
// another version may lay out the same code differently, so it skips there, as it does without git or the
// sources.
TEST(Layering, SourcesAreFormattedByTheClangFormatFile) {
  WM_REQUIRE_SOURCES();
  if (std::system("clang-format --version 2>/dev/null | grep -q 'version 14\\.'") != 0)
    GTEST_SKIP() << "clang-format 14 is not installed";
  if (!sources_are_a_git_checkout()) GTEST_SKIP() << "the sources are not a git checkout";
  const std::string offenders = output_in_sources(
      "git ls-files -z '*.cpp' '*.h' '*.cu' '*.cuh' '*.c' | xargs -0 clang-format --dry-run --Werror 2>&1 | "
      "grep -m 20 'error:'");
  EXPECT_EQ(offenders, "") << "run clang-format -i on these files";
}

}  // namespace
