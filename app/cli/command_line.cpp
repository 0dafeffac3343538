#include "command_line.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <iostream>
#include <optional>
#include <system_error>
#include <tuple>

#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/core/version.hpp"
#include "option_checks.hpp"
#include "request_options.hpp"

namespace hs::cli {

namespace {

constexpr std::int64_t kMaxFrame = std::int64_t{1} << 40;

constexpr const char* kFooter =
    R"(exit codes: 0 ok, 2 usage (also: -o names an input), 3 input (unreadable, corrupt,
truncated, unsupported, too large, out of host memory), 4 device, 5 a benchmark result failed
verification)";

// "16M" for 16 * 2^20: a count as --pixels and --max-pixels take it.
std::string count_text(std::uint64_t n) {
    for (const auto& [shift, suffix] : {std::pair{30, "G"}, std::pair{20, "M"}, std::pair{10, "K"}})
        if (n % (std::uint64_t{1} << shift) == 0) return std::to_string(n >> shift) + suffix;
    return std::to_string(n);
}

// --tiles: "8x8", or "8" for a square grid; 1 to 64 tiles each way.
std::pair<int, int> parse_tiles(const std::string& text) {
    const auto x = text.find('x');
    const std::string across = text.substr(0, x);
    const std::string down = x == std::string::npos ? across : text.substr(x + 1);
    int w = 0, h = 0;
    const auto whole = [](const std::string& digits, int& n) {
        const char* end = digits.data() + digits.size();
        const auto [ptr, ec] = std::from_chars(digits.data(), end, n);
        return !digits.empty() && ec == std::errc() && ptr == end && n >= 1 && n <= 64;
    };
    if (!whole(across, w) || !whole(down, h))
        throw UsageError("expects WxH or N tiles, 1 to 64 each way (e.g. 8x8), not '" + text + "'");
    return {w, h};
}

template <typename T>
constexpr bool kIsDefaulted = false;
template <typename T>
constexpr bool kIsDefaulted<Defaulted<T>> = true;
template <typename T>
constexpr bool kIsOptional = false;
template <typename T>
constexpr bool kIsOptional<std::optional<T>> = true;

// The options of one command, each bound to its field. A value's default is the field's value
// before parsing, shown in the help; CLI11 checks a value before it lands in its field.
class Declare {
  public:
    using Outputs = std::vector<
        std::tuple<std::string, OutputOptions*, std::vector<std::string>, const InputOptions*>>;
    Declare(CLI::App& command, std::vector<std::pair<const CLI::Option*, bool*>>& given,
            std::vector<const CLI::Option*>& lists, Outputs& outputs)
        : c_(command), given_(given), lists_(lists), outputs_(outputs) {}

    template <typename T>
    CLI::Option* value(const std::string& name, T& field, const std::string& help) {
        return c_.add_option(name, field, help)->capture_default_str();
    }
    template <typename T>
    CLI::Option* value(const std::string& name, std::optional<T>& field, const std::string& help) {
        return c_.add_option(name, field, help);  // no default: the help says what stands for it
    }
    template <typename T>
    CLI::Option* value(const std::string& name, Defaulted<T>& field, const std::string& help) {
        return track(value(name, field.value, help), field);
    }

    // A whole number in [min, max].
    template <typename T>
    CLI::Option* integer(const std::string& name, T& field, std::int64_t min, std::int64_t max,
                         const std::string& help) {
        return value(name, field, help)->check(check::integer(min, max))->type_name("N");
    }

    // A flag: none, or a boolean value (--stats=false); given twice is an error, as an option
    // given twice is.
    CLI::Option* flag(const std::string& name, bool& field, const std::string& help) {
        return c_.add_flag(name, field, help)
            ->multi_option_policy(CLI::MultiOptionPolicy::Throw)
            ->check(check::flag_value());
    }

    // One of `values`, by the names `name_of` gives them (names of `what`, for messages).
    template <typename Field, typename T, typename NameOf>
    CLI::Option* choice(const std::string& name, Field& field, std::initializer_list<T> values,
                        NameOf name_of, const std::string& what, const std::string& help) {
        if constexpr (kIsDefaulted<Field>) {
            return track(choice(name, field.value, values, name_of, what, help), field);
        } else {
            const std::vector<T> all(values);
            CLI::Option* o = c_.add_option_function<std::string>(
                                   name,
                                   [&field, all, name_of](const std::string& text) {
                                       for (const T& v : all)
                                           if (name_of(v) == text) field = v;
                                   },
                                   help)
                                 ->check(check::one_of(names_of(all, name_of), what))
                                 ->type_name("");
            if constexpr (!kIsOptional<Field>) o->default_str(std::string(name_of(field)));
            return o;
        }
    }
    // One of `names`, kept as the name.
    CLI::Option* choice(const std::string& name, Defaulted<std::string>& field,
                        const std::vector<std::string>& names, const std::string& what,
                        const std::string& help) {
        return value(name, field, help)->check(check::one_of(names, what))->type_name("");
    }

