#pragma once
// Command-line options of one subcommand: "--name value", "--name=value", boolean flags and
// positional arguments. Unknown options, missing values and repeated options are usage
// errors (hs::UsageError, exit code 2).

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hs::cli {

struct OptionSpec {
    std::set<std::string> with_value;  // e.g. "--bins", "-o"
    std::set<std::string> flags;       // e.g. "--stats"
};

class Args {
  public:
    Args(const std::vector<std::string>& argv, const OptionSpec& spec);

    std::optional<std::string> value(const std::string& name) const;
    bool flag(const std::string& name) const { return flags_.count(name) != 0; }
    bool has(const std::string& name) const { return value(name) || flag(name); }
    const std::vector<std::string>& positional() const { return positional_; }

    // Typed values; out-of-range or malformed text is a UsageError naming the option.
    std::optional<std::int64_t> integer(const std::string& name, std::int64_t min,
                                        std::int64_t max) const;
    std::optional<double> number(const std::string& name) const;

  private:
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
