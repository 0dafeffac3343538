// histoscope-cli scope, --roi and bench --scope, end to end on raw frames (with or without
// OpenCV): every count the CLI prints equals core's reference of the same pixels.

#include <gtest/gtest.h>

#include "cli_helpers.hpp"
#include "histoscope/core/histogram.hpp"
#include "histoscope/core/scope_picture.hpp"
#include "histoscope/core/scopes.hpp"
#include "histoscope/media/media.hpp"
#include "synthetic.hpp"

using namespace hs;
using namespace hs::test;

namespace {

std::vector<std::uint64_t> plane_counts(const cli::Json& plane) {
    std::vector<std::uint64_t> out;
    for (const auto& column : plane.at("counts"))
        for (const auto& c : column) out.push_back(c.get<std::uint64_t>());
    return out;
}

}  // namespace

TEST(CliScope, WaveformParadeAndVectorscopeJsonEqualTheReference) {
    Scratch dir("scope");
    const Image img = gaussian(101, 37, 3, SampleType::U16, 12, 300.0);
    const auto raw = quote(write_raw_file(img, dir.path / "deep.raw"));
    const std::string in = "--raw 101x37x3:u16:12 " + raw;

    ScopeSpec wave;
    wave.channel = Channel::G;
    wave.levels = 1024;
    wave.columns = 50;
    auto r = run_cli("scope " + in + " --channel g --levels 1024 --columns 50");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = parse_json(r.out);
    EXPECT_EQ(j.at("scope").at("kind"), "waveform");
    EXPECT_EQ(j.at("scope").at("channel"), "g");
    EXPECT_EQ(j.at("scope").at("columns"), 50);
    EXPECT_TRUE(j.at("region").is_null());
    const auto wave_ref = reference_scope(img.view(), wave);
    ASSERT_EQ(j.at("planes").size(), 1u);
    EXPECT_EQ(j.at("planes")[0].at("width"), 50);
    EXPECT_EQ(j.at("planes")[0].at("height"), 1024);
    EXPECT_EQ(plane_counts(j.at("planes")[0]), wave_ref[0].counts);
    EXPECT_EQ(j.at("planes")[0].at("total"), 101 * 37);

    ScopeSpec parade;
    parade.kind = ScopeKind::Parade;
    r = run_cli("scope " + in + " --kind parade --roi 3,4,50,20");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = parse_json(r.out);
    EXPECT_EQ(j.at("region"), cli::Json::parse("[3, 4, 50, 20]"));
    const auto parade_ref = reference_scope(crop(img.view(), {3, 4, 50, 20}), parade);
    ASSERT_EQ(j.at("planes").size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(j.at("planes")[i].at("name"), parade_ref[i].name);
        EXPECT_EQ(plane_counts(j.at("planes")[i]), parade_ref[i].counts);
    }

    ScopeSpec vector;
    vector.kind = ScopeKind::Vectorscope;
    vector.size = 64;
    vector.matrix = ChromaMatrix::Rec709;
    r = run_cli("scope " + in + " --kind vectorscope --size 64 --matrix 709");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = parse_json(r.out);
    EXPECT_EQ(j.at("scope").at("matrix"), "709");
    EXPECT_EQ(plane_counts(j.at("planes")[0]), reference_scope(img.view(), vector)[0].counts);
}

TEST(CliScope, CsvHasOneLinePerColumn) {
    Scratch dir("scope-csv");
    const Image img = uniform(9, 5, 3, SampleType::U8, 8, 3);
    const auto raw = quote(write_raw_file(img, dir.path / "small.rgb"));
    auto r = run_cli("scope --raw 9x5x3:u8 " + raw + " --kind vectorscope --size 2 --format csv");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ScopeSpec spec;
    spec.kind = ScopeKind::Vectorscope;
    spec.size = 2;
    const auto ref = reference_scope(img.view(), spec).front();
    EXPECT_EQ(r.out, "plane,cb_bin,cr_0,cr_1\n\"cb,cr\",0," + std::to_string(ref.at(0, 0)) + "," +
                         std::to_string(ref.at(0, 1)) + "\n\"cb,cr\",1," +
                         std::to_string(ref.at(1, 0)) + "," + std::to_string(ref.at(1, 1)) + "\n");
}

