#include "command_line.hpp"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>

#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/version.hpp"

namespace hs::cli {

namespace {

constexpr std::int64_t kMaxFrame = std::int64_t{1} << 40;

constexpr const char* kFooter =
    R"(exit codes: 0 ok, 2 usage (also: -o names an input), 3 input (unreadable, corrupt,
truncated, unsupported, too large, out of host memory), 4 device, 5 a benchmark result failed
verification)";

// Options and flags with a help line (CLI11 would read a std::string help as the variable to
// bind, so the line is set separately).
CLI::Option* option(CLI::App& c, const std::string& name, const std::string& help) {
    return c.add_option(name)->description(help);
}
CLI::Option* flag(CLI::App& c, const std::string& name, const std::string& help) {
    // A flag given twice is a usage error, as an option given twice is.
    return c.add_flag(name)->description(help)->multi_option_policy(CLI::MultiOptionPolicy::Throw);
}

CLI::Option* integer(CLI::App& c, const std::string& name, std::int64_t min, std::int64_t max,
                     const std::string& help) {
    return option(c, name, help)->check(CLI::Range(min, max))->type_name("N");
}

CLI::Option* choice(CLI::App& c, const std::string& name, std::vector<std::string> choices,
                    const std::string& help) {
    return option(c, name, help)->check(CLI::IsMember(std::move(choices)))->type_name("");
}

void output(CLI::App& c, std::vector<std::string> formats, const std::string& default_format) {
    choice(c, "--format", std::move(formats), "output format (default " + default_format + ")");
    option(c, "-o",
           "write to FILE (replaced atomically; never one of the inputs) instead of "
           "standard output")
        ->type_name("FILE");
}

// Photos and video; --raw reads raw frames from FILE or standard input.
void input(CLI::App& c) {
    option(c, "--raw",
           "the input is raw frames: width x height x channels, 8- or 16-bit samples, "
           "optional bit depth of 16-bit samples (e.g. 1920x1080x3:u16:12); FILE, or - "
           "for standard input")
        ->type_name("WxHxC:u8|u16[:DEPTH]");
    option(c, "--max-pixels",
           "refuse photos and video whose header declares more pixels per image or frame "
           "(default 1G = 2^30), checked before decoding")
        ->type_name("N[K|M|G]");
    flag(c, "--allow-corrupt",
         "use what a damaged file still gives (marked corrupt, with a note) instead of "
         "refusing it");
    choice(c, "--camera-raw", {"cfa", "rgb"},
           "a camera raw file (DNG, CR2, NEF, ...): cfa, its Bayer mosaic's photosites as 2x2 "
           "quads, channels r, g1, g2, b at the sensor's depth (default of info, hist and "
           "bench; rgb without a 2x2 mosaic), or rgb, LibRaw's linear 16-bit demosaic (the "
           "only view of equalize and scope)");
}

void frames(CLI::App& c) {
    integer(c, "--frame", 0, kMaxFrame, "the frame of a video or raw stream (default 0)");
    integer(c, "--frames", 1, kMaxFrame, "at most N frames of a stream");
}

void spec(CLI::App& c) {
    CLI::Option* bins = integer(c, "--bins", 1, kMaxBins,
                                "even bins (default 256; for the joint colour channel rgb, 2^24)");
    CLI::Option* range = option(c, "--range",
                                "integer range of the even bins, HI excluded (default "
                                "0:2^depth); of a float image any numbers or fractions "
                                "(0:1, -0.5:1/3)")
                             ->type_name("LO:HI");
    CLI::Option* stops = option(c, "--stops",
                                "a float image: bins of STEP stops (log2 of the value, 0 EV "
                                "at 1.0) over [LO, HI) EV (default -16:16:1/8)")
                             ->type_name("LO:HI:STEP")
                             ->excludes(bins)
                             ->excludes(range);
    option(c, "--edges", "explicit bin edges of any widths, increasing")
        ->type_name("E0,E1,...")
        ->excludes(bins)
        ->excludes(range)
        ->excludes(stops);
    integer(c, "--saturate", 1, INT64_MAX, "cap every count at N");
}

