// histoscope-cli: histograms of photos, video frames and raw frames from the command line.
// Exit codes: 0 success, 2 usage error, 3 bad input, 4 device failure.

#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "app_engines.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"

namespace {

int exit_code(hs::ErrorKind kind) {
    switch (kind) {
        case hs::ErrorKind::Usage:
        case hs::ErrorKind::Unsupported:
            return 2;
        case hs::ErrorKind::Input:
            return 3;
        case hs::ErrorKind::Device:
            return 4;
    }
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        hs::cli::CommandLine command_line;
        const std::string command =
            command_line.parse(std::vector<std::string>(argv + 1, argv + argc));
        if (command.empty()) return 0;  // --help or --version answered
        const hs::app::Engines engines = hs::app::make_engines();
        const hs::cli::Context ctx{*engines.registry, engines};
        const hs::cli::Commands& c = command_line.commands();
        if (command == "info") return hs::cli::run_info(ctx, c.info);
        if (command == "hist") return hs::cli::run_hist(ctx, c.hist);
        if (command == "scope") return hs::cli::run_scope(ctx, c.scope);
        if (command == "kernels") return hs::cli::run_kernels(ctx, c.kernels);
        if (command == "equalize") return hs::cli::run_equalize(ctx, c.equalize);
        return hs::cli::run_bench(ctx, c.bench);
    } catch (const hs::Error& e) {
        hs::cli::diagnose("error", e.what());
        return exit_code(e.kind());
    } catch (const std::bad_alloc&) {
        hs::cli::diagnose("error", "out of host memory");
        return 3;
    } catch (const std::exception& e) {
        hs::cli::diagnose("error", e.what());
        return 1;
    }
}
