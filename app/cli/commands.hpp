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

class Args;
// The streaming forms: hist --per-frame (cmd_hist_frames.cpp), equalize of a video or raw
// stream (cmd_equalize_frames.cpp), bench of a video or raw stream (cmd_bench_frames.cpp).
int run_hist_frames(const Context& ctx, const Args& args);
int run_equalize_frames(const Context& ctx, const Args& args);
int run_bench_frames(const Context& ctx, const Args& args);

// Writes `text` to `path` ("" or "-" = standard output; a file is replaced atomically, see
// media::AtomicFile). Throws InputError when it cannot.
void write_output(const std::string& path, const std::string& text);

// Throws UsageError when -o names one of the command's inputs (its files, --reference, or the
// file standard input comes from), also through links: writing it would destroy the input.
void refuse_output_onto_input(const Args& args);

// The median of `values` (the mean of the middle two for an even count; 0 when empty).
double median(std::vector<double> values);

}  // namespace hs::cli
