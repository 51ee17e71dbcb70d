// What the programs write besides their flags' handling: files, JSON strings, and the build's commit
// and date stamped into result files.
#pragma once

#include <cstddef>
#include <string>

namespace warpmind::demos {

// Reads the file at `path` into `out`; a gzip file (it starts with the gzip magic bytes 1f 8b) is
// decompressed, up to `limit` bytes of its content (more is an error: a file claiming to be larger than
// anything the reader takes is refused before it fills memory). Returns an empty string or the reason,
// `out` unchanged then.
std::string read_file(const std::string& path, std::string& out, std::size_t limit = std::size_t{1} << 26);
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
