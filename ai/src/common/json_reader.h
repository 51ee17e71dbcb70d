// Reading JSON input files with errors that name the file and the field: "s.json: kinds[1].param: ...".
// Shared by the scenario loaders; nothing here throws across the API.
#pragma once

#include <cmath>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>

#include "warpmind/core/geometry.h"
#include "warpmind/core/status.h"

namespace warpmind::detail {

using nlohmann::json;

struct JsonReader {
  const std::string& source;

  Status error(const std::string& path, const std::string& what) const {
    return Status::Invalid(source + ": " + path + ": " + what);
  }
  Status number(const json& obj, const std::string& key, const std::string& path, float& out, bool required) const {
    auto it = obj.find(key);
    if (it == obj.end()) return required ? error(path + key, "missing (a number)") : Status::Ok();
    if (!it->is_number()) return error(path + key, "expected a number");
    const double v = it->get<double>();
    if (!std::isfinite(v) || std::fabs(v) > 3.0e38) return error(path + key, "not a finite float");
    out = static_cast<float>(v);
    return Status::Ok();
  }
  Status integer(const json& obj, const std::string& key, const std::string& path, long long lo, long long hi,
                 long long& out, bool required) const {
    auto it = obj.find(key);
    if (it == obj.end()) return required ? error(path + key, "missing (an integer)") : Status::Ok();
    if (!it->is_number_integer()) return error(path + key, "expected an integer");
    const long long v =
        it->is_number_unsigned() && it->get<unsigned long long>() > 9.2e18 ? hi + 1 : it->get<long long>();
    if (v < lo || v > hi)
      return error(path + key, "must be in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + it->dump());
    out = v;
    return Status::Ok();
  }
  Status object(const json& obj, const std::string& path) const {
    return obj.is_object() ? Status::Ok() : error(path.empty() ? "(top level)" : path, "expected an object");
  }
  // Every key of the object `obj` (at `path`, "" for the top level, else ending in '.') must be one of
  // `known`; the top level also takes "comment" (any value, ignored). An unknown key is an error that
  // names it and lists the known ones, so a misspelt optional key is not silently ignored.
  Status keys(const json& obj, const std::string& path, std::initializer_list<std::string_view> known) const {
    if (!obj.is_object()) return Status::Ok();  // object() reports that
    for (const auto& item : obj.items()) {
      const std::string& k = item.key();
      bool ok = path.empty() && k == "comment";
      for (std::string_view n : known) ok = ok || k == n;
      if (ok) continue;
      std::string list;
      for (std::string_view n : known) list += (list.empty() ? "" : ", ") + std::string(n);
      return error(path + k, "unknown key (known here: " + list + (path.empty() ? ", comment" : "") + ")");
    }
    return Status::Ok();
  }
  // Optional "world": {"x0", "y0", "width", "height"} of `root` into `w` (keys not given keep w's values).
  Status world(const json& root, WorldRect& w) const {
    auto it = root.find("world");
    if (it == root.end()) return Status::Ok();
    WM_RETURN_IF_ERROR(object(*it, "world"));
    WM_RETURN_IF_ERROR(keys(*it, "world.", {"x0", "y0", "width", "height"}));
    WM_RETURN_IF_ERROR(number(*it, "x0", "world.", w.x0, false));
    WM_RETURN_IF_ERROR(number(*it, "y0", "world.", w.y0, false));
    WM_RETURN_IF_ERROR(number(*it, "width", "world.", w.width, false));
    WM_RETURN_IF_ERROR(number(*it, "height", "world.", w.height, false));
    if (!(w.width > 0.0f) || !(w.height > 0.0f)) return error("world", "width and height must be > 0");
    return Status::Ok();
  }
};

// Parses `text` and hands the root to `fill`; JSON syntax errors, numbers a double cannot hold (1e400)
// and any exception of the JSON library become InvalidArgument statuses naming `source`.
inline Status parse_json(std::string_view text, const std::string& source,
                         const std::function<Status(const JsonReader&, const json&)>& fill) {
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::exception& e) {  // syntax (parse_error) and out-of-range numbers (out_of_range)
    return Status::Invalid(source + ": not valid JSON (" + e.what() + ")");
  }
  try {
    return fill(JsonReader{source}, root);
  } catch (const std::exception& e) {  // defensive: a type the readers' checks missed
    return Status::Invalid(source + ": " + e.what());
  }
}

inline Status read_text_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::Invalid(path + ": cannot open file");
  std::ostringstream text;
  text << in.rdbuf();
  out = text.str();
  return Status::Ok();
}

}  // namespace warpmind::detail
