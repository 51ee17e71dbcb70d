// Shared by the libFuzzer targets of tests/fuzz: invariant checks that abort (so libFuzzer keeps the
// input as a reproducer) and a guard against inputs that are valid but ask for more work than a fuzz
// iteration should do.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#define FUZZ_CHECK(cond)                                                                 \
  do {                                                                                   \
    if (!(cond)) {                                                                       \
      std::fprintf(stderr, "invariant failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                      \
    }                                                                                    \
  } while (0)

namespace warpmind::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// Scenarios may ask for hundreds of millions of generated agents, entities or regions, or an obstacle
// grid of 65536 x 65536 cells: legal, but minutes and gigabytes per input. Such inputs are skipped
// (the readers' range checks of those counts are unit-tested).
inline bool asks_too_much(const std::string& text) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object()) return false;
  const auto big = [](const nlohmann::json& o, const char* key, double limit) {
    const auto it = o.find(key);
    return it != o.end() && it->is_number() && it->get<double>() > limit;
  };
  for (const char* gen : {"generate", "standard"})  // generated contents: a crowd scenario's "standard" too
    if (const auto g = j.find(gen); g != j.end() && g->is_object())
      for (const char* key : {"count", "agents", "clients", "regions"})
        if (big(*g, key, 20000)) return true;
  if (const auto o = j.find("obstacles"); o != j.end() && o->is_object())
    if (big(*o, "width", 4096) || big(*o, "height", 4096)) return true;
  return false;
}

}  // namespace warpmind::fuzz
