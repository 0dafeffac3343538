// histoscope-cli: histograms of photos, video frames and raw frames from the command line.
// Exit codes: 0 success, 2 usage error, 3 bad input, 4 device failure.

#include <cstdio>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/version.hpp"
#include "histoscope/media/media.hpp"
#ifdef HS_HAVE_CUDA
#include "histoscope/cuda/register.hpp"
#endif

namespace {

constexpr const char* kUsage = R"(usage: histoscope-cli <command> [options]
       histoscope-cli --help | --version

commands:
  info FILE | --raw WxHxC:u8|u16[:DEPTH] [FILE|-]
        size, depth, channels and frames of a photo, video or raw input
  hist FILE | --raw WxHxC:u8|u16[:DEPTH] [FILE|-]
        --channels r,g,b,a,gray,luma,luma709,rgb|all   (default all; rgb = joint colour)
        --bins N            even bins, 1..16777216 (default 256)
        --range LO:HI       integer range, HI excluded (default 0:2^depth)
        --edges e0,e1,...   explicit bin edges of any widths
        --saturate N        cap every count at N
        --kernel NAME       engine (default cpu; see 'kernels')
        --frame N           frame of a video or raw stream (default 0)
        --stats             mean, std, min, max, median, percentiles, clipped counts
        --format text|csv|json   -o FILE
  equalize FILE | --raw FMT [FILE|-]  -o OUT(.png|.tif|...|.raw)  [--mode global|clahe|match]
        [--space luma|rgb] [--strength S] [--clip C] [--tiles WxH] [--reference REF
        [--reference-raw FMT]] [--kernel cpu|gpu] [--repeat N] [--timing] [--format text|json]
  kernels [--format text|json]
        the histogram engines and whether they can run here
  info, hist, equalize and bench also take, for photos and video:
        --max-pixels N[K|M|G]  refuse files whose header declares more pixels per image or
                               frame (default 1G = 2^30), checked before decoding
        --allow-corrupt        use what a damaged file still gives (marked corrupt, with a
                               note) instead of refusing it
  bench FILE... | --raw FMT [FILE|-] | --synthetic uniform|degenerate|gauss:SIGMA|ramp
        [--pixels N[K|M|G]] [--depth 8|16] [--channels 1|3|4]   (synthetic input)
        [--kernels all|a,b,c] [--select CHANNELS] [--bins N] [--range LO:HI] [--edges ...]
        [--saturate N] [--runs N (>= 20)] [--warmup N] [--format table|csv|json] [-o FILE]
        median time per kernel, Gpix/s, GB/s, % of read bandwidth, end to end, verified

exit codes: 0 ok, 2 usage (also: -o names an input), 3 input (unreadable, corrupt, truncated,
unsupported, too large, out of host memory), 4 device, 5 a benchmark result failed
verification
)";

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
    const std::vector<std::string> all(argv + 1, argv + argc);
    if (!all.empty() && all[0] == "--version") {
        std::cout << "histoscope-cli " << hs::kVersion << "\n";
        return 0;
    }
    if (all.empty() || all[0] == "-h" || all[0] == "--help" || all[0] == "help") {
        std::fputs(kUsage, all.empty() ? stderr : stdout);
        return all.empty() ? 2 : 0;
    }
    try {
        hs::EngineRegistry registry;
        hs::register_core_engines(registry);
        hs::media::register_engines(registry);
#ifdef HS_HAVE_CUDA
        hs::cuda::register_engines(registry);
#endif
        const hs::cli::Context ctx{registry, {all.begin() + 1, all.end()}};
        const std::string& command = all[0];
        if (command == "info") return hs::cli::run_info(ctx);
        if (command == "hist") return hs::cli::run_hist(ctx);
        if (command == "kernels") return hs::cli::run_kernels(ctx);
        if (command == "equalize") return hs::cli::run_equalize(ctx);
        if (command == "bench") return hs::cli::run_bench(ctx);
        std::cerr << "error: unknown command '" << command << "' (try --help)\n";
        return 2;
    } catch (const hs::Error& e) {
        std::cerr << "error: " << e.what() << "\n";
        return exit_code(e.kind());
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of host memory\n";
        return 3;
    } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    }
}
