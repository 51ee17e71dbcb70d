#include "args.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>

#include "build_info.h"  // WARPMIND_GIT_COMMIT, generated at build time

namespace warpmind::demos {

Args::Args(int argc, char** argv, int first, const std::set<std::string>& with_value,
           const std::set<std::string>& booleans) {
  for (int i = first; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) != 0) {
      fail("unexpected argument '" + a + "'");
      return;
    }
    std::string name = a.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (booleans.count(name)) {
      if (inline_value) {
        fail("--" + name + " takes no value");
        return;
      }
      values_[name].assign(1, '1');  // (not = "1": GCC 12 warns wrongly of an overlap there)
    } else if (with_value.count(name)) {
      if (!inline_value) {
        if (i + 1 >= argc) {
          fail("--" + name + " needs a value");
          return;
        }
        value = argv[++i];
      }
      values_[name] = value;
    } else {
      fail("unknown option --" + name + " (see --help)");
      return;
    }
  }
}

std::string Args::str(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

long long Args::integer(const std::string& name, long long fallback, long long lo, long long hi) {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (it->second.empty() || *end != '\0' || errno != 0 || v < lo || v > hi) {
    fail("--" + name + ": expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got '" +
         it->second + "'");
    return fallback;
  }
  return v;
}

double Args::number(const std::string& name, double fallback, double lo, double hi) {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  char* end = nullptr;
  const double v = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi) {
    fail("--" + name + ": expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" +
         it->second + "'");
    return fallback;
  }
  return v;
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

std::string open_context(Args& args, bool quiet, std::unique_ptr<Context>& out) {
  ContextOptions co;
  if (!parse_backend(args.str("backend", "auto"), co.backend))
    return "--backend: expected cpu, cuda or auto, got '" + args.str("backend") + "'";
  co.cpu_threads = static_cast<unsigned>(args.integer("threads", 0, 0, 1024));
  if (!args.error().empty()) return args.error();
  co.quiet = quiet;
  const Status st = Context::create(co, out);
  return st.ok() ? std::string() : st.message();
}

}  // namespace warpmind::demos
