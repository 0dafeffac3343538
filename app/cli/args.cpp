#include "args.hpp"

#include <charconv>
#include <cmath>

#include <CLI/App.hpp>
#include <CLI/Error.hpp>

#include "histoscope/core/error.hpp"

namespace hs::cli {

Args::Args(const CLI::App& command) {
    for (const CLI::Option* option : command.get_options()) {
        if (option->count() == 0) continue;
        const std::string name = option->get_name(false, true);
        if (option->get_positional()) {
            positional_ = option->results();
        } else if (option->get_expected_min() == 0) {
            // A flag takes the values CLI11 documents: --stats=false (0, no, off, ...) turns it
            // off, --stats=true (1, yes, on, ...) on; anything else is refused.
            bool on = false;
            try {
                on = option->as<bool>();
            } catch (const CLI::ParseError&) {
                throw UsageError(name +
                                 " takes no value, or true/false (1/0, yes/no, on/off), not '" +
                                 option->results().front() + "'");
            }
            if (on) flags_.insert(name);
        } else {
            values_[name] = option->results().front();
        }
    }
}

Args Args::with_positional(std::vector<std::string> positional) const {
    Args out = *this;
    out.positional_ = std::move(positional);
    return out;
}

std::optional<std::string> Args::value(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::optional<std::int64_t> Args::integer(const std::string& name) const {
    const auto v = value(name);
    if (!v) return std::nullopt;
    return parse_integer(*v, name);
}

std::optional<double> Args::number(const std::string& name) const {
    const auto v = value(name);
    if (!v) return std::nullopt;
    return parse_number(*v, name);
}

std::int64_t parse_integer(const std::string& text, const std::string& what) {
    std::int64_t i = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, i);
    if (text.empty() || ec != std::errc() || ptr != end)
        throw UsageError(what + " expects an integer, not '" + text + "'");
    return i;
}

std::uint64_t parse_count(const std::string& text, const std::string& what) {
    std::uint64_t scale = 1;
    std::string digits = text;
    if (!digits.empty()) {
        switch (digits.back()) {
            case 'K':
                scale = 1ull << 10;
                break;
            case 'M':
                scale = 1ull << 20;
                break;
            case 'G':
                scale = 1ull << 30;
                break;
            default:
                break;
        }
        if (scale != 1) digits.pop_back();
    }
    const std::int64_t n = parse_integer(digits, what);
    if (n < 1 || static_cast<std::uint64_t>(n) > (std::uint64_t{1} << 50) / scale)
        throw UsageError(what + " must be between 1 and 2^50, not '" + text + "'");
    return static_cast<std::uint64_t>(n) * scale;
}

double parse_number(const std::string& text, const std::string& what) {
    double d = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, d);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(d))
        throw UsageError(what + " expects a number, not '" + text + "'");
    return d;
}

std::pair<std::int64_t, std::int64_t> parse_range(const std::string& text) {
    const auto colon = text.find(':');
    if (colon == std::string::npos)
        throw UsageError("--range expects LO:HI (integers, HI excluded), not '" + text + "'");
    return {parse_integer(text.substr(0, colon), "--range"),
            parse_integer(text.substr(colon + 1), "--range")};
}

std::vector<double> parse_number_list(const std::string& text, const std::string& what) {
    std::vector<double> out;
    std::size_t start = 0;
    while (true) {
        const auto comma = text.find(',', start);
        out.push_back(parse_number(text.substr(start, comma - start), what));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

}  // namespace hs::cli
