#include "args.hpp"

#include <charconv>
#include <cmath>

#include "histoscope/core/error.hpp"

namespace hs::cli {

Args::Args(const std::vector<std::string>& argv, const OptionSpec& spec) {
    bool options_done = false;
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (options_done || a == "-" || a.empty() || a[0] != '-') {
            positional_.push_back(a);
            continue;
        }
        if (a == "--") {
            options_done = true;
            continue;
        }
        std::string name = a;
        std::optional<std::string> inline_value;
        if (const auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
            name = a.substr(0, eq);
            inline_value = a.substr(eq + 1);
        }
        if (spec.flags.count(name)) {
            if (inline_value) throw UsageError("option " + name + " takes no value");
            flags_.insert(name);
        } else if (spec.with_value.count(name)) {
            if (values_.count(name)) throw UsageError("option " + name + " is given twice");
            if (inline_value) {
                values_[name] = *inline_value;
            } else {
                if (i + 1 >= argv.size()) throw UsageError("option " + name + " needs a value");
                values_[name] = argv[++i];
            }
        } else {
            throw UsageError("unknown option '" + name + "'");
        }
    }
}

std::optional<std::string> Args::value(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

std::optional<std::int64_t> Args::integer(const std::string& name, std::int64_t min,
                                          std::int64_t max) const {
    const auto v = value(name);
    if (!v) return std::nullopt;
    const std::int64_t i = parse_integer(*v, name);
    if (i < min || i > max)
        throw UsageError(name + " must be between " + std::to_string(min) + " and " +
                         std::to_string(max) + ", not " + *v);
    return i;
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
