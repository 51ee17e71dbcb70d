// warpmind-demo as a user runs it: headless frames of the battle and the board scenes (PNG pixels read
// back), the board scenes' computer, and the window under Xvfb.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_common.h"

#if WARPMIND_ENGINE_TESTS
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>
#endif

namespace {

using namespace warpmind::test::cli;

#if WARPMIND_ENGINE_TESTS
TEST(Cli, DemoRendersHeadlessFrames) {
  const fs::path dir = scratch("demo");
  const Outcome r =
      run("warpmind-demo --headless --backend cpu --frames 3 --ticks-per-frame 4 --units 300 --size 256x256 --out " +
          dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* f : {"frame-0000.png", "frame-0001.png", "frame-0002.png"}) EXPECT_TRUE(is_png(dir / f)) << f;
  // The last frame shows both armies and the heat map: count team-coloured pixels and heat-ramp pixels
  // (a blank or unit-less frame fails).
  int w = 0, h = 0, comp = 0;
  unsigned char* px = stbi_load((dir / "frame-0002.png").string().c_str(), &w, &h, &comp, 4);
  ASSERT_NE(px, nullptr);
  ASSERT_EQ(w, 256);
  int cyan = 0, pink = 0, warm = 0;
  for (int i = 0; i < w * h; ++i) {
    const int R = px[4 * i], G = px[4 * i + 1], B = px[4 * i + 2];
    cyan += R < 100 && G > 170 && B > 200;
    pink += R > 200 && G < 150 && B > 200;
    warm += R > 120 && B < 80;  // the ramp's positive side (team 1 attracts team 0)
  }
  stbi_image_free(px);
  EXPECT_GT(cyan, 200);
  EXPECT_GT(pink, 200);
  EXPECT_GT(warm, 500);
  std::ifstream in(dir / "stats.json");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_NE(ss.str().find("\"overlaps\": 0"), std::string::npos) << ss.str();
  EXPECT_NE(ss.str().find("\"ticks\": 12"), std::string::npos);
  EXPECT_NE(ss.str().find("\"render_overlap\": true"), std::string::npos);
  EXPECT_EQ(run("warpmind-demo --headless --window").status, 2);
  EXPECT_EQ(run("warpmind-demo --headless --scene nowhere").status, 2);
  EXPECT_EQ(run("warpmind-demo --headless --units 0").status, 2);
}

// The chess scene headless: the position after the given moves and the computer's, drawn as a board
// (light and dark squares, both colours of pieces, the last move marked); bad FEN or moves: exit 2.
TEST(Cli, DemoBoardsHybridSearchHeadless) {
  // The computer's hybrid search through the headless board scenes: its last search is in stats.json
  // (on the CPU's batches here; on a GPU machine gpu-run.sh's demo-boards step asks for cuda).
  for (const char* scene : {"chess", "connect6"}) {
    SCOPED_TRACE(scene);
    const fs::path dir = scratch(std::string("demo-hybrid-") + scene);
    const Outcome r =
        run(std::string("warpmind-demo --headless --scene ") + scene +
            " --ai-plays 2 --ai-time 300 --ai-search hybrid --backend cpu --size 256x256 --out " + dir.string());
    ASSERT_EQ(r.status, 0) << r.out;
    std::ifstream in(dir / "stats.json");
    std::stringstream ss;
    ss << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
    ASSERT_TRUE(j.is_object() && j.contains("computer")) << ss.str();
    const nlohmann::json& c = j["computer"];
    EXPECT_EQ(c.value("search", ""), "hybrid");
    EXPECT_FALSE(c.value("on_gpu", true));
    EXPECT_GE(c.value("depth", 0), 1);
    EXPECT_GT(c.value("batched_nodes", 0), 0);
    EXPECT_GE(c.value("nodes", 0), c.value("batched_nodes", 0));
  }
  EXPECT_EQ(run("warpmind-demo --headless --scene chess --ai-search best --out " + scratch("demo-hybrid-bad").string())
                .status,
            2);
}

TEST(Cli, DemoChessSceneHeadless) {
  const fs::path dir = scratch("demo-chess");
  const Outcome r =
      run("warpmind-demo --headless --scene chess --moves \"e2e4 e7e5 g1f3\" --ai-plays 1 --ai-time 100 "
          "--size 384x384 --out " +
          dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_TRUE(is_png(dir / "frame-0000.png"));
  std::ifstream in(dir / "stats.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  ASSERT_TRUE(j.is_object()) << ss.str();
  const std::string moves = j.value("moves", "");
  EXPECT_EQ(moves.rfind("e2e4 e7e5 g1f3 ", 0), 0u) << moves;  // and the computer's answer
  EXPECT_EQ(std::count(moves.begin(), moves.end(), ' '), 3);
  EXPECT_EQ(j.value("status", ""), "White to move");
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir / "frame-0000.png").c_str(), &w, &h, &n, 4);
  ASSERT_NE(px, nullptr);
  int light = 0, dark = 0, white_piece = 0, black_piece = 0, marked = 0;
  for (int i = 0; i < w * h; ++i) {
    const int R = px[4 * i], G = px[4 * i + 1], B = px[4 * i + 2];
    light += R == 236 && G == 214 && B == 176;
    dark += R == 174 && G == 127 && B == 90;
    white_piece += R > 240 && G > 240 && B > 230;
    black_piece += R < 50 && G < 50 && B < 50 && R > 20;
    marked += R > 200 && G > 180 && B < 130 && !(R == 236 && G == 214);  // the last move's squares, yellowed
  }
  stbi_image_free(px);
  EXPECT_GT(light, 20000);
  EXPECT_GT(dark, 20000);
  EXPECT_GT(white_piece, 1500);
  EXPECT_GT(black_piece, 1500);
  EXPECT_GT(marked, 300);
  EXPECT_EQ(run("warpmind-demo --headless --scene chess --fen \"8/8/8 w\" --out " + dir.string()).status, 2);
  EXPECT_EQ(run("warpmind-demo --headless --scene chess --moves \"e2e5\" --out " + dir.string()).status, 2);
}

// The connect6 scene headless: the turns given and the computer's, drawn as stones on the grid.
TEST(Cli, DemoConnect6SceneHeadless) {
  const fs::path dir = scratch("demo-connect6");
  const Outcome r =
      run("warpmind-demo --headless --scene connect6 --moves \"JJ KJKK\" --ai-plays 2 --ai-time 100 "
          "--size 384x384 --out " +
          dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::ifstream in(dir / "stats.json");
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  ASSERT_TRUE(j.is_object()) << ss.str();
  const std::string turns = j.value("turns", "");
  EXPECT_EQ(turns.rfind("JJ KJKK ", 0), 0u) << turns;
  EXPECT_EQ(std::count(turns.begin(), turns.end(), ' '), 3);
  int w = 0, h = 0, n = 0;
  unsigned char* px = stbi_load((dir / "frame-0000.png").c_str(), &w, &h, &n, 4);
  ASSERT_NE(px, nullptr);
  int wood = 0, black = 0, white = 0;
  for (int i = 0; i < w * h; ++i) {
    const int R = px[4 * i], G = px[4 * i + 1], B = px[4 * i + 2];
    wood += R == 214 && G == 172 && B == 104;
    black += R == 30 && G == 30 && B == 34;
    white += R == 246 && G == 244 && B == 236;
  }
  stbi_image_free(px);
  EXPECT_GT(wood, 50000);
  EXPECT_GT(black, 150);  // four stones of each colour after Black's opening and three more turns
  EXPECT_GT(white, 150);
  EXPECT_EQ(run("warpmind-demo --headless --scene connect6 --moves \"JJ JJKK\" --out " + dir.string()).status, 2);
}

#if WARPMIND_WINDOW_TESTS
TEST(Cli, DemoWindowUnderXvfb) {
  // The README's main command with a display: every scene opens a window, runs, and the screenshot of
  // its last frame shows something (pixel spread), with the validation layer quiet.
  if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0) GTEST_SKIP() << "xvfb-run not installed (package xvfb)";
  const std::string real_map = "nav --nav-map " + warpmind::test::source_dir() + "/assets/maps/movingai/Caldera.map.gz";
  for (const std::string& scene :
       {std::string("battle"), std::string("crowd"), std::string("crowd --crowd-layout bottleneck"),
        std::string("field"), std::string("nav"), real_map, std::string("aoi"), std::string("regions"),
        std::string("chess"), std::string("connect6")}) {
    SCOPED_TRACE(scene);
    std::string name = scene.substr(0, scene.find(' ')) + (scene.find(' ') == std::string::npos ? "" : "-variant");
    const fs::path dir = scratch("window-" + name);
    const std::string cmd =
        "xvfb-run -a -s '-screen 0 800x600x24' env WARPMIND_VK_VALIDATION=1 " + warpmind::test::bin_dir() +
        "/warpmind-demo --window --backend cpu --frames 12 --units 300 " + "--size 640x480 --scene " + scene +
        " --out " + dir.string() + " > " + (dir / "log.txt").string() + " 2>&1";
    fs::create_directories(dir);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << std::ifstream(dir / "log.txt").rdbuf();
    EXPECT_TRUE(is_png(dir / "screenshot-000.png"));
    std::ifstream in(dir / "stats.json");
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_NE(ss.str().find("\"mode\": \"window\""), std::string::npos) << ss.str();
    EXPECT_NE(ss.str().find("\"frames\": 12"), std::string::npos) << ss.str();
    EXPECT_NE(ss.str().find("\"validation_messages\": 0"), std::string::npos) << ss.str();
    if (scene.rfind("nav", 0) == 0) {  // a goal, and the walk to it (the rooms' cells, or Caldera's)
      EXPECT_NE(ss.str().find("\"nav_goals\": 1,"), std::string::npos) << ss.str();
      EXPECT_EQ(ss.str().find("\"nav_cells_reached\": 0,"), std::string::npos) << ss.str();
    }
    EXPECT_GT(fs::file_size(dir / "screenshot-000.png"), 2000u);  // not a flat image
    // The screenshot is the window as presented: the panel's title bar (ImGui's dark style, focused)
    // is in it.
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load((dir / "screenshot-000.png").c_str(), &w, &h, &n, 4);
    ASSERT_NE(px, nullptr);
    EXPECT_EQ(w, 640);
    EXPECT_EQ(h, 480);
    int title = 0;
    for (int i = 0; i < w * h; ++i) title += px[4 * i] == 41 && px[4 * i + 1] == 74 && px[4 * i + 2] == 122;
    stbi_image_free(px);
    EXPECT_GT(title, 2000);
  }
}
#endif
#endif

}  // namespace
