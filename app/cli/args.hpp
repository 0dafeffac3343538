#pragma once
// The parsed options of one command, as the command's code reads them: values by option name
// ("--bins", "-o"), flags and positional arguments. The options themselves (names, help,
// ranges, choices, exclusions) are declared once with CLI11 in command_line.cpp, which checks
// them before a command runs; the parsers below read what needs more than those checks.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace hs::cli {

class Args {
  public:
    // What `command` parsed.
    explicit Args(const CLI::App& command);
    // The same options with other positional arguments (bench reads each of its files alone).
    Args with_positional(std::vector<std::string> positional) const;

    std::optional<std::string> value(const std::string& name) const;
    bool flag(const std::string& name) const { return flags_.count(name) != 0; }
    bool has(const std::string& name) const { return value(name) || flag(name); }
    const std::vector<std::string>& positional() const { return positional_; }

    // Typed values; the declared range was checked when parsing.
    std::optional<std::int64_t> integer(const std::string& name) const;
    std::optional<double> number(const std::string& name) const;

  private:
    Args() = default;
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
    std::vector<std::string> positional_;
};

// Strict parsers shared by the options ("12", "0:256", "0,10.5,20").
std::int64_t parse_integer(const std::string& text, const std::string& what);
// A count of 1..2^50 with an optional binary suffix K, M or G ("16M" = 16 * 2^20).
std::uint64_t parse_count(const std::string& text, const std::string& what);
double parse_number(const std::string& text, const std::string& what);
std::pair<std::int64_t, std::int64_t> parse_range(const std::string& text);
std::vector<double> parse_number_list(const std::string& text, const std::string& what);

}  // namespace hs::cli