    // Values split at commas (a list is given once, as a value is).
    template <typename T>
    CLI::Option* list(const std::string& name, T& field, const std::string& help) {
        CLI::Option* o = value(name, field, help)
                             ->delimiter(',')
                             ->expected(1)
                             ->allow_extra_args(false)
                             ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        lists_.push_back(o);
        return o;
    }
    // Names split at commas, each one of `values`' (`name_of`: the names of `what`), each once.
    template <typename T, typename NameOf>
    CLI::Option* choices(const std::string& name, std::vector<T>& field,
                         std::initializer_list<T> values, NameOf name_of, const std::string& what,
                         const std::string& help) {
        CLI::Option* o =
            c_.add_option_function<std::vector<std::string>>(
                  name,
                  [name, &field, values = std::vector<T>(values),
                   name_of](const std::vector<std::string>& items) {
                      field.clear();
                      for (const std::string& item : items) {
                          const auto v =
                              std::find_if(values.begin(), values.end(),
                                           [&](const T& x) { return name_of(x) == item; });
                          if (std::find(field.begin(), field.end(), *v) != field.end())
                              throw CLI::ValidationError(name, "names " + item + " twice");
                          field.push_back(*v);
                      }
                  },
                  help)
                ->delimiter(',')
                ->expected(1)
                ->allow_extra_args(false)
                ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
                ->check(check::one_of(names_of(std::vector<T>(values), name_of), what));
        lists_.push_back(o);
        return o;
    }

    // A value with a syntax of its own (a raw format, a region, a tile grid), read by `parse`,
    // a domain parser that throws UsageError: its message becomes the option's error.
    template <typename T, typename Parse>
    CLI::Option* parsed(const std::string& name, T& field, Parse parse, const std::string& type,
                        const std::string& help) {
        return c_
            .add_option_function<std::string>(
                name,
                [name, &field, parse](const std::string& text) {
                    try {
                        field = parse(text);
                    } catch (const UsageError& e) {
                        // Named once: some parsers' messages name the option already.
                        const std::string what = e.what();
                        if (what.rfind(name + " ", 0) == 0) throw CLI::ValidationError(what);
                        throw CLI::ValidationError(name, what);
                    }
                },
                help)
            ->type_name(type);
    }
    template <typename T, typename Parse>
    CLI::Option* parsed(const std::string& name, Defaulted<T>& field, Parse parse,
                        const std::string& type, const std::string& help) {
        return track(parsed(name, field.value, parse, type, help), field);
    }

    // --format and -o. `by_name`: -o's extension names the format (.json, .csv, .txt, .png)
    // unless --format does; false where -o is no output of --format (equalize's picture).
    // `input`: the command's inputs, which -o may not name.
    CLI::Option* output(OutputOptions& out, const std::vector<std::string>& formats,
                        const std::string& format_help, const InputOptions* input,
                        bool by_name = true) {
        choice("--format", out.format, formats, "format", format_help);
        if (by_name) outputs_.emplace_back(c_.get_name(), &out, formats, input);
        return c_
            .add_option("-o", out.path,
                        "write to FILE (replaced atomically; never one of the inputs) instead of "
                        "standard output")
            ->check(check::output_path())
            ->type_name("FILE");
    }

  private:
    template <typename T>
    CLI::Option* track(CLI::Option* option, Defaulted<T>& field) {
        given_.emplace_back(option, &field.given);
        return option;
    }
    template <typename T, typename NameOf>
    static std::vector<std::string> names_of(const std::vector<T>& values, NameOf name_of) {
        std::vector<std::string> names;
        for (const T& v : values) names.emplace_back(name_of(v));
        return names;
    }

    CLI::App& c_;
    std::vector<std::pair<const CLI::Option*, bool*>>& given_;
    std::vector<const CLI::Option*>& lists_;
    Outputs& outputs_;
};

