#pragma once
// histoscope-cli's command line, declared once with CLI11: the commands, their options bound to
// the fields of options.hpp with help lines, ranges, choices, defaults and exclusions.
// `histoscope-cli --help` and `COMMAND --help` are generated from these declarations, so the help
// cannot drift from what is accepted.

#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "options.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace hs::cli {

class CommandLine {
  public:
    CommandLine();
    ~CommandLine();
    // CLI11 holds references to the fields of commands().
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    // Parses the arguments after the program name into commands() and returns the command's
    // name ("" after --help or --version was answered, on standard output). Throws
    // hs::UsageError for anything it refuses (unknown command or option, a value out of range
    // or of the wrong form, an option given twice, options that exclude each other, ...).
    std::string parse(const std::vector<std::string>& arguments);
    const Commands& commands() const { return commands_; }

    // The whole help, every command included (what --help prints; also for a bare call).
    std::string help() const;

  private:
    bool is_command(const std::string& name) const;

    Commands commands_;
    std::unique_ptr<CLI::App> app_;
    // The options whose Defaulted field says whether they were given, and the lists (values
    // split at commas), which CLI11 lets repeat: parse() refuses them twice.
    std::vector<std::pair<const CLI::Option*, bool*>> given_;
    std::vector<const CLI::Option*> lists_;
    // Each command's output whose format -o's extension names (.json, .csv, .txt, .png): the
    // command, its output, the formats it writes and its inputs (none for kernels), which -o
    // may not name.
    std::vector<
        std::tuple<std::string, OutputOptions*, std::vector<std::string>, const InputOptions*>>
        outputs_;
};

}  // namespace hs::cli
