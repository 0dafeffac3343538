#pragma once
// The subcommands of histoscope-cli. Each returns the process exit code and throws
// hs::Error for failures (main maps them to exit codes 2, 3, 4).

#include <string>
#include <vector>

#include "app_engines.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/timing.hpp"
#include "options.hpp"

namespace hs::cli {

struct Context {
    EngineRegistry& registry;
    const app::Engines& engines;  // the registry's origin: which engines run on the GPU
};

int run_info(const Context& ctx, const InfoCommand& cmd);
int run_hist(const Context& ctx, const HistCommand& cmd);
int run_scope(const Context& ctx, const ScopeCommand& cmd);
int run_kernels(const Context& ctx, const KernelsCommand& cmd);
int run_bench(const Context& ctx, const BenchCommand& cmd);
int run_equalize(const Context& ctx, const EqualizeCommand& cmd);

// The streaming forms: hist --per-frame (cmd_hist_frames.cpp), equalize of a video or raw
// stream (run_equalize_frames, in cmd_equalize.cpp), bench of a video or raw stream
// (cmd_bench_frames.cpp).
int run_hist_frames(const Context& ctx, const HistCommand& cmd);
int run_equalize_frames(const Context& ctx, const EqualizeCommand& cmd);
int run_bench_frames(const Context& ctx, const BenchCommand& cmd);

// Prints "KIND: TEXT" on standard error as one line: control characters in `text` (a newline
// in a file name or in a raw format) are written as escapes (\n, \t, \x1b), so that standard
// error holds nothing but whole error:, warning: and note: lines.
void diagnose(const char* kind, const std::string& text);

// Writes `text` to `path` ("" or "-" = standard output; a file is replaced atomically, see
// media::AtomicFile). Throws InputError when it cannot.
void write_output(const std::string& path, const std::string& text);

// Throws UsageError when -o `output` names one of the command's inputs (its files, --reference
// `reference`, or the file standard input comes from), also through links: writing it would
// destroy the input.
void refuse_output_onto_input(const InputOptions& input, const std::string& output,
                              const std::optional<std::string>& reference = std::nullopt);

}  // namespace hs::cli
