#include "option_checks.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <exception>
#include <map>
#include <system_error>

namespace hs::cli::check {

namespace {

template <typename T>
bool parse_whole(const std::string& text, T& value) {
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    return !text.empty() && ec == std::errc() && ptr == end;
}

std::string decimal(double v) {
    std::string s = std::to_string(v);
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
    return s;
}

}  // namespace

CLI::Validator integer(std::int64_t min, std::int64_t max) {
    const std::string range = std::to_string(min) + " to " + std::to_string(max);
    return CLI::Validator(
        [min, max, range](std::string& text) -> std::string {
            std::int64_t v = 0;
            if (!parse_whole(text, v) || v < min || v > max)
                return "expects an integer from " + range + ", not '" + text + "'";
            return {};
        },
        "INT in [" + std::to_string(min) + " - " + std::to_string(max) + "]");
}

CLI::Validator integer() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            std::int64_t v = 0;
            if (!parse_whole(text, v)) return "expects integers, not '" + text + "'";
            return {};
        },
        "");
}

CLI::Validator number(double min, double max, bool min_open) {
    const std::string range = min_open
                                  ? "greater than " + decimal(min) + " and at most " + decimal(max)
                                  : "from " + decimal(min) + " to " + decimal(max);
    return CLI::Validator(
        [min, max, min_open, range](std::string& text) -> std::string {
            double v = 0.0;
            if (!parse_whole(text, v) || !std::isfinite(v) || v > max ||
                (min_open ? v <= min : v < min))
                return "expects a number " + range + ", not '" + text + "'";
            return {};
        },
        std::string("FLOAT in ") + (min_open ? "(" : "[") + decimal(min) + " - " + decimal(max) +
            "]");
}

CLI::Validator finite_number() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0.0;
            if (!parse_whole(text, v) || !std::isfinite(v))
                return "expects numbers, not '" + text + "'";
            return {};
        },
        "");
}

CLI::Validator count() {
    constexpr std::uint64_t kMost = std::uint64_t{1} << 50;
    const CLI::AsNumberWithUnit units(
        std::map<std::string, std::uint64_t>{{"K", std::uint64_t{1} << 10},
                                             {"M", std::uint64_t{1} << 20},
                                             {"G", std::uint64_t{1} << 30}},
        CLI::AsNumberWithUnit::CASE_SENSITIVE);
    return CLI::Validator(
        [units](std::string& text) -> std::string {
            const std::string given = text;
            // Digits, then at most the suffix: no sign, space, hexadecimal or suffix alone.
            const std::size_t digits = text.find_first_not_of("0123456789");
            bool ok = digits > 0 && (digits == std::string::npos || digits + 1 == text.size());
            if (ok) {
                try {
                    ok = units(text).empty();
                } catch (const CLI::ValidationError&) {  // an unknown suffix, or an overflow
                    ok = false;
                }
            }
            std::uint64_t n = 0;
            if (!ok || !parse_whole(text, n) || n < 1 || n > kMost)
                return "expects a count from 1 to 2^50, N or N with K, M or G (times 2^10, "
                       "2^20, 2^30), not '" +
                       given + "'";
            return {};
        },
        "in [1 - 2^50]");
}

CLI::Validator one_of(const std::vector<std::string>& names, const std::string& what) {
    std::string listed;
    for (std::size_t i = 0; i < names.size(); ++i)
        listed += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    std::string shown = "{";
    for (const std::string& n : names) shown += (shown.size() > 1 ? "," : "") + n;
    return CLI::Validator(
        [names, what, listed](std::string& text) -> std::string {
            if (std::find(names.begin(), names.end(), text) != names.end()) return {};
            return "unknown " + what + " '" + text + "' (" + listed + ")";
        },
        shown + "}");
}

CLI::Validator flag_value() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            try {
                static_cast<void>(CLI::detail::to_flag_value(text));
            } catch (const std::exception&) {
                return "takes no value, or true/false (1/0, yes/no, on/off), not '" + text + "'";
            }
            return {};
        },
        "");
}

CLI::Validator output_path() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            if (text.empty()) return "needs a file name (or - for standard output)";
            if (text.front() == '=')
                return "takes its file name after a space: -o " + text.substr(1);
            return {};
        },
        "");
}

}  // namespace hs::cli::check
