#include "flags.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace warpmind::demos {

namespace {

constexpr std::size_t kWidth = 110;  // --help's lines
constexpr std::size_t kColumn = 26;  // where the descriptions start

// `text` with each line broken at spaces to at most `width` columns (lines of one long word stay long).
std::string wrap(const std::string& text, std::size_t width) {
  std::string out;
  std::istringstream lines(text);
  std::string line;
  for (bool first = true; std::getline(lines, line); first = false) {
    if (!first) out += '\n';
    while (line.size() > width) {
      std::size_t cut = line.rfind(' ', width);
      if (cut == std::string::npos || cut == 0) cut = line.find(' ', width);
      if (cut == std::string::npos) break;
      out += line.substr(0, cut) + '\n';
      line.erase(0, cut + 1);
    }
    out += line;
  }
  return out;
}

// `name` in the first kColumn columns (or on a line of its own when longer), `text` wrapped beside it.
std::string row(const std::string& name, const std::string& text) {
  const std::string indent(kColumn, ' ');
  std::string out = "  " + name;
  out += out.size() + 2 > kColumn ? "\n" + indent : std::string(kColumn - out.size(), ' ');
  for (char c : wrap(text, kWidth - kColumn)) {
    out += c;
    if (c == '\n') out += indent;
  }
  return out + "\n";
}

// An option's row: its names and type ("--count N"), its description.
std::string row(const CLI::Option* o) {
  std::string name = o->get_name(o->get_positional(), true);
  if (o->get_type_size() != 0 && !o->get_type_name().empty() && !o->get_positional()) name += " " + o->get_type_name();
  return row(name, o->get_description() + (o->get_required() ? " (required)" : ""));
}

// Usage first, then the description, the flags by group, the subcommands and the footer, in kWidth
// columns; an option's type after its name ("--count N"). A subcommand's summary (in its parent's help)
// is the first line of its description, and its own help opens with the rest.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::string out = make_usage(app, name);
    std::string about = app->get_description();
    if (app->get_parent() && about.find('\n') != std::string::npos) about.erase(0, about.find('\n') + 1);
    if (!about.empty()) out += "\n" + wrap(about, kWidth) + "\n";
    out += make_positionals(app) + groups(app) + make_subcommands(app, mode);
    if (!app->get_footer().empty()) out += "\n" + wrap(app->get_footer(), kWidth) + "\n";
    return out;
  }
  // (CLI11's make_groups, not virtual, puts two blank lines between groups.)
  static std::string groups(const CLI::App* app) {
    std::string out;
    for (const std::string& group : app->get_groups()) {
      const auto opts =
          app->get_options([&group](const CLI::Option* o) { return o->get_group() == group && o->nonpositional(); });
      if (group.empty() || opts.empty()) continue;
      out += "\n" + group + ":\n";
      for (const CLI::Option* o : opts) out += row(o);
    }
    return out;
  }
  std::string make_option(const CLI::Option* opt, bool) const override { return row(opt); }
  std::string make_subcommand(const CLI::App* sub) const override {
    const std::string& d = sub->get_description();
    return row(sub->get_name(), d.substr(0, d.find('\n')));
  }
};

// The subcommand the command line chose (nullptr: none).
const CLI::App* chosen(const CLI::App& app) {
  const std::vector<CLI::App*> subs = app.get_subcommands();
  return subs.empty() ? nullptr : subs.front();
}

// The first argument nothing took, as an error ("" when there is none).
std::string unknown_argument(const CLI::App& app, const std::string& noun) {
  std::vector<std::string> left;
  if (const CLI::App* sub = chosen(app)) left = sub->remaining();
  for (const std::string& a : app.remaining()) left.push_back(a);
  if (left.empty()) return {};
  const std::string& a = left.front();
  if (a.rfind("--", 0) == 0) return "unknown option " + a.substr(0, a.find('=')) + " (see --help)";
  if (!chosen(app) && !noun.empty() && a.rfind('-', 0) != 0)
    return "unknown " + noun + " '" + a + "' (see " + app.get_name() + " --help)";
  return "unexpected argument '" + a + "'";
}

