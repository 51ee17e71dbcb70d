// warpmind-bots' records: what bots of one process received and sent, written to a file after the run
// (--record) so that one checker can read the files of several bot processes and check every bot
// together (--check-records). The check needs every State in one place: a process that knows only its own
// bots counts the other processes' players as extra (docs/server.md, "Bots in several processes").
//
// The file: little-endian; "WMBOTREC", u32 format (1), the world (f32 x0, y0, width, height, aoi, map,
// max_move; u32 shape, tick_hz), u64 bot count, then per bot u64 session count and per session its fields
// (bots.h's Session, in declaration order: scalars, then u64-counted lists of sent commands, States with
// their mailbox entries and catch-ups, and events with their entered and left players). A file that does
// not parse to its last byte is refused with the offset where it went wrong.
#pragma once

#include <string>
#include <vector>

#include "bots.h"

namespace warpmind::bots {

// Writes `world` and every bot's sessions to `path`; "" on success, else why not.
std::string write_record(const std::string& path, const World& world, const std::vector<Bot>& bots);

// Reads the files in order, appending their bots' sessions to `bots` (one Bot each, only its sessions
// set) and setting `world` from the first; every file must describe the same world. "" on success, else
// the file and why (and `bots`, `world` are then unspecified).
std::string read_records(const std::vector<std::string>& paths, World& world, std::vector<Bot>& bots);

}  // namespace warpmind::bots
