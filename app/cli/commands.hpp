#pragma once
// The subcommands of histoscope-cli. Each returns the process exit code and throws
// hs::Error for failures (main maps them to exit codes 2, 3, 4).

#include <string>
#include <vector>

#include "histoscope/core/engine.hpp"

namespace hs::cli {

struct Context {
    EngineRegistry& registry;
    std::vector<std::string> args;  // after the subcommand name
};

int run_info(const Context& ctx);
int run_hist(const Context& ctx);
int run_kernels(const Context& ctx);
int run_bench(const Context& ctx);
int run_equalize(const Context& ctx);

// Writes `text` to `path` ("" or "-" = standard output). Throws InputError when it cannot.
void write_output(const std::string& path, const std::string& text);

}  // namespace hs::cli