// CLI11's message for a parse error, in the programs' words where those differ.
std::string reason(const CLI::ParseError& e) {
  std::string what = e.what();
  for (char& c : what)
    if (c == '\n') c = ' ';
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    // "--count: 1 required N missing"
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos && what.ends_with(" missing") && what.find(" required ") != std::string::npos)
      return what.substr(0, colon) + " needs a value";
    // "json was given a disallowed flag override" ("--json=1")
    const std::string override = " was given a disallowed flag override";
    if (what.ends_with(override)) {
      std::string name = what.substr(0, what.size() - override.size());
      return (name.rfind("--", 0) == 0 ? name : "--" + name) + " takes no value";
    }
  }
  return what;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string described(const std::string& what, const std::string& range, const std::string& shown) {
  std::string more = range;
  if (!shown.empty()) more += (more.empty() ? "default " : "; default ") + shown;
  return more.empty() ? what : what + " (" + more + ")";
}

// -h and --help: the help at once when seen, whatever else is on the command line (a subcommand's app
// gets its own: CLI11 copies only its built-in help flag to subcommands).
void add_help_flag(CLI::App& app) {
  app.set_help_flag();
  app.add_flag_callback(
         "-h,--help", [] { throw CLI::CallForHelp(); }, "print this help and exit")
      ->trigger_on_parse();
}

}  // namespace

void configure(CLI::App& app, const std::string& noun) {
  auto help = std::make_shared<HelpFormatter>();
  help->column_width(kColumn);
  help->label("Usage", "usage");
  help->label("OPTIONS", "options");
  help->label("SUBCOMMAND", upper(noun));  // the usage line's "COMMAND"; parse() names it from there too
  app.formatter(help);
  app.option_defaults()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->disable_flag_override()
      ->group("options");
  add_help_flag(app);
  app.allow_extras();     // parse() reports them, in the programs' words
  app.group(noun + "s");  // the heading the subcommands are listed under
}

int Refusal::operator()(const std::string& why) const {
  std::fprintf(stderr, "%s: %s\n", program, why.c_str());
  return 2;
}

int parse(CLI::App& app, int argc, char** argv) {
  const std::string noun = lower(app.get_formatter()->get_label("SUBCOMMAND"));
  const auto fail = [&app](const std::string& what) {
    std::string where = app.get_name();
    if (const CLI::App* sub = chosen(app)) where += " " + sub->get_name();
    std::fprintf(stderr, "%s: %s\n", where.c_str(), what.c_str());
    return 2;
  };
  const bool has_subcommands = !app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }).empty();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::fputs(app.help().c_str(), stdout);
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::fputs(app.help("", CLI::AppFormatMode::All).c_str(), stdout);
    return 0;
  } catch (const CLI::ParseError& e) {
    if (const std::string u = unknown_argument(app, has_subcommands ? noun : ""); !u.empty()) return fail(u);
    if (has_subcommands && !chosen(app)) {
      std::string names;
      const auto subs = app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
      for (std::size_t i = 0; i < subs.size(); ++i)
        names += (i ? i + 1 == subs.size() ? " or " : ", " : "") + subs[i]->get_name();
      return fail("expected a " + noun + ": " + names + " (see " + app.get_name() + " --help)");
    }
    return fail(reason(e));
  }
  if (const std::string u = unknown_argument(app, has_subcommands ? noun : ""); !u.empty()) return fail(u);
  return -1;
}

CLI::App* add_subcommand(CLI::App& parent, const std::string& name, const std::string& description) {
  CLI::App* sub = parent.add_subcommand(name, description);
  add_help_flag(*sub);
  return sub;
}

int run_chosen(const std::vector<Subcommand>& subcommands) {
  for (const Subcommand& s : subcommands)
    if (s.app->parsed()) return s.run();
  return 2;  // parse() saw to it that one was chosen
}

CLI::Option* add_flag(CLI::App& app, const std::string& name, bool& on, const std::string& what) {
  return app.add_flag(name, on, what);
}