void region(CLI::App& c) {
    option(c, "--roi",
           "only the pixels of this rectangle: x,y from the top left, width, height (inside "
           "the image)")
        ->type_name("X,Y,W,H");
}

constexpr const char* kOneInput =
    "a photo, a camera raw file or a video (a file, - for standard input, or a pipe: read once, "
    "into memory), or with --raw a raw file (with --raw, - or none: standard input)";

constexpr const char* kChannels =
    "r, g, b, a, gray, luma (Rec.601), luma709, rgb (the joint colour histogram, alone) or all; "
    "comma-separated (of a float image luma709 is its luminance, and all adds it)";

}  // namespace

CommandLine::CommandLine()
    : app_(std::make_unique<CLI::App>(
          "histoscope-cli: exact histograms of photos, video and raw frames, contrast "
          "equalization, scopes, and benchmarks of the histogram and scope kernels",
          "histoscope-cli")) {
    CLI::App& app = *app_;
    app.set_version_flag("--version", "histoscope-cli " + std::string(kVersion));
    app.require_subcommand(1);
    app.footer(std::string(kFooter) + "\n\n'histoscope-cli COMMAND --help' shows one command.");
    // `files`: the help of the positional arguments ("" for none); `many`: more than one.
    auto command = [&](const std::string& name, const std::string& help, const std::string& files,
                       bool many = false) -> CLI::App& {
        CLI::App& c = *app.add_subcommand(name, help);
        // Unknown options are reported by parse() in our words.
        c.allow_extras();
        if (!files.empty()) {
            positional_.push_back(std::make_unique<std::vector<std::string>>());
            CLI::Option* file = c.add_option("FILE", *positional_.back())->description(files);
            file->type_name("");
            if (!many) file->expected(0, 1);
        }
        return c;
    };

    CLI::App& info = command(
        "info",
        "size, depth, channels and frames of a photo, video or raw input; a camera raw file's "
        "camera, exposure, CFA pattern, sensor depth and levels",
        kOneInput);
    input(info);
    output(info, {"text", "json"}, "text");

    CLI::App& hist =
        command("hist", "the histograms of a photo, a frame, or every frame", kOneInput);
    input(hist);
    frames(hist);
    option(hist, "--channels",
           std::string(kChannels) +
               " (default all); of a video also y, cb, cr: its coded Y'CbCr planes, chroma at "
               "its subsampled size; of a camera raw file's CFA mosaic r, g1, g2, b or all")
        ->type_name("LIST");
    spec(hist);
    option(hist, "--kernel", "the histogram engine (default cpu; see 'kernels')")
        ->type_name("NAME");
    flag(hist, "--stats", "mean, std, min, max, median, percentiles, clipped counts");
    flag(hist, "--per-frame", "one row per frame of a video or raw stream");
    region(hist);
    output(hist, {"text", "csv", "json"}, "text");

    CLI::App& equalize =
        command("equalize",
                "contrast equalization of a photo, a frame or a whole stream into -o OUT; a float "
                "(HDR) image is tone mapped to 8 or 16 bits",
                kOneInput);
    input(equalize);
    frames(equalize);
    choice(equalize, "--mode", {"global", "clahe", "match"},
           "global (default), clahe (tiled, clip-limited) or match (to --reference)");
    choice(equalize, "--space", {"luma", "rgb"},
           "equalize the luminance (default, hue kept) or each colour channel");
    option(equalize, "--strength", "blend of the result with the input, 0..1 (default 1)")
        ->type_name("S");
    option(equalize, "--clip", "clahe: clip limit, > 0 (default 2)")->type_name("C");
    option(equalize, "--tiles", "clahe: tiles across and down, or N for NxN (default 8x8)")
        ->type_name("WxH");
    CLI::Option* reference =
        option(equalize, "--reference",
               "match: the image whose histogram is matched (- for standard input)")
            ->type_name("REF");
    option(equalize, "--reference-raw", "match: --reference is raw, of this format")
        ->type_name("WxHxC:u8|u16[:DEPTH]")
        ->needs(reference);
    option(equalize, "--kernel",
           "the equalizer: cpu (default), gpu, or an equalizer 'kernels' lists")
        ->type_name("NAME");
    choice(equalize, "--depth", {"8", "16"},
           "a float image: the tone-mapped output's bits (default 16; 8 for .jpg, .bmp, .webp)");
    integer(equalize, "--repeat", 1, 1000, "equalize N times and report the median time");
    flag(equalize, "--timing", "report the time of each stage");
    flag(equalize, "--per-frame", "equalize every frame of a raw stream");
    output(equalize, {"text", "json"}, "text");

    CLI::App& scope = command(
        "scope", "the waveform, RGB parade or vectorscope of a photo or a frame", kOneInput);
    input(scope);
    integer(scope, "--frame", 0, kMaxFrame, "the frame of a video or raw stream (default 0)");
    choice(scope, "--kind", {"waveform", "parade", "vectorscope"},
           "waveform (default: one channel per column), parade (r, g, b side by side) or "
           "vectorscope (Cb, Cr)");
    option(scope, "--channel",
           "waveform: r, g, b, a, gray, luma (Rec.601) or luma709 (default luma, gray for a "
           "gray image)")
        ->type_name("C");
    integer(scope, "--levels", 1, kMaxScopeLevels, "waveform and parade: levels (default 256)");
    integer(scope, "--columns", 1, std::int64_t{1} << 20,
            "waveform and parade: columns, each the histogram of adjacent image columns "
            "(default: the image's width)");
    integer(scope, "--size", 1, kMaxScopeSize, "vectorscope: S x S bins (default 256)");
    choice(scope, "--matrix", {"601", "709"}, "vectorscope: Rec.601 (default) or Rec.709 chroma");
    region(scope);
    option(scope, "--kernel", "the scope engine: auto (default: the GPU's when it runs), cpu, gpu")
        ->type_name("NAME");
    output(scope, {"json", "csv", "png"},
           "json, or png when -o names a .png file; png: the scope drawn with log brightness");

    CLI::App& kernels =
        command("kernels", "the histogram engines and equalizers, and whether they run here", "");
    output(kernels, {"text", "json"}, "text");

    CLI::App& bench =
        command("bench",
                "median time per kernel, Gpix/s, GB/s, % of read bandwidth, end to end, verified "
                "against the CPU reference; a video or --stream: the frame pipeline",
                "photos or camera raw files, a video, or with --raw a raw file; each may be - for "
                "standard input, or a pipe "
                "(read once, into memory; with --raw, none: standard input)",
                true);
    input(bench);
    integer(bench, "--frame", 0, kMaxFrame,
            "benchmark this frame of a video or raw stream instead of the stream");
    CLI::Option* synthetic = option(bench, "--synthetic", "a synthetic input instead of files")
                                 ->type_name("uniform|degenerate|gauss:SIGMA|ramp");
    option(bench, "--pixels", "synthetic: pixels (default 16M)")
        ->type_name("N[K|M|G]")
        ->needs(synthetic);
    integer(bench, "--depth", 8, 16, "synthetic: bit depth (default 8)")->needs(synthetic);
    integer(bench, "--channels", 1, 4, "synthetic: channels, 1, 3 or 4 (default 1)")
        ->needs(synthetic);
    option(bench, "--kernels", "all (default) or a comma-separated list of engines")
        ->type_name("LIST");
    option(bench, "--select", std::string("the channels histogrammed: ") + kChannels)
        ->type_name("LIST");
    spec(bench);
    integer(bench, "--runs", 20, 100000, "timed runs per kernel (default 20)");
    integer(bench, "--warmup", 0, 100000, "untimed runs first (default 3)");
    region(bench);
    option(bench, "--scope",
           "waveform, parade or vectorscope: benchmark the scope engines on this scope instead "
           "of the histogram kernels (with --levels, --columns, --size, --matrix; a waveform "
           "shows the one channel --select names, or luma); a stream: the scopes "
           "(comma-separated) counted in every frame besides its histograms (a waveform of "
           "luma)")
        ->type_name("KIND[,KIND...]");
    integer(bench, "--levels", 1, kMaxScopeLevels, "scope: levels (default 256)");
    integer(bench, "--columns", 1, std::int64_t{1} << 20,
            "scope: columns of a waveform or parade (default: one per image column)");
    integer(bench, "--size", 1, kMaxScopeSize, "scope: vectorscope bins S x S (default 256)");
    choice(bench, "--matrix", {"601", "709"}, "scope: Rec.601 (default) or Rec.709 chroma");
    flag(bench, "--stream", "benchmark the frame pipeline on the input's frames");
    option(bench, "--kernel", "stream: the histogram engine (default auto)")->type_name("NAME");
    flag(bench, "--no-equalize", "stream: histograms only, no equalization");
    integer(bench, "--loop", 1, 1000000, "stream: read the input N times (default 1)");
    integer(bench, "--frames", 1, kMaxFrame, "stream: at most N frames");
    integer(bench, "--verify-frames", 1, kMaxFrame,
            "stream: check the first N frames against the CPU (default all)");
    integer(bench, "--depth-in-flight", 2, 16, "stream: frames in flight (default 3)");
    output(bench, {"table", "csv", "json"}, "table; a stream: table or json");
}

