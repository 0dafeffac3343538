#pragma once
// histoscope-cli's command line, declared once with CLI11: the commands, their options with
// help lines, ranges, choices and exclusions. `histoscope-cli --help` and `COMMAND --help`
// are generated from these declarations, so the help cannot drift from what is accepted.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"

namespace CLI {
class App;
}

namespace hs::cli {

class CommandLine {
  public:
    CommandLine();
    ~CommandLine();

    struct Parsed {
        std::string command;  // "" after --help or --version was answered
        std::optional<Args> args;
    };
    // Parses the arguments after the program name. Answers --help and --version on standard
    // output; throws hs::UsageError for anything it refuses (unknown command or option, a
    // value out of range, options that exclude each other, ...).
    Parsed parse(const std::vector<std::string>& arguments);

    // The whole help, every command included (what --help prints; also for a bare call).
    std::string help() const;

  private:
    bool is_command(const std::string& name) const;

    std::unique_ptr<CLI::App> app_;
    std::vector<std::unique_ptr<std::vector<std::string>>> positional_;  // CLI11 binds these
};

}  // namespace hs::cli