CLI::Option* add_text(CLI::App& app, const std::string& name, std::string& value, const std::string& type,
                      const std::string& what, std::function<std::string(const std::string&)> check,
                      const char* shown) {
  CLI::Option* o = app.add_option(name, value, described(what, "", shown ? shown : value));
  o->type_name(type);
  if (check) o->check(CLI::Validator([check](std::string& s) { return check(s); }, ""));
  return o;
}

CLI::Option* add_choice(CLI::App& app, const std::string& name, std::string& value,
                        const std::vector<std::string>& choices, const std::string& what, const char* shown) {
  std::string type, list;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    type += (i ? "|" : "") + choices[i];
    list += (i ? i + 1 == choices.size() ? " or " : ", " : "") + choices[i];
  }
  return add_text(
      app, name, value, type, what,
      [choices, list](const std::string& s) {
        for (const std::string& c : choices)
          if (s == c) return std::string();
        return "expected " + list + ", got '" + s + "'";
      },
      shown);
}

CLI::Option* add_integer(CLI::App& app, const std::string& name, std::function<void(long long)> set, long long lo,
                         long long hi, const std::string& type, const std::string& what, const std::string& shown) {
  const auto read = [lo, hi](const std::string& s, long long& v) {
    errno = 0;
    char* end = nullptr;
    v = std::strtoll(s.c_str(), &end, 10);
    return !s.empty() && *end == '\0' && errno == 0 && v >= lo && v <= hi;
  };
  const std::string range =
      hi == INT64_MAX ? ">= " + std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
  CLI::Option* o = app.add_option(
      name,
      [set, read](const CLI::results_t& r) {
        long long v = 0;
        if (!read(r.back(), v)) return false;
        set(v);
        return true;
      },
      described(what, range, shown));
  o->type_name(type);
  o->check(CLI::Validator(
      [read, lo, hi](std::string& s) {
        long long v = 0;
        return read(s, v)
                   ? std::string()
                   : "expected an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", got '" + s + "'";
      },
      ""));
  return o;
}

std::string number_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

CLI::Option* add_number(CLI::App& app, const std::string& name, std::function<void(double)> set, double lo, double hi,
                        const std::string& type, const std::string& what, const std::string& shown) {
  const auto read = [lo, hi](const std::string& s, double& v) {
    char* end = nullptr;
    v = std::strtod(s.c_str(), &end);
    return !s.empty() && *end == '\0' && std::isfinite(v) && v >= lo && v <= hi;
  };
  CLI::Option* o = app.add_option(
      name,
      [set, read](const CLI::results_t& r) {
        double v = 0;
        if (!read(r.back(), v)) return false;
        set(v);
        return true;
      },
      described(what, number_text(lo) + ".." + number_text(hi), shown));
  o->type_name(type);
  o->check(CLI::Validator(
      [read, lo, hi](std::string& s) {
        double v = 0;
        return read(s, v)
                   ? std::string()
                   : "expected a number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got '" + s + "'";
      },
      ""));
  return o;
}

void add_context_flags(CLI::App& app, ContextFlags& flags, bool threads) {
  add_choice(app, "--backend", flags.backend, {"cpu", "cuda", "auto"},
             "where the modules run; auto: cuda when a usable GPU is there, else cpu");
  if (threads) add_integer(app, "--threads", flags.threads, 0, 1024, "N", "CPU threads; 0: one per hardware thread");
}

Backend backend_of(const ContextFlags& flags) {
  Backend b = Backend::Auto;
  (void)parse_backend(flags.backend, b);  // checked when parsed
  return b;
}

std::string open_context(const ContextFlags& flags, bool quiet, std::unique_ptr<Context>& out) {
  ContextOptions co;
  co.backend = backend_of(flags);
  co.cpu_threads = flags.threads;
  co.cuda_device = flags.device;
  co.quiet = quiet;
  const Status st = Context::create(co, out);
  return st.ok() ? std::string() : st.message();
}

}  // namespace warpmind::demos