CommandLine::~CommandLine() = default;

std::string CommandLine::help() const {
    return app_->help("", CLI::AppFormatMode::All);
}

bool CommandLine::is_command(const std::string& name) const {
    for (const CLI::App* c : app_->get_subcommands([](const CLI::App*) { return true; }))
        if (c->get_name() == name) return true;
    return false;
}

CommandLine::Parsed CommandLine::parse(const std::vector<std::string>& arguments) {
    if (arguments.empty())
        throw UsageError(
            "no command: give one of info, hist, scope, equalize, kernels, bench (see "
            "--help)");
    const std::string& first = arguments.front();
    if (first.rfind('-', 0) != 0 && !is_command(first))
        throw UsageError("unknown command '" + first + "' (see --help)");
    if (first.rfind('-', 0) == 0 && first != "-h" && first != "--help" && first != "--version")
        throw UsageError("unknown option '" + first + "' before the command (see --help)");
    std::vector<std::string> reversed(arguments.rbegin(), arguments.rend());
    try {
        app_->parse(reversed);
    } catch (const CLI::CallForHelp&) {
        const auto parsed = app_->get_subcommands();
        std::cout << (parsed.empty() ? help() : parsed.front()->help());
        return {};
    } catch (const CLI::CallForAllHelp&) {
        std::cout << help();
        return {};
    } catch (const CLI::CallForVersion&) {
        std::cout << app_->version() << "\n";
        return {};
    } catch (const CLI::ArgumentMismatch& e) {
        // CLI11 says "--bins: At Most 1 required but received 2" for an option given twice.
        const std::string what = e.what();
        if (what.find("At Most 1 required") != std::string::npos) {
            // A positional "given twice" is often the value of an option the command does not
            // know, taken for a second input: name that option instead.
            if (what.rfind('-', 0) != 0 && is_command(first))
                if (const CLI::App* command = app_->get_subcommand(first))
                    for (const std::string& a : arguments) {
                        const std::string name = a.substr(0, a.find('='));
                        if (name.rfind("--", 0) == 0 && name.size() > 2 &&
                            command->get_option_no_throw(name) == nullptr)
                            throw UsageError("unknown option '" + name + "' (see 'histoscope-cli " +
                                             first + " --help')");
                    }
            throw UsageError("option " + what.substr(0, what.find(':')) + " is given twice");
        }
        throw UsageError(what);
    } catch (const CLI::ParseError& e) {
        throw UsageError(e.what());
    }
    const CLI::App& command = *app_->get_subcommands().front();
    for (const std::string& extra : command.remaining())
        throw UsageError((extra.rfind('-', 0) == 0 ? "unknown option '" : "unexpected argument '") +
                         extra + "' (see 'histoscope-cli " + command.get_name() + " --help')");
    return {command.get_name(), Args(command)};
}

}  // namespace hs::cli
