// Command-line flags shared by warpmind, warpmind-bench and warpmind-demo: "--name value",
// "--name=value" and boolean "--name". Unknown flags and malformed values are errors with a one-line
// reason (the programs exit 2 with it, as the conventions in docs/conventions.md require).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "warpmind/core/context.h"

namespace warpmind::demos {

class Args {
 public:
  // Parses argv[first..]; `with_value` names flags that take a value, `booleans` flags that do not.
  Args(int argc, char** argv, int first, const std::set<std::string>& with_value,
       const std::set<std::string>& booleans);

  const std::string& error() const { return error_; }  // empty when parsing succeeded
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  std::string str(const std::string& name, const std::string& fallback = "") const;
  // Numeric accessors record an error (and return the fallback) when the value is malformed or out of range.
  long long integer(const std::string& name, long long fallback, long long lo, long long hi);
  double number(const std::string& name, double fallback, double lo, double hi);
  void fail(const std::string& message) {
    if (error_.empty()) error_ = message;
  }

 private:
  std::map<std::string, std::string> values_;
  std::string error_;
};

// The context a program runs on, from --backend cpu|cuda|auto and --threads N (`quiet`: no notice of
// the backend chosen). Returns an empty string, or why not (the caller prints it and exits 2).
std::string open_context(Args& args, bool quiet, std::unique_ptr<Context>& out);

// Writes `text` to `path`; returns an empty string or the reason.
std::string write_file(const std::string& path, const std::string& text);
// ISO-8601 UTC time now, for result files.
std::string utc_now();
// Source commit the binary was built from, looked up when it was built: 12 hex digits, with "-dirty"
// when tracked files differed from that commit, or "unknown" outside a git checkout.
std::string build_commit();
// Whether the build's sources are not exactly a commit ("-dirty" or "unknown").
bool build_is_dirty();
// Escapes a string for a JSON string literal.
std::string json_escape(const std::string& s);

}  // namespace warpmind::demos
