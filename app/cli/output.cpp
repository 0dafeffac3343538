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

}  // namespace hs::cli
