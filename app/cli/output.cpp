#include <algorithm>
#include <fstream>
#include <iostream>

#include "commands.hpp"
#include "histoscope/core/error.hpp"

namespace hs::cli {

void write_output(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        std::cout << text << std::flush;
        if (!std::cout) throw InputError("cannot write to standard output");
        return;
    }
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.close();
    if (!f) throw InputError("cannot write '" + path + "'");
}

double median(std::vector<double> values) {
    if (values.empty()) return 0.0;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

}  // namespace hs::cli
