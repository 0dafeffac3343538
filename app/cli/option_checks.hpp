#pragma once
// CLI11 validators of histoscope-cli's option values, with our messages. A value they refuse is
// a usage error naming the option (CLI11 puts its name first: "--bins: expects an integer from
// 1 to 16777216, not 'x'"); their descriptions are what the help shows after the value's name.

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hs::cli::check {

// A whole decimal number in [min, max] ("12"; not "1.5", "0x10" nor "12 apples").
CLI::Validator integer(std::int64_t min, std::int64_t max);
// Any whole decimal number (each item of LO:HI).
CLI::Validator integer();
// A finite decimal number in [min, max], or in (min, max] with `min_open`.
CLI::Validator number(double min, double max, bool min_open = false);
// A finite decimal number: each item of a list such as --edges.
CLI::Validator finite_number();
// A count of 1 to 2^50, digits with an optional suffix K, M or G (times 2^10, 2^20, 2^30: "16M"),
// turned into its digits by CLI11's AsNumberWithUnit (what its AsSizeValue is made of; that one
// also takes T, P, E, KiB, kb, ... in any case, which these options do not).
CLI::Validator count();
// One of `names` (each a name of `what`: "unknown scope 'histogram' (waveform, parade or
// vectorscope)"); the help shows them as CLI11's IsMember does, "{waveform,parade,vectorscope}".
CLI::Validator one_of(const std::vector<std::string>& names, const std::string& what);
// A flag's value, when given one: what CLI11 reads as a boolean (true/false, 1/0, yes/no,
// on/off); anything else is refused rather than taken for either.
CLI::Validator flag_value();
// An output file name: not empty, nor "=NAME" (-o=NAME would write a file named "=NAME").
CLI::Validator output_path();

}  // namespace hs::cli::check
