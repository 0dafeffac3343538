#include <algorithm>
#include <iostream>

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

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace hs::cli
