// What the programs write besides their flags' handling: files, JSON strings, and the build's commit
// and date stamped into result files.
#pragma once

#include <string>

namespace warpmind::demos {

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
