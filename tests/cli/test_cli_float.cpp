// Float (HDR) images through the real histoscope-cli: OpenEXR files written by OpenEXR's library,
// PFM and float TIFF files written by numpy and tifffile (tests/support/float_reference.py).
// hist's counts, outside counts and edges against numpy's and Python's exact integers, its
// statistics against core's; info; equalize's tone mapping into 8- and 16-bit files; bench; and
// every hostile file and absurd option giving one error line with its exit code.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "app_engines.hpp"
#include "cli_helpers.hpp"
#include "damaged_media.hpp"
#include "exr_writer.hpp"
#include "histoscope/core/stats.hpp"
#include "histoscope/core/stream.hpp"
#include "histoscope/core/tonemap.hpp"

using namespace hs;
using hs::test::expect_refused;
using hs::test::parse_json;
using hs::test::quote;
using hs::test::run_cli;
using hs::test::Scratch;

namespace {

std::string python(const std::string& args) {
    const hs::test::CommandResult r =
        hs::test::run_command(std::string(HS_TEST_PYTHON) + " " + HS_FLOAT_REFERENCE + " " + args);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
    return r.out;
}

float scene(int x, int y, int c) {
    if (x == 1 && y == 1) return std::numeric_limits<float>::quiet_NaN();
    if (x == 2 && y == 1) return std::numeric_limits<float>::infinity();
    if (x == 3 && y == 1) return -0.5f;
    const double ev = -14.0 + 28.0 * x / 63.0 + 0.25 * (y % 5);
    return static_cast<float>(std::exp2(ev) * (0.6 + 0.2 * c));
}

// hist's JSON of `file` with `options`, its channels against numpy's ("hist") with the Python
// spec `python_spec` (e.g. "stops -16 16 1/8"), and its spec's edges against Python's.
void expect_as_numpy(const std::filesystem::path& file, const std::string& options,
                     const std::string& python_spec, const std::string& channels) {
    const auto r = run_cli("hist " + quote(file) + " " + options + " --channels " + channels +
                           " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto ours = parse_json(r.out);
    const auto theirs =
        parse_json(python("hist " + quote(file) + " " + python_spec + " " + channels));
    ASSERT_EQ(ours.at("channels").size(), theirs.at("channels").size());
    for (std::size_t k = 0; k < ours.at("channels").size(); ++k) {
        const auto& a = ours.at("channels")[k];
        const auto& b = theirs.at("channels")[k];
        EXPECT_EQ(a.at("name"), b.at("name"));
        EXPECT_EQ(a.at("counts"), b.at("counts")) << file << " " << options << " " << a.at("name");
        for (const char* f : {"below_range", "above_range", "non_finite"})
            EXPECT_EQ(a.at(f), b.at(f)) << file << " " << f;
    }
    // The edges as fp32 bit patterns against Python's exact ones.
    std::istringstream bits(python("edges " + python_spec));
    std::string hex;
    std::size_t i = 0;
    const auto& edges = ours.at("spec").at("edges");
    while (bits >> hex) {
        ASSERT_LT(i, edges.size());
        const auto f = static_cast<float>(edges[i++].get<double>());
        std::uint32_t u;
        std::memcpy(&u, &f, 4);
        EXPECT_EQ(u, static_cast<std::uint32_t>(std::stoul(hex, nullptr, 16))) << i;
    }
    EXPECT_EQ(i, edges.size());
}

}  // namespace

TEST(CliFloat, HistogramsOfPfmTiffAndExrEqualNumpys) {
    Scratch dir("cli-float");
    const auto pfm = dir.path / "a.pfm", tif = dir.path / "b.tif", gray = dir.path / "c.pfm";
    python("write-pfm " + quote(pfm) + " 131 67 3 little 31");
    python("write-tiff " + quote(tif) + " 77 45 4 32 zlib tiled");
    python("write-pfm " + quote(gray) + " 40 40 1 big 33");
    for (const auto& f : {pfm, tif}) {
        expect_as_numpy(f, "", "stops -16 16 1/8", "luma709,r,g,b");
        expect_as_numpy(f, "--stops -6:10:1/3", "stops -6 10 1/3", "luma709");
        expect_as_numpy(f, "--range 0:1 --bins 100", "linear 0 1 100", "r,g");
        expect_as_numpy(f, "--range -1/3:2.5 --bins 7", "linear -1/3 5/2 7", "b,luma709");
        expect_as_numpy(f, "--bins 64", "stops -16 16 1/2", "g");
    }
    expect_as_numpy(tif, "", "stops -16 16 1/8", "a");
    expect_as_numpy(gray, "", "stops -16 16 1/8", "gray");
}

TEST(CliFloat, HistJsonTextCsvAndStatistics) {
    Scratch dir("cli-float-json");
    const auto exr = dir.path / "scene.exr";
    hs::test::ExrSpec spec;
    spec.width = 64;
    spec.height = 20;
    spec.type = Imf::FLOAT;
    hs::test::write_exr(exr.string(), spec, scene);
    const auto r = run_cli("hist " + quote(exr) + " --stats --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("sample_type"), "f32");
    EXPECT_EQ(j.at("depth"), 32);
    EXPECT_EQ(j.at("format"), "OpenEXR");
    EXPECT_EQ(j.at("spec").at("scale"), "stops");
    EXPECT_EQ(j.at("spec").at("stops"), hs::cli::Json::array({-16.0, 16.0}));
    EXPECT_EQ(j.at("spec").at("step"), 0.125);
    EXPECT_EQ(j.at("spec").at("bins"), 256);
    EXPECT_EQ(j.at("spec").at("edges").size(), 257u);
    std::vector<std::string> names;
    for (const auto& c : j.at("channels")) names.push_back(c.at("name"));
    EXPECT_EQ(names, (std::vector<std::string>{"r", "g", "b", "luma709"}));
    // The NaN and the infinity in no bin, and said in a note; -0.5 below the stops.
    const auto& luma = j.at("channels")[3];
    EXPECT_EQ(luma.at("non_finite"), 2);
    EXPECT_EQ(luma.at("below_range"), 1);
    EXPECT_EQ(luma.at("total").get<std::uint64_t>() + 3, 64u * 20u);
    EXPECT_NE(r.err.find("note: 3 samples are NaN and 3 samples are infinite: the histograms count "
                         "them apart, as non-finite"),
              std::string::npos)
        << r.err;
    // Statistics as core computes them, from the same samples.
    Image img(64, 20, 3, SampleType::F32);
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 64; ++x)
            for (int c = 0; c < 3; ++c) img.set_sample_f32(x, y, c, scene(x, y, c));
    const FloatStats s = compute_float_stats(img.view(), Channel::Luma709,
                                             HistogramSpec::floating(FloatBins::default_stops()));
    const auto& st = luma.at("stats");
    EXPECT_EQ(st.at("count"), s.count);
    EXPECT_EQ(st.at("non_finite"), 2);
    EXPECT_EQ(static_cast<float>(st.at("median").get<double>()), s.median);
    EXPECT_EQ(static_cast<float>(st.at("min").get<double>()), s.min);
    EXPECT_EQ(st.at("mean").get<double>(), s.mean);
    // Text and CSV: the fp32 edges in the rows, the samples outside in comment lines.
    const auto text = run_cli("hist " + quote(exr) + " --channels luma709 --stops 0:2:1");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("# kernel cpu, 2 bins of 1 stop over [0, 2) EV"), std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("# outside luma709: below_range="), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("\n0\t1\t2\t"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("\n1\t2\t4\t"), std::string::npos) << text.out;
    const auto csv = run_cli("hist " + quote(exr) + " --range 0:1 --bins 3 --format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_NE(csv.out.find("bin,lower,upper,r,g,b,luma709\n0,0,0.3333333433,"), std::string::npos)
        << csv.out;
    // info says what the samples are.
    const auto info = run_cli("info " + quote(exr) + " --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(parse_json(info.out).at("sample_type"), "f32");
}

TEST(CliFloat, EqualizeToneMapsToSixteenOrEightBits) {
    Scratch dir("cli-float-eq");
    const auto pfm = dir.path / "scene.pfm";
    python("write-scene " + quote(pfm) + " 320 200");
    const auto png = dir.path / "out.png";
    const auto r =
        run_cli("equalize " + quote(pfm) + " -o " + quote(png) + " --format json --timing");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("mode"), "tonemap");
    EXPECT_EQ(j.at("output_depth"), 16);
    EXPECT_EQ(j.at("tonemap").at("linear"), false);
    EXPECT_EQ(j.at("tonemap").at("bins"), 100);
    for (const char* stage : {"read", "histogram", "ceiling", "apply", "write", "total"})
        EXPECT_TRUE(j.at("timing_ms").contains(stage)) << stage;
    // The file holds core's tone mapping of the same samples, read back by the CLI.
    const auto info = parse_json(run_cli("info " + quote(png) + " --format json").out);
    EXPECT_EQ(info.at("depth"), 16);
    EXPECT_EQ(info.at("channels"), 3);
    const auto jpg = dir.path / "out.jpg";
    const auto e8 = run_cli("equalize " + quote(pfm) + " -o " + quote(jpg) + " --format json");
    ASSERT_EQ(e8.exit_code, 0) << e8.err;
    EXPECT_EQ(parse_json(e8.out).at("output_depth"), 8);
    const auto png8 = dir.path / "out8.png";
    ASSERT_EQ(run_cli("equalize " + quote(pfm) + " -o " + quote(png8) + " --depth 8").exit_code, 0);
    EXPECT_EQ(parse_json(run_cli("info " + quote(png8) + " --format json").out).at("depth"), 8);
    // What does not apply to a float image is refused, each with one line.
    expect_refused(run_cli("equalize " + quote(pfm) + " -o " + quote(png) + " --mode clahe"),
                   "clahe", "a float (HDR) image is tone mapped", 2);
    expect_refused(run_cli("equalize " + quote(pfm) + " -o " + quote(png) + " --strength 0.5"),
                   "strength", "--strength applies to the equalization", 2);
    expect_refused(
        run_cli("equalize " + quote(pfm) + " -o " + quote(dir.path / "x.jpg") + " --depth 16"),
        "jpeg 16", "JPEG cannot store 16-bit samples", 2);
    expect_refused(run_cli("equalize " + quote(pfm) + " -o " + quote(pfm)), "onto itself",
                   "never replaces its input", 2);
    expect_refused(
        run_cli("equalize " + quote(pfm) + " -o " + quote(dir.path / "x.png") + " --depth 12"),
        "depth 12", "--depth", 2);
    const std::string photo = std::string(HS_SAMPLES_DIR) + "/fruits.jpg";
    expect_refused(
        run_cli("equalize " + quote(photo) + " -o " + quote(dir.path / "y.png") + " --depth 8"),
        "depth of an integer image", "--depth sets a float image's", 2);
}

TEST(CliFloat, BenchTimesTheCpuEngineAndSaysWhoCannot) {
    Scratch dir("cli-float-bench");
    const auto pfm = dir.path / "b.pfm";
    python("write-pfm " + quote(pfm) + " 64 32 3 little 41");
    const auto r = run_cli("bench " + quote(pfm) + " --runs 20 --warmup 1 --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    bool cpu = false;
    const auto report = parse_json(r.out);
    for (const auto& row : report.at("results")) {
        EXPECT_EQ(row.at("depth"), 32);
        if (row.at("kernel") == "cpu") {
            cpu = true;
            EXPECT_EQ(row.at("status"), "ok");
            EXPECT_EQ(row.at("verified"), true);
            EXPECT_EQ(row.at("spec"), "256 bins of 0.125 stop over [-16, 16) EV");
        } else if (row.at("status") != "unavailable") {  // a GPU engine without a GPU
            EXPECT_EQ(row.at("status"), "unsupported") << row.at("kernel");
            EXPECT_NE(row.at("reason").get<std::string>().find("float"), std::string::npos);
        }
    }
    EXPECT_TRUE(cpu);
}

TEST(CliFloat, EveryEngineButTheCpuReferenceRefusesFloatsByItsCapabilities) {
    // The applications' registry: with CUDA, every GPU engine and auto, available here or not.
    const hs::app::Engines engines = hs::app::make_engines();
    Image img(8, 4, 3, SampleType::F32);
    const HistogramRequest request{
        img.view(), {Channel::Luma709}, HistogramSpec::floating(FloatBins::default_stops())};
    for (const auto& e : engines.registry->engines()) {
        const std::string name(e->name());
        if (name == "cpu") {
            EXPECT_TRUE(e->capabilities().f32);
            EXPECT_EQ(e->unsupported_reason(request), "");
            continue;
        }
        EXPECT_FALSE(e->capabilities().f32) << name;
        EXPECT_EQ(e->unsupported_reason(request),
                  "engine '" + name + "' does not handle 32-bit float samples");
    }
    // Frames of float samples stream on the CPU: every other stream engine declines them.
    StreamConfig config;
    config.format = FrameFormat::of(img.view());
    config.channels = request.channels;
    config.spec = request.spec;
    EXPECT_EQ(choose_stream_engine(*engines.registry, config).name(), "cpu");
}

// Raw frames of floats (--raw WxHxC:f32): the same samples as a PFM count the same, a stream of
// them has its outside counts per frame, and what floats do not take is said as such.
TEST(CliFloat, RawFloatFramesCountAsTheImageTheyHold) {
    Scratch dir("cli-float-raw");
    const int w = 64, h = 20;
    std::string raw, pfm = "PF\n64 20\n-1.0\n";  // little-endian, rows bottom to top
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < 3; ++c) {
                const float v = scene(x, y, c);
                raw.append(reinterpret_cast<const char*>(&v), 4);
            }
    for (int y = h - 1; y >= 0; --y)
        pfm.append(raw, static_cast<std::size_t>(y) * w * 12, static_cast<std::size_t>(w) * 12);
    const auto raw_file = dir.path / "scene.raw", pfm_file = dir.path / "scene.pfm",
               stream = dir.path / "three.raw";
    std::ofstream(raw_file, std::ios::binary) << raw;
    std::ofstream(pfm_file, std::ios::binary) << pfm;
    std::ofstream(stream, std::ios::binary) << raw << raw << raw;
    const std::string fmt = " --raw 64x20x3:f32 ";
    const auto a = run_cli("hist" + fmt + quote(raw_file) + " --format json");
    const auto b = run_cli("hist " + quote(pfm_file) + " --format json");
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(parse_json(a.out).at("channels"), parse_json(b.out).at("channels"));
    // The NaN and the infinity of each channel said as for the PFM.
    const std::string note =
        "note: 3 samples are NaN and 3 samples are infinite: the histograms count them apart";
    EXPECT_NE(a.err.find(note), std::string::npos) << a.err;
    EXPECT_NE(b.err.find(note), std::string::npos) << b.err;
    EXPECT_EQ(parse_json(a.out).at("channels").size(), 4u);  // r, g, b and luma709
    // Per frame: the outside counts of each channel, in JSON and as CSV columns.
    const auto frames = run_cli("hist" + fmt + quote(stream) + " --per-frame --format json");
    ASSERT_EQ(frames.exit_code, 0) << frames.err;
    const auto j = parse_json(frames.out);
    ASSERT_EQ(j.at("frames").size(), 3u);
    for (const auto& frame : j.at("frames"))
        EXPECT_EQ(frame.at("channels"), parse_json(b.out).at("channels"));
    // From a pipe the frames are not known in advance: null, not 0.
    const auto piped = run_cli("hist" + fmt + "- --per-frame --format json < " + quote(stream));
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_TRUE(parse_json(piped.out).at("frames_reported").is_null());
    EXPECT_EQ(parse_json(piped.out).at("frames").size(), 3u);
    const auto csv = run_cli("hist" + fmt + quote(stream) + " --per-frame --format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_NE(csv.out.find(",r_255,r_below_range,r_above_range,r_non_finite,g_0,"),
              std::string::npos);
    // What float frames do not take.
    expect_refused(
        run_cli("equalize" + fmt + quote(stream) + " --per-frame -o " + quote(dir.path / "x.raw")),
        "equalize --per-frame", "float frames are not equalized", 2);
    expect_refused(run_cli("bench" + fmt + quote(stream) + " --stream"), "bench --stream",
                   "give --no-equalize", 2);
    expect_refused(run_cli("hist" + fmt + quote(raw_file) + " --bins 2000000"), "--bins",
                   "a float image has at most 1048576 bins", 2);
    expect_refused(run_cli("hist" + fmt + quote(raw_file) + " --channels gray"), "gray",
                   "(use r, g, b or luma709)", 2);
}

TEST(CliFloat, HostileFilesAndAbsurdOptionsAreOneLine) {
    Scratch dir("cli-float-bad");
    const auto exr = dir.path / "good.exr";
    hs::test::ExrSpec spec;
    spec.width = 200;
    spec.height = 100;
    hs::test::write_exr(exr.string(), spec, scene);
    const auto pfm = dir.path / "good.pfm", tif = dir.path / "good.tif";
    python("write-pfm " + quote(pfm) + " 100 50 3 little 51");
    python("write-tiff " + quote(tif) + " 100 50 3 52 zlib");
    for (const auto& good : {exr, pfm, tif}) {
        std::ifstream in(good, std::ios::binary);
        const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
        for (const std::size_t cut : {bytes.size() / 3, bytes.size() - 7}) {
            const auto bad = dir.path / ("cut" + good.extension().string());
            std::ofstream(bad, std::ios::binary)
                .write(bytes.data(), static_cast<std::streamsize>(cut));
            for (const char* command : {"hist", "info"})
                expect_refused(run_cli(std::string(command) + " " + quote(bad)),
                               good.string() + " cut at " + std::to_string(cut), quote(bad));
        }
        const auto damaged = dir.path / ("damaged" + good.extension().string());
        hs::test::write_damaged_copy(good.string(), damaged.string(), 2000);
        // PFM has no checksum: its damage is other floats; EXR and TIFF say so.
        if (good != pfm)
            expect_refused(run_cli("hist " + quote(damaged)), good.string() + " damaged",
                           good == exr ? "could not be decoded as OpenEXR" : "is corrupt");
    }
    // A PFM declaring 100000 x 100000 pixels in a few bytes, and one that lies about its size.
    const auto huge = dir.path / "huge.pfm";
    std::ofstream(huge, std::ios::binary) << "PF\n100000 100000\n-1.0\n" << std::string(64, '\0');
    expect_refused(run_cli("hist " + quote(huge)), "huge", "more than the limit");
    const auto liar = dir.path / "liar.pfm";
    std::ofstream(liar, std::ios::binary) << "Pf\n2 2\n-1.0\n" << std::string(20, '\0');
    expect_refused(run_cli("hist " + quote(liar)), "liar", "bytes after the raster");
    const auto small = run_cli("hist " + quote(exr) + " --max-pixels 100");
    expect_refused(small, "max-pixels", "declares 200x100 pixels, more than the limit of 100");
    // Absurd options: usage errors, one line, exit 2.
    for (const std::string options :
         {"--stops 0:1:1/1000000000", "--stops 100:200:1", "--range 1:0", "--range 0:1 --bins 0",
          "--edges 0,1,2", "--channels luma", "--kernel opencv", "--range 1:1.0000001 --bins 1000"})
        expect_refused(run_cli("hist " + quote(pfm) + " " + options), options, "error:", 2);
    expect_refused(run_cli("scope " + quote(pfm)), "scope", "not on float samples", 2);
}
