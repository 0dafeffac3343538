#include <algorithm>
#include <iostream>

#include "args.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"

namespace hs::cli {

void write_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        std::cout << text << std::flush;
        if (!std::cout) throw InputError("cannot write to standard output");
        return;
    }
    media::write_file_atomically(path, text);
}

void refuse_output_onto_input(const Args& args) {
    const auto output = args.value("-o");
    if (!output || output->empty() || *output == "-") return;
    std::vector<std::string> inputs = args.positional();
    if (inputs.empty() && args.has("--raw")) inputs.push_back("-");
    if (const auto ref = args.value("--reference")) inputs.push_back(*ref);
    for (const std::string& input : inputs)
        if (media::same_file(input, *output))
            throw UsageError("-o '" + *output + "' is the input " +
                             (input == "-" ? std::string("(standard input)") : "'" + input + "'") +
                             ": an output never replaces its input; choose another file");
}

std::string csv_field(const std::string& text) {
    if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace hs::cli
