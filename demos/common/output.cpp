#include "output.h"

#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <utility>

#include <zlib.h>

#include "build_info.h"  // WARPMIND_GIT_COMMIT, generated at build time

namespace warpmind::demos {

std::string read_file(const std::string& path, std::string& out, std::size_t limit) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "cannot read '" + path + "'";
  std::stringstream raw;
  raw << in.rdbuf();
  if (!in.good() && !in.eof()) return "cannot read '" + path + "'";
  std::string bytes = raw.str();
  if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x1f ||
      static_cast<unsigned char>(bytes[1]) != 0x8b) {
    if (bytes.size() > limit) return path + ": larger than " + std::to_string(limit) + " bytes";
    out = std::move(bytes);
    return {};
  }
  // gzip: inflated in chunks, at most `limit` bytes.
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return path + ": cannot start decompressing";
  z.next_in = reinterpret_cast<Bytef*>(bytes.data());
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string text;
  char chunk[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&z);
      return path + ": not a valid gzip file (" + (z.msg ? z.msg : "truncated") + ")";
    }
    text.append(chunk, sizeof chunk - z.avail_out);
    if (text.size() > limit) {
      inflateEnd(&z);
      return path + ": decompresses to more than " + std::to_string(limit) + " bytes";
    }
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) {
      inflateEnd(&z);
      return path + ": not a valid gzip file (truncated)";
    }
  }
  inflateEnd(&z);
  out = std::move(text);
  return {};
}

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
