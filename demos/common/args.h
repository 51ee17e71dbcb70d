// Kept only for demos/demo/app.cpp, which still includes it: the helpers that were here are in output.h
// (files, JSON strings, the build stamp) and flags.h (the command-line flags, through CLI11). Include
// those instead; delete this file when nothing includes it.
#pragma once

#include "output.h"
