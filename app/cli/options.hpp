#pragma once
// The options of each command, typed. CommandLine (command_line.cpp) binds every field to its
// option with CLI11, which checks the value (ranges, choices, the syntax of a raw format, a
// region or a tile grid) while it parses, and shows the field's initial value in the help as the
// option's default: a default is written once, here (taken from core's own defaults where core
// has one), and the commands read fields, not option names.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/core/image.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/core/synthetic.hpp"
#include "histoscope/media/media.hpp"

namespace hs::cli {

// An option's value with its default, and whether the command line gave it: an option that
// applies to some modes only is refused in the others when given, whatever its value.
template <typename T>
struct Defaulted {
    T value;
    bool given = false;
};

// The input of every command but kernels: the files (FILE, or several for bench), or raw frames,
// and how photos and video are decoded.
struct InputOptions {
    std::vector<std::string> files;
    std::optional<media::RawFormat> raw;                  // --raw WxHxC:u8|u16[:DEPTH]|f32
    std::uint64_t max_pixels = media::kDefaultMaxPixels;  // --max-pixels
    bool allow_corrupt = false;                           // --allow-corrupt
    std::optional<media::CameraRawView> camera_raw;       // --camera-raw cfa|rgb

    media::DecodeOptions decode() const {
        media::DecodeOptions options;
        options.max_pixels = max_pixels;
        options.allow_corrupt = allow_corrupt;
        return options;
    }
};

// What a command writes: --format, and -o FILE ("": standard output, as "-"). Without
// --format, -o's extension names the format where the command writes it (.json, .csv, .txt,
// .png), once parsed (CommandLine).
struct OutputOptions {
    Defaulted<std::string> format;
    std::string path;
};

// The histogram spec of hist and bench; their defaults follow the image (even bins over
// [0, 2^depth), 256 of them, or 2^24 for the joint colour channel; a float image's stops over
// -16..+16 EV in eighths).
struct SpecOptions {
    std::optional<int> bins;  // --bins N
    // --range LO:HI, read exactly: whole numbers for 8-bit and 16-bit samples, any numbers or
    // fractions for a float image's linear bins.
    std::optional<std::pair<Rational, Rational>> range;
    std::optional<std::array<Rational, 3>> stops;  // --stops LO:HI:STEP, a float image's
    std::vector<double> edges;                     // --edges E0,E1,... (none: even)
    std::optional<std::uint64_t> saturate;         // --saturate N
    bool given() const { return bins || range || stops || !edges.empty() || saturate; }
};

// A scope's --levels, --columns, --size and --matrix (scope, bench --scope).
struct ScopeOptions {
    Defaulted<int> levels{ScopeSpec{}.levels};
    std::optional<int> columns;  // default: one per image column
    Defaulted<int> size{ScopeSpec{}.size};
    Defaulted<ChromaMatrix> matrix{ScopeSpec{}.matrix};
};

struct InfoCommand {
    InputOptions input;
    OutputOptions output{{"text"}, {}};
};

struct HistCommand {
    InputOptions input;
    Defaulted<std::int64_t> frame{0};
    std::optional<std::int64_t> frames;  // --per-frame: at most N
    std::string channels = "all";
    SpecOptions spec;
    std::string kernel = "cpu";
    bool stats = false;
    bool per_frame = false;
    std::optional<Region> roi;
    OutputOptions output{{"text"}, {}};
};

struct EqualizeCommand {
    InputOptions input;
    Defaulted<std::int64_t> frame{0};
    std::optional<std::int64_t> frames;  // a stream: at most N
    EqualizeMode mode = EqualizeRequest{}.mode;
    EqualizeSpace space = EqualizeRequest{}.space;
    double strength = EqualizeRequest{}.strength;
    Defaulted<double> clip{EqualizeRequest{}.clip};
    Defaulted<std::pair<int, int>> tiles{{EqualizeRequest{}.tiles_x, EqualizeRequest{}.tiles_y}};
    std::optional<std::string> reference;
    std::optional<media::RawFormat> reference_raw;
    std::int64_t reference_frame = 0;  // of a video or raw stream as --reference
    std::string kernel = "cpu";
    std::optional<int> depth;  // --depth 8|16: a float image's tone-mapped output
    Defaulted<int> repeat{1};
    bool timing = false;
    bool per_frame = false;
    OutputOptions output{{"text"}, {}};
};

struct ScopeCommand {
    InputOptions input;
    std::int64_t frame = 0;
    ScopeKind kind = ScopeSpec{}.kind;
    std::optional<std::string> channel;  // a waveform's; default luma, or gray for a gray image
    ScopeOptions scope;
    std::optional<Region> roi;
    std::string kernel = "auto";
    OutputOptions output{{"json"}, {}};
};

struct KernelsCommand {
    OutputOptions output{{"text"}, {}};
};

struct BenchCommand {
    InputOptions input;
    Defaulted<std::int64_t> frame{0};
    // --synthetic KIND: its kind and sigma; pixels, depth and channels from the options below.
    std::optional<SyntheticSpec> synthetic;
    std::uint64_t pixels = std::uint64_t{16} << 20;
    int depth = 8;
    int channels = 1;
    Defaulted<std::vector<std::string>> kernels{{"all"}};
    Defaulted<std::string> select{"all"};
    SpecOptions spec;
    Defaulted<int> runs{BenchOptions{}.timed_runs};
    Defaulted<int> warmup{BenchOptions{}.warmup_runs};
    std::optional<Region> roi;
    std::vector<ScopeKind> scopes;  // --scope KIND[,KIND...]
    ScopeOptions scope;
    // The stream benchmark's.
    bool stream = false;
    Defaulted<std::string> kernel{"auto"};
    bool no_equalize = false;
    Defaulted<int> loop{1};
    std::optional<std::int64_t> frames;
    std::optional<std::int64_t> verify_frames;  // default: every frame benchmarked
    Defaulted<int> depth_in_flight{StreamConfig{}.depth};
    OutputOptions output{{"table"}, {}};
};

// Every command's options; CommandLine fills those of the command it parsed.
struct Commands {
    InfoCommand info;
    HistCommand hist;
    EqualizeCommand equalize;
    ScopeCommand scope;
    KernelsCommand kernels;
    BenchCommand bench;
};

}  // namespace hs::cli