// The format -o's extension names (any case), or "" for another extension or none: ".json",
// ".csv", ".txt" (the text of `formats`: "text", or bench's "table"), ".png", and the other
// pictures by their extensions ("jpg", "tif", ...), which no text format is.
std::string format_named(const std::string& path, const std::vector<std::string>& formats) {
    std::string ext = std::filesystem::path(path).extension().string();
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext == ".txt")
        return std::find(formats.begin(), formats.end(), "table") != formats.end() ? "table"
                                                                                   : "text";
    for (const char* known : {".json", ".csv", ".png", ".jpg", ".jpeg", ".tif", ".tiff", ".bmp",
                              ".webp", ".ppm", ".pgm", ".pnm"})
        if (ext == known) return ext.substr(1);
    return {};
}

// The extension of each format, for the names a message offers.
std::string extension_of(const std::string& format) {
    return format == "text" || format == "table" ? ".txt" : "." + format;
}

// Without --format, the format -o's extension names; an extension that names another format
// than --format, or one the command does not write, is a usage error. -o without such an
// extension (none, "-", a device, ".dat") leaves --format or its default.
void settle_format(const std::string& command, OutputOptions& out,
                   const std::vector<std::string>& formats) {
    const std::string& path = out.path;
    if (path.empty() || path == "-") return;
    const std::string named = format_named(path, formats);
    if (named.empty()) return;
    const auto renamed = [&](const std::string& format) {
        return std::filesystem::path(path).replace_extension(extension_of(format)).string();
    };
    if (std::find(formats.begin(), formats.end(), named) == formats.end()) {
        std::string offered;
        for (std::size_t i = 0; i < formats.size(); ++i)
            offered += (i == 0                    ? ""
                        : i + 1 == formats.size() ? " or "
                                                  : ", ") +
                       renamed(formats[i]);
        throw UsageError("-o " + path + " names a " + named + " file, which " + command +
                         " does not write: name it " + offered);
    }
    if (!out.format.given) {
        out.format.value = named;
    } else if (out.format.value != named) {
        throw UsageError("-o " + path + " names a " + named + " file, but --format " +
                         out.format.value + " was asked: name it " + renamed(out.format.value) +
                         " (or leave --format out)");
    }
}

// Photos and video; --raw reads raw frames from FILE or standard input.
void input(Declare& d, InputOptions& in) {
    d.parsed("--raw", in.raw, media::parse_raw_format, "WxHxC:u8|u16[:DEPTH]|f32",
             "the input is raw frames: width x height x channels, 8- or 16-bit samples, optional "
             "bit depth of 16-bit samples (e.g. 1920x1080x3:u16:12); FILE, or - for standard "
             "input");
    d.value("--max-pixels", in.max_pixels,
            "refuse photos and video whose header declares more pixels per image or frame "
            "(K, M, G: times 2^10, 2^20, 2^30), checked before decoding")
        ->transform(check::count())
        ->type_name("N[K|M|G]")
        ->default_str(count_text(in.max_pixels));
    d.flag("--allow-corrupt", in.allow_corrupt,
           "use what a damaged file still gives (marked corrupt, with a note) instead of "
           "refusing it");
    d.choice(
        "--camera-raw", in.camera_raw, {media::CameraRawView::Cfa, media::CameraRawView::Rgb},
        [](media::CameraRawView view) { return media::to_string(view); }, "view",
        "a camera raw file (DNG, CR2, NEF, ...): cfa, its Bayer mosaic's photosites as 2x2 "
        "quads, channels r, g1, g2, b at the sensor's depth (default of info, hist and "
        "bench; rgb without a 2x2 mosaic), or rgb, LibRaw's linear 16-bit demosaic (the "
        "only view of equalize and scope)");
}

void spec(Declare& d, SpecOptions& s) {
    CLI::Option* bins =
        d.integer("--bins", s.bins, 1, kMaxBins,
                  "even bins, at most one per code value (default 256, or the code values of "
                  "a narrower --range; for the joint colour channel rgb, 2^24)");
    CLI::Option* range = d.parsed("--range", s.range, parse_range, "LO:HI",
                                  "integer range of the even bins, HI excluded (default "
                                  "0:2^depth); of a float image any numbers or fractions "
                                  "(0:1, -0.5:1/3)");
    CLI::Option* stops = d.parsed("--stops", s.stops, parse_stops, "LO:HI:STEP",
                                  "a float image: bins of STEP stops (log2 of the value, 0 EV "
                                  "at 1.0) over [LO, HI) EV (default -16:16:1/8)")
                             ->excludes(bins)
                             ->excludes(range);
    d.list("--edges", s.edges, "explicit bin edges of any widths, increasing")
        ->check(check::finite_number())
        ->default_str("")  // none: even bins
        ->type_name("E0,E1,...")
        ->excludes(bins)
        ->excludes(range)
        ->excludes(stops);
    d.integer("--saturate", s.saturate, 1, INT64_MAX, "cap every count at N");
}

