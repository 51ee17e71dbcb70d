#include "output.h"

#include <cstdio>
#include <ctime>
#include <fstream>

#include "build_info.h"  // WARPMIND_GIT_COMMIT, generated at build time

namespace warpmind::demos {

std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return "cannot open '" + path + "' for writing";
  out << text;
  out.close();
  if (!out) return "cannot write '" + path + "'";
  return {};
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string build_commit() { return WARPMIND_GIT_COMMIT; }

bool build_is_dirty() { return build_commit().ends_with("-dirty") || build_commit() == "unknown"; }

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\')
      o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else
      o += c;
  }
  return o;
}

}  // namespace warpmind::demos