// A build without OpenCV writes no PNG (scope refuses -o FILE.png with an error).
#ifdef HS_TEST_WITH_OPENCV
TEST(CliScope, PngIsThePictureOfTheCounts) {
    Scratch dir("scope-png");
    const Image img = uniform(9, 5, 3, SampleType::U8, 8, 3);
    const auto raw = quote(write_raw_file(img, dir.path / "small.rgb"));
    ScopeSpec spec;
    const auto png = dir.path / "parade.PNG";  // the name says PNG in any case
    const auto r =
        run_cli("scope --raw 9x5x3:u8 " + raw + " --kind parade --levels 16 -o " + quote(png));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    spec.kind = ScopeKind::Parade;
    spec.levels = 16;
    const Image expected = scope_picture(reference_scope(img.view(), spec), spec);
    const media::LoadedImage written = media::read_image(png.string());
    ASSERT_EQ(written.image.width(), 3 * 9 + 2 * kScopeGap);
    ASSERT_EQ(written.image.height(), 16);
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < written.image.width(); ++x)
            for (int c = 0; c < 3; ++c)
                ASSERT_EQ(written.image.view().sample(x, y, c), expected.view().sample(x, y, c));
}
#endif

TEST(CliScope, WrongOptionsAreUsageErrors) {
    Scratch dir("scope-bad");
    const Image rgb = uniform(8, 8, 3, SampleType::U8, 8, 4);
    const Image gray = uniform(8, 8, 1, SampleType::U8, 8, 5);
    const std::string in = "--raw 8x8x3:u8 " + quote(write_raw_file(rgb, dir.path / "rgb.raw"));
    const std::string in_gray = "--raw 8x8x1:u8 " + quote(write_raw_file(gray, dir.path / "g.raw"));
    const std::vector<std::pair<std::string, std::string>> cases{
        {"scope " + in + " --kind vectorscope --levels 4", "--levels applies to"},
        {"scope " + in + " --kind waveform --size 4", "--size applies to"},
        {"scope " + in + " --kind parade --channel r", "--channel applies to"},
        {"scope " + in + " --channel r,g", "one channel"},
        {"scope " + in + " --channel gray", "gray"},
        {"scope " + in + " --columns 9", "columns must be between"},
        {"scope " + in + " --levels 4097", "--levels"},
        {"scope " + in + " --size 0", "--size"},
        {"scope " + in + " --kind histogram", "--kind"},
        {"scope " + in + " --roi 4,4,5,1", "reaches outside"},
        {"scope " + in + " --roi 1,1,0,1", "is empty"},
        {"scope " + in + " --roi 1,1,x,1", "not a whole number"},
        {"scope " + in + " --roi 1,2,3,4,5", "more than four numbers"},
        {"info " + in + " --roi 1,1,2,2", "unknown option '--roi'"},
        {"scope " + in + " --bogus 5", "unknown option '--bogus'"},
        {"scope " + in + " --roi 0,0,4294967296,1", "too large"},
        {"scope " + in + " -o " + quote(dir.path / "s.JPG"), "which scope does not write: name it"},
        {"scope " + in + " --format png", "-o FILE.png"},
        {"scope " + in + " --format png -o -", "-o FILE.png"},
        {"scope " + in + " --format json -o " + quote(dir.path / "s.png"),
         "s.png names a png file, but --format json was asked"},
        {"scope " + in + " --format csv -o " + quote(dir.path / "s.Png"), "s.csv"},
        {"scope " + in + " --kernel nope", "no scope engine named 'nope'"},
        {"scope " + in_gray + " --kind vectorscope", "gray image has no chroma"},
        {"scope " + in_gray + " --kind parade", "colour image"},
        {"hist " + in + " --roi 0,0,9,8", "reaches outside"},
        {"hist " + in + " --per-frame --roi 0,0,9,2", "reaches outside"},
        {"bench " + in + " --stream --roi 0,7,2,2", "reaches outside"},
        {"bench " + in + " --stream --scope parade,histogram", "unknown scope 'histogram'"},
        {"bench " + in + " --stream --scope parade,parade", "twice"},
        {"bench " + in + " --stream --scope parade,waveform --size 8", "--scope lists none"},
        {"bench " + in + " --stream --levels 8", "--levels applies to --scope"},
        {"bench " + in + " --scope parade,vectorscope", "one scope at a time"},
        {"bench " + in_gray + " --stream --scope waveform,vectorscope", "no chroma"},
        {"bench " + in + " --levels 4", "--levels applies to --scope"},
        {"bench " + in + " --scope waveform --bins 4", "apply to histograms"},
        {"bench " + in + " --scope waveform --select r,g", "one channel"},
        // A waveform's own channels, not a histogram's list.
        {"scope " + in + " --channel rgb", "not a waveform's channel: give --channel one of r, g"},
        {"scope " + in + " --channel all", "shows one channel, not all: give --channel one of"},
        {"scope " + in + " --channel xx",
         "unknown waveform channel 'xx' (r, g, b, a, gray, luma "
         "or luma709; of a video also y, cb or cr)"},
        {"scope " + in + " --channel y", "Y'CbCr planes of a video"},
        {"bench " + in + " --scope waveform --select y", "draws; --select names one of r, g"},
        {"bench " + in + " --scope waveform --select luma,all", "not the list 'luma,all'"},
    };
    for (const auto& [command, words] : cases) expect_refused(run_cli(command), command, words, 2);
}