void region(Declare& d, std::optional<Region>& roi) {
    d.parsed("--roi", roi, parse_region, "X,Y,W,H",
             "only the pixels of this rectangle: x,y from the top left, width, height (inside "
             "the image)");
}

// --levels, --columns, --size, --matrix, with the help each command gives them.
void scope_shape(Declare& d, ScopeOptions& s, const std::string (&help)[4]) {
    d.integer("--levels", s.levels, 1, kMaxScopeLevels, help[0]);
    d.integer("--columns", s.columns, 1, std::int64_t{1} << 20, help[1]);
    d.integer("--size", s.size, 1, kMaxScopeSize, help[2]);
    d.choice("--matrix", s.matrix, {ChromaMatrix::Rec601, ChromaMatrix::Rec709}, matrix_name,
             "matrix", help[3]);
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
    const auto command = [&](const std::string& name, const std::string& help,
                             std::vector<std::string>* files, const std::string& files_help,
                             bool many = false) {
        CLI::App& c = *app.add_subcommand(name, help);
        // Unknown options are reported by parse() in our words.
        c.allow_extras();
        if (files != nullptr) {
            CLI::Option* file = c.add_option("FILE", *files, files_help)->type_name("");
            if (!many) file->expected(0, 1);
        }
        return Declare(c, given_, lists_, outputs_);
    };
    Commands& o = commands_;

    Declare info = command(
        "info",
        "size, depth, channels and frames of a photo, video or raw input; a camera raw file's "
        "camera, exposure, CFA pattern, sensor depth and levels",
        &o.info.input.files, kOneInput);
    input(info, o.info.input);
    info.output(o.info.output, {"text", "json"},
                "output format (without it, what -o's extension names: .txt, .json)",
                &o.info.input);

    HistCommand& h = o.hist;
    Declare hist = command("hist", "the histograms of a photo, a frame, or every frame",
                           &h.input.files, kOneInput);
    input(hist, h.input);
    hist.integer("--frame", h.frame, 0, kMaxFrame, "the frame of a video or raw stream");
    hist.integer("--frames", h.frames, 1, kMaxFrame, "at most N frames of a stream");
    hist.value("--channels", h.channels,
               std::string(kChannels) +
                   "; of a video also y, cb, cr: its coded Y'CbCr planes, chroma at its "
                   "subsampled size; of a camera raw file's CFA mosaic r, g1, g2, b or all")
        ->type_name("LIST");
    spec(hist, h.spec);
    hist.value("--kernel", h.kernel, "the histogram engine (see 'kernels')")->type_name("NAME");
    hist.flag("--stats", h.stats, "mean, std, min, max, median, percentiles, clipped counts");
    hist.flag("--per-frame", h.per_frame, "one row per frame of a video or raw stream");
    region(hist, h.roi);
    hist.output(h.output, {"text", "csv", "json"},
                "output format (without it, what -o's extension names: .txt, .csv, .json)",
                &h.input);

    EqualizeCommand& e = o.equalize;
    Declare equalize = command("equalize",
                               "contrast equalization of a photo, a frame or a whole stream into "
                               "-o OUT; a float (HDR) image is tone mapped to 8 or 16 bits",
                               &e.input.files, kOneInput);
    input(equalize, e.input);
    equalize.integer("--frame", e.frame, 0, kMaxFrame, "the frame of a video or raw stream");
    equalize.integer("--frames", e.frames, 1, kMaxFrame, "at most N frames of a stream");
    equalize.choice("--mode", e.mode,
                    {EqualizeMode::Global, EqualizeMode::Clahe, EqualizeMode::Match}, mode_name,
                    "mode", "global, clahe (tiled, clip-limited) or match (to --reference)");
    equalize.choice("--space", e.space, {EqualizeSpace::Luma, EqualizeSpace::Rgb}, space_name,
                    "space", "equalize the luminance (hue kept) or each colour channel");
    equalize.value("--strength", e.strength, "blend of the result with the input")
        ->check(check::number(0.0, 1.0))
        ->type_name("S");
    equalize.value("--clip", e.clip, "clahe: clip limit")
        ->check(check::number(0.0, 65536.0, true))
        ->type_name("C");
    equalize
        .parsed("--tiles", e.tiles, parse_tiles, "WxH",
                "clahe: tiles across and down (1 to 64 each), or N for NxN")
        ->default_str(std::to_string(e.tiles.value.first) + "x" +
                      std::to_string(e.tiles.value.second));
    CLI::Option* reference =
        equalize
            .value("--reference", e.reference,
                   "match: the photo, video frame, raw frame or camera raw file whose histogram "
                   "is matched, of any depth (- for standard input)")
            ->type_name("REF");
    equalize
        .parsed("--reference-raw", e.reference_raw, media::parse_raw_format,
                "WxHxC:u8|u16[:DEPTH]|f32", "match: --reference is raw, of this format")
        ->needs(reference);
    equalize
        .integer("--reference-frame", e.reference_frame, 0, kMaxFrame,
                 "match: the frame of a video or raw stream given as --reference")
        ->needs(reference);
    equalize
        .value("--kernel", e.kernel, "the equalizer: cpu, gpu, or an equalizer 'kernels' lists")
        ->type_name("NAME");
    equalize.choice(
        "--depth", e.depth, {8, 16}, [](int bits) { return std::to_string(bits); }, "depth",
        "a float image: the tone-mapped output's bits (default 16; 8 for .jpg, .bmp, .webp)");
    equalize.integer("--repeat", e.repeat, 1, 1000, "equalize N times and report the median time");
    equalize.flag("--timing", e.timing, "report the time of each stage");
    equalize.flag("--per-frame", e.per_frame, "equalize every frame of a raw stream");
    equalize.output(e.output, {"text", "json"}, "output format", &e.input, false);

    ScopeCommand& s = o.scope;
    Declare scope =
        command("scope", "the waveform, RGB parade or vectorscope of a photo or a frame",
                &s.input.files, kOneInput);
    input(scope, s.input);
    scope.integer("--frame", s.frame, 0, kMaxFrame, "the frame of a video or raw stream");
    scope.choice("--kind", s.kind, {ScopeKind::Waveform, ScopeKind::Parade, ScopeKind::Vectorscope},
                 scope_kind_name, "scope",
                 "waveform (one channel per column), parade (r, g, b side by side) or "
                 "vectorscope (Cb, Cr)");
    scope
        .value("--channel", s.channel,
               "waveform: r, g, b, a, gray, luma (Rec.601) or luma709 (default luma, gray for a "
               "gray image); of a video also y, cb or cr: its coded Y'CbCr plane")
        ->type_name("C");
    scope_shape(scope, s.scope,
                {"waveform and parade: levels",
                 "waveform and parade: columns, each the histogram of adjacent image columns "
                 "(default: the image's width)",
                 "vectorscope: S x S bins", "vectorscope: Rec.601 or Rec.709 chroma"});
    region(scope, s.roi);
    scope.value("--kernel", s.kernel, "the scope engine: auto (the GPU's when it runs), cpu, gpu")
        ->type_name("NAME");
    scope.output(s.output, {"json", "csv", "png"},
                 "json, csv, or png: the scope drawn with log brightness (without it, what -o's "
                 "extension names: .json, .csv, .png)",
                 &s.input);

    Declare kernels = command(
        "kernels", "the histogram engines and equalizers, and whether they run here", nullptr, "");
    kernels.output(o.kernels.output, {"text", "json"},
                   "output format (without it, what -o's extension names: .txt, .json)", nullptr);

    BenchCommand& b = o.bench;
    Declare bench =
        command("bench",
                "median time per kernel, Gpix/s, GB/s, % of read bandwidth, end to end, verified "
                "against the CPU reference; a video or --stream: the frame pipeline",
                &b.input.files,
                "photos or camera raw files, a video, or with --raw a raw file; each may be - for "
                "standard input, or a pipe "
                "(read once, into memory; with --raw, none: standard input)",
                true);
    input(bench, b.input);
    bench.integer("--frame", b.frame, 0, kMaxFrame,
                  "benchmark this frame of a video or raw stream instead of the stream");
    CLI::Option* synthetic = bench.parsed(
        "--synthetic", b.synthetic,
        [](const std::string& text) {
            SyntheticSpec spec;
            spec.kind = SyntheticSpec::parse_kind(text, spec.sigma);
            return spec;
        },
        "uniform|degenerate|gauss:SIGMA|ramp", "a synthetic input instead of files");
    bench.value("--pixels", b.pixels, "synthetic: pixels (K, M, G: times 2^10, 2^20, 2^30)")
        ->transform(check::count())
        ->type_name("N[K|M|G]")
        ->default_str(count_text(b.pixels))
        ->needs(synthetic);
    bench.integer("--depth", b.depth, 8, 16, "synthetic: bit depth")->needs(synthetic);
    bench
        .choice(
            "--channels", b.channels, {1, 3, 4}, [](int n) { return std::to_string(n); },
            "channel count", "synthetic: channels")
        ->needs(synthetic);
    bench.list("--kernels", b.kernels, "all, or a comma-separated list of engines")
        ->type_name("LIST");
    bench.value("--select", b.select, std::string("the channels histogrammed: ") + kChannels)
        ->type_name("LIST");
    spec(bench, b.spec);
    bench.integer("--runs", b.runs, 20, 100000, "timed runs per kernel");
    bench.integer("--warmup", b.warmup, 0, 100000, "untimed runs first");
    region(bench, b.roi);
    bench
        .choices("--scope", b.scopes,
                 {ScopeKind::Waveform, ScopeKind::Parade, ScopeKind::Vectorscope}, scope_kind_name,
                 "scope",
                 "waveform, parade or vectorscope: benchmark the scope engines on this scope "
                 "instead of the histogram kernels (with --levels, --columns, --size, --matrix; a "
                 "waveform shows the one channel --select names, or luma); a stream: the scopes "
                 "(comma-separated) counted in every frame besides its histograms (a waveform of "
                 "luma)")
        ->type_name("KIND[,KIND...]");
    scope_shape(
        bench, b.scope,
        {"scope: levels", "scope: columns of a waveform or parade (default: one per image column)",
         "scope: vectorscope bins S x S", "scope: Rec.601 or Rec.709 chroma"});
    bench.flag("--stream", b.stream, "benchmark the frame pipeline on the input's frames");
    bench.value("--kernel", b.kernel, "stream: the histogram engine")->type_name("NAME");
    bench.flag("--no-equalize", b.no_equalize, "stream: histograms only, no equalization");
    bench.integer("--loop", b.loop, 1, 1000000, "stream: read the input N times");
    bench.integer("--frames", b.frames, 1, kMaxFrame, "stream: at most N frames");
    bench.integer("--verify-frames", b.verify_frames, 1, kMaxFrame,
                  "stream: check the first N frames against the CPU (default all)");
    bench.integer("--depth-in-flight", b.depth_in_flight, 2, 16, "stream: frames in flight");
    bench.output(b.output, {"table", "csv", "json"},
                 "output format, a stream's table or json (without it, what -o's extension "
                 "names: .txt, .csv, .json)",
                 &b.input);
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

std::string CommandLine::parse(const std::vector<std::string>& arguments) {
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
        // "--range: 2 required LO:HI missing": a value, or a part of one, is missing.
        const std::string required = " required ", missing = " missing";
        const auto at = what.find(required);
        if (at != std::string::npos && what.size() >= at + required.size() + missing.size() &&
            what.compare(what.size() - missing.size(), missing.size(), missing) == 0) {
            const std::string type = what.substr(
                at + required.size(), what.size() - missing.size() - at - required.size());
            throw UsageError(what.substr(0, what.find(':')) + " expects " +
                             (type.empty() ? std::string("a value") : type));
        }
        throw UsageError(what);
    } catch (const CLI::ParseError& e) {
        throw UsageError(e.what());
    }
    const CLI::App& command = *app_->get_subcommands().front();
    for (const std::string& extra : command.remaining())
        throw UsageError((extra.rfind('-', 0) == 0 ? "unknown option '" : "unexpected argument '") +
                         extra + "' (see 'histoscope-cli " + command.get_name() + " --help')");
    // A list takes its values at once ("--edges 0,10,20"): CLI11 would join two of them.
    const auto& order = command.parse_order();
    for (const CLI::Option* list : lists_)
        if (std::count(order.begin(), order.end(), list) > 1)
            throw UsageError("option " + list->get_name() + " is given twice");
    for (const auto& [option, given] : given_) *given = option->count() > 0;
    for (const auto& [name, output, formats, inputs] : outputs_) {
        if (name != command.get_name()) continue;
        // An -o that is one of the inputs is said as such, whatever its extension names.
        if (inputs) refuse_output_onto_input(*inputs, output->path);
        settle_format(name, *output, formats);
    }
    return command.get_name();
}

}  // namespace hs::cli
