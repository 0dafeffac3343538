#include <algorithm>
#include <iostream>

#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"

namespace hs::cli {

namespace {

// `text` with its control characters escaped as diagnose() writes them.
std::string escape_controls(const std::string& text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c >= 0x20 && c != 0x7F) {
            out += ch;
        } else if (c == '\n') {
            out += "\\n";
        } else if (c == '\r') {
            out += "\\r";
        } else if (c == '\t') {
            out += "\\t";
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 0xF];
        }
    }
    return out;
}

}  // namespace

void diagnose(const char* kind, const std::string& text) {
    std::cerr << kind << ": " << escape_controls(text) << "\n";
}

void write_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        std::cout << text << std::flush;
        if (!std::cout) throw InputError("cannot write to standard output");
        return;
    }
    media::write_file_atomically(path, text);
}

void refuse_output_onto_input(const InputOptions& input, const std::string& output,
                              const std::optional<std::string>& reference) {
    // (-o "" and -o=FILE are refused while parsing: check::output_path.)
    if (output.empty() || output == "-") return;
    std::vector<std::string> inputs = input.files;
    if (inputs.empty() && input.raw) inputs.push_back("-");
    if (reference) inputs.push_back(*reference);
    for (const std::string& in : inputs)
        if (media::same_file(in, output))
            throw UsageError("-o '" + output + "' is the input " +
                             (in == "-" ? std::string("(standard input)") : "'" + in + "'") +
                             ": an output never replaces its input; choose another file");
}

}  // namespace hs::cli
