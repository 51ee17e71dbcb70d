// Command-line flags of the programs (warpmind, warpmind-bench, warpmind-referee, warpmind-demo and the
// engines) through CLI11: every flag is declared once on a CLI::App — name, type, check, default and
// description — and --help is generated from those declarations, so it lists exactly the flags a
// program accepts. What docs/conventions.md asks of them: "--name value" and "--name=value" both work,
// a repeated flag's last value wins, unknown flags are errors, --help (or -h) on every subcommand prints
// help on stdout and exits 0, bad input exits 2 with one line "PROGRAM[ SUBCOMMAND]: what is wrong" on
// stderr.
//
//   CLI::App app("Runs the thing.", "warpmind-thing");
//   demos::configure(app);
//   int count = 256;
//   demos::add_integer(app, "--count", count, 0, 100000000, "N", "entities");  // --help: "(0..100000000; default 256)"
//   if (const int rc = demos::parse(app, argc, argv); rc >= 0) return rc;
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "warpmind/core/context.h"

namespace warpmind::demos {

// Sets up a program's app before anything is added to it (subcommands added later inherit it): -h and
// --help, the last value of a repeated flag wins, no value on a flag without one, unknown arguments kept
// for parse() to report, help laid out in 110 columns. `noun` is what a subcommand is called ("command",
// "suite").
void configure(CLI::App& app, const std::string& noun = "command");

// Parses the command line. Returns -1 when the program goes on; 0 after printing the help asked for on
// stdout; 2 after printing one line "PROGRAM[ SUBCOMMAND]: what is wrong" on stderr.
int parse(CLI::App& app, int argc, char** argv);

// Bad input found after parsing: `bad("what is wrong")` prints "PROGRAM: what is wrong" on stderr and
// returns 2, the exit status of bad input. One per program or subcommand:
//   constexpr demos::Refusal bad{"warpmind field"};
struct Refusal {
  const char* program;
  int operator()(const std::string& why) const;
};

// A subcommand (of warpmind) or a suite (of warpmind-bench): its app, on which its flags are declared, and
// what runs when the command line chose it (returning the exit status).
struct Subcommand {
  CLI::App* app;
  std::function<int()> run;
};
// Adds a subcommand to `parent`. The first line of `description` is its summary in the parent's --help;
// the whole of it opens its own --help.
CLI::App* add_subcommand(CLI::App& parent, const std::string& name, const std::string& description);
// Runs the subcommand that parse() found on the command line.
int run_chosen(const std::vector<Subcommand>& subcommands);

// ---- Flags. `what` describes one; the helpers add its range and default to the description. `shown`:
// the default as --help shows it (nullptr: the variable's value when declared; "": none).

// A flag without a value ("--json"): true when given.
CLI::Option* add_flag(CLI::App& app, const std::string& name, bool& on, const std::string& what);
// A string, any value or those `check` accepts (it returns "" or what is wrong with the value).
CLI::Option* add_text(CLI::App& app, const std::string& name, std::string& value, const std::string& type,
                      const std::string& what, std::function<std::string(const std::string&)> check = {},
                      const char* shown = nullptr);
// One of `choices` ("expected a, b or c, got 'x'").
CLI::Option* add_choice(CLI::App& app, const std::string& name, std::string& value,
                        const std::vector<std::string>& choices, const std::string& what, const char* shown = nullptr);
// A decimal integer in [lo, hi] ("expected an integer in LO..HI, got 'x'").
CLI::Option* add_integer(CLI::App& app, const std::string& name, std::function<void(long long)> set, long long lo,
                         long long hi, const std::string& type, const std::string& what, const std::string& shown);
// A finite number in [lo, hi] ("expected a number in [LO, HI], got 'x'").
CLI::Option* add_number(CLI::App& app, const std::string& name, std::function<void(double)> set, double lo, double hi,
                        const std::string& type, const std::string& what, const std::string& shown);
std::string number_text(double v);  // %g

template <class T>
CLI::Option* add_integer(CLI::App& app, const std::string& name, T& value, long long lo, long long hi,
                         const std::string& type, const std::string& what, const char* shown = nullptr) {
  return add_integer(
      app, name, [&value](long long v) { value = static_cast<T>(v); }, lo, hi, type, what,
      shown ? std::string(shown) : std::to_string(static_cast<long long>(value)));
}
template <class T>
CLI::Option* add_number(CLI::App& app, const std::string& name, T& value, double lo, double hi, const std::string& type,
                        const std::string& what, const char* shown = nullptr) {
  return add_number(
      app, name, [&value](double v) { value = static_cast<T>(v); }, lo, hi, type, what,
      shown ? std::string(shown) : number_text(static_cast<double>(value)));
}

// ---- The context flags the programs share: --backend cpu|cuda|auto and --threads N.
struct ContextFlags {
  std::string backend = "auto";
  unsigned threads = 0;  // 0: one per hardware thread
  int device = 0;        // the CUDA device's ordinal (a program that offers --device sets it)
};
// Adds --backend and, with `threads`, --threads to `app`.
void add_context_flags(CLI::App& app, ContextFlags& flags, bool threads = true);
// The backend --backend names (checked when parsed).
Backend backend_of(const ContextFlags& flags);
// The context a program runs on (`quiet`: no notice of the backend chosen). Returns an empty string, or
// why not (the caller prints it and exits 2).
std::string open_context(const ContextFlags& flags, bool quiet, std::unique_ptr<Context>& out);

}  // namespace warpmind::demos
