// What the program tests (tests/cli/*_test.cpp, one file per program) share: running a program of the
// build as a user would, with its exit status and output, scratch files, and reading what it wrote.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gpu_helpers.h"

namespace warpmind::test::cli {

namespace fs = std::filesystem;

struct Outcome {
  int status;
  std::string out;
};

// Runs bin_dir()/args through the shell; stdout kept, stderr dropped.
inline Outcome run(const std::string& args) {
  const fs::path tmp = fs::temp_directory_path() / ("wm_cli_" + std::to_string(::getpid()) + ".txt");
  const std::string cmd = warpmind::test::bin_dir() + "/" + args + " > " + tmp.string() + " 2>/dev/null";
  const int raw = std::system(cmd.c_str());
  std::ifstream in(tmp);
  std::stringstream ss;
  ss << in.rdbuf();
  fs::remove(tmp);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, ss.str()};
}

// A file of this test process's scratch folder.
inline fs::path scratch(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("wm_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

inline bool is_png(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char sig[8] = {};
  in.read(sig, 8);
  return in && std::string(sig + 1, 3) == "PNG" && fs::file_size(p) > 100;
}

// As run(), but also keeps stderr (for the one-line reasons of exit status 2).
struct FullOutcome {
  int status;
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline FullOutcome run_full(const std::string& args) {
  const std::string stem = "wm_cli_full_" + std::to_string(::getpid());
  const fs::path out = fs::temp_directory_path() / (stem + ".out"), err = fs::temp_directory_path() / (stem + ".err");
  const std::string cmd = warpmind::test::bin_dir() + "/" + args + " > " + out.string() + " 2> " + err.string();
  const int raw = std::system(cmd.c_str());
  FullOutcome o{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(out), slurp(err)};
  fs::remove(out);
  fs::remove(err);
  return o;
}

// The integer after "key": in a one-line JSON object (-1 when absent).
inline long long json_int(const std::string& j, const std::string& key) {
  const auto at = j.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::strtoll(j.c_str() + at + key.size() + 3, nullptr, 10);
}

inline nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in, nullptr, false);
}

}  // namespace warpmind::test::cli