TEST(CliScope, RoiRestrictsHistAndBench) {
    Scratch dir("roi");
    const Image img = uniform(40, 30, 3, SampleType::U8, 8, 6);
    const std::string in = "--raw 40x30x3:u8 " + quote(write_raw_file(img, dir.path / "f.rgb"));
    const ImageView part = crop(img.view(), {5, 6, 7, 8});
    auto r = run_cli("hist " + in + " --roi 5,6,7,8 --bins 16 --stats --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = parse_json(r.out);
    EXPECT_EQ(j.at("width"), 40);  // the input's size; the region says which part
    EXPECT_EQ(j.at("region"), cli::Json::parse("[5, 6, 7, 8]"));
    const auto ref = reference_histogram(part, all_channels(3), HistogramSpec::even(16, 0, 256));
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(counts_of(j.at("channels")[k]), ref[k].counts);
        EXPECT_EQ(j.at("channels")[k].at("stats").at("count"), 56);
    }
    r = run_cli("bench " + in + " --roi 5,6,7,8 --kernels cpu --runs 20 --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = parse_json(r.out);
    EXPECT_EQ(j.at("results")[0].at("width"), 7);
    EXPECT_EQ(j.at("results")[0].at("verified"), true);
    r = run_cli("bench " + in +
                " --roi 5,6,7,8 --scope vectorscope --size 32 --kernels cpu --runs 20 --format "
                "json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = parse_json(r.out);
    ASSERT_EQ(j.at("results").size(), 1u);
    EXPECT_EQ(j.at("results")[0].at("kernel"), "cpu");
    EXPECT_EQ(j.at("results")[0].at("spec"), "vectorscope Rec.601, 32x32 bins");
    EXPECT_EQ(j.at("results")[0].at("height"), 8);
    EXPECT_EQ(j.at("results")[0].at("verified"), true);
    r = run_cli("bench " + in + " --scope waveform --select g --runs 20 --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = parse_json(r.out);
    for (const auto& row : j.at("results"))
        if (row.at("status") == "ok" && !row.at("floor").get<bool>()) {  // the floor has none
            EXPECT_EQ(row.at("channels"), "g");
            EXPECT_EQ(row.at("verified"), true) << row.at("kernel");
        }
}

// Every frame's histograms and scopes of the region: hist --per-frame and the stream benchmark
// (which checks each frame's scopes against the reference itself).
TEST(CliScope, RoiAndScopesOnStreams) {
    Scratch dir("roi-stream");
    std::vector<Image> frames;
    for (unsigned i = 0; i < 4; ++i) frames.push_back(uniform(24, 10, 3, SampleType::U8, 8, i + 1));
    const std::string in =
        "--raw 24x10x3:u8 " + quote(write_raw_frames(frames, dir.path / "frames.rgb"));
    auto r = run_cli("hist " + in + " --per-frame --roi 3,2,13,7 --channels r,luma --bins 8 " +
                     "--format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = parse_json(r.out);
    EXPECT_EQ(j.at("region"), cli::Json::parse("[3, 2, 13, 7]"));
    ASSERT_EQ(j.at("frames").size(), frames.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
        const auto ref =
            reference_histogram(crop(frames[i].view(), {3, 2, 13, 7}),
                                {Channel::R, Channel::Luma601}, HistogramSpec::even(8, 0, 256));
        for (std::size_t k = 0; k < 2; ++k)
            EXPECT_EQ(counts_of(j.at("frames")[i].at("channels")[k]), ref[k].counts) << i;
    }
    r = run_cli("bench " + in +
                " --stream --roi 3,2,13,7 --scope waveform,parade,vectorscope --levels 64 "
                "--columns 5 --size 32 --matrix 709 --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = parse_json(r.out);
    EXPECT_EQ(j.at("verified"), true);
    EXPECT_EQ(j.at("verified_frames"), 4);
    EXPECT_EQ(j.at("region"), cli::Json::parse("[3, 2, 13, 7]"));
    EXPECT_EQ(j.at("scopes"), cli::Json::parse(R"(["waveform luma, 64 levels x 5 columns",
        "parade r,g,b, 64 levels x 5 columns", "vectorscope Rec.709, 32x32 bins"])"));
    EXPECT_FALSE(j.at("scope_engine").get<std::string>().empty());
    EXPECT_TRUE(j.at("stage_median_ms").contains("scopes"));
}
