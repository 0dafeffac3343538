// histoscope-cli end to end with raw input (works with or without OpenCV).

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cli_helpers.hpp"
#include "histoscope/core/histogram.hpp"
#include "synthetic.hpp"

using namespace hs;
using namespace hs::test;

namespace {

std::filesystem::path write_raw(const Image& img, const std::string& name) {
    return write_raw_file(img, temp_dir("raw") / name);
}

}  // namespace

TEST(CliRaw, JsonCountsEqualReference) {
    const Image img = uniform(97, 31, 3, SampleType::U8, 8, 77);
    const auto path = write_raw(img, "frame.rgb");
    const auto r = run_cli("hist --raw 97x31x3:u8 '" + path.string() + "' --format json --stats");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("width").get<std::int64_t>(), 97);
    EXPECT_EQ(j.at("height").get<std::int64_t>(), 31);
    EXPECT_EQ(j.at("depth").get<std::int64_t>(), 8);
    EXPECT_EQ(j.at("kernel").get<std::string>(), "cpu");
    EXPECT_EQ(j.at("spec").at("bins").get<std::int64_t>(), 256);
    EXPECT_TRUE(j.at("timing_ms").at("total").is_number());
    const auto ref =
        reference_histogram(img.view(), all_channels(3), HistogramSpec::even(256, 0, 256));
    ASSERT_EQ(j.at("channels").size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) {
        EXPECT_EQ(j.at("channels")[k].at("name").get<std::string>(), channel_name(ref[k].channel));
        EXPECT_EQ(counts_of(j.at("channels")[k]), ref[k].counts);
        EXPECT_EQ(j.at("channels")[k].at("stats").at("count").get<std::uint64_t>(), 97u * 31u);
    }
}

TEST(CliRaw, StdinSixteenBitEdgesSaturationAndCsv) {
    const Image img = gaussian(64, 50, 1, SampleType::U16, 12, 200.0);
    const auto path = write_raw(img, "deep.raw");
    HistogramSpec spec = HistogramSpec::with_edges({0, 1000, 2047.5, 2048, 3000, 4096});
    spec.saturate = 1000;
    const auto ref = reference_histogram(img.view(), {Channel::Gray}, spec);

    const auto j = run_cli(
        "hist --raw 64x50x1:u16:12 - --edges 0,1000,2047.5,2048,3000,4096 "
        "--saturate 1000 --format json < '" +
        path.string() + "'");
    ASSERT_EQ(j.exit_code, 0) << j.err;
    const auto doc = parse_json(j.out);
    EXPECT_EQ(doc.at("input").get<std::string>(), "-");
    EXPECT_EQ(doc.at("depth").get<std::int64_t>(), 12);
    EXPECT_EQ(doc.at("spec").at("saturate").get<std::uint64_t>(), 1000u);
    EXPECT_EQ(counts_of(doc.at("channels")[0]), ref[0].counts);

    const auto csv =
        run_cli("hist --raw 64x50x1:u16:12 '" + path.string() + "' --bins 4096 --format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 4097);
    EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "bin,lower,upper,gray");
}

TEST(CliRaw, OutputFileAndFrameOfAStream) {
    Image a = constant(8, 8, 1, SampleType::U8, 8, 10),
          b = constant(8, 8, 1, SampleType::U8, 8, 200);
    const auto dir = temp_dir("stream");
    {
        std::ofstream f(dir / "two.raw", std::ios::binary);
        f.write(reinterpret_cast<const char*>(a.data()), 64);
        f.write(reinterpret_cast<const char*>(b.data()), 64);
    }
    const auto out = dir / "h.json";
    const auto r = run_cli("hist --raw 8x8x1:u8 '" + (dir / "two.raw").string() +
                           "' --frame 1 --format json -o '" + out.string() + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    const auto j = parse_json(slurp(out));
    EXPECT_EQ(j.at("frame").get<std::int64_t>(), 1);
    EXPECT_EQ(j.at("channels")[0].at("counts")[200].get<std::uint64_t>(), 64u);
    const auto info =
        run_cli("info --raw 8x8x1:u8 '" + (dir / "two.raw").string() + "' --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(parse_json(info.out).at("frames").get<std::int64_t>(), 2);
}

// A raw file that ends inside a frame: its whole frames are read by every command, the cut one
// is a note (info: how many whole frames and the bytes after them) and refused when asked for.
TEST(CliRaw, TheWholeFramesOfAFileCutShortAreRead) {
    const Scratch dir("cut");
    const Image a = constant(4, 2, 1, SampleType::U8, 8, 10),
                b = constant(4, 2, 1, SampleType::U8, 8, 200);
    const auto path = write_raw_frames({a, b}, dir.path / "cut.raw");
    { std::ofstream(path, std::ios::binary | std::ios::app) << "xyz"; }
    const std::string raw = "--raw 4x2x1:u8 " + quote(path);
    const std::string note = "raw input '" + path.string() +
                             "' holds 2 whole frames; frame 2 is truncated: the file ends after 3 "
                             "of its 8 bytes";

    const auto info = run_cli("info " + raw + " --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    const auto j = parse_json(info.out);
    EXPECT_EQ(j.at("frames").get<std::int64_t>(), 2);
    EXPECT_EQ(j.at("extra_bytes").get<std::int64_t>(), 3);
    EXPECT_EQ(j.at("notes"), cli::Json::array({note}));
    const auto text = run_cli("info " + raw);
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("frames:   2 whole, then 3 bytes of a truncated frame 2\n"),
              std::string::npos)
        << text.out;
    const auto whole =
        run_cli("info --raw 4x2x1:u8 " + quote(write_raw_frames({a, b}, dir.path / "whole.raw")) +
                " --format json");
    EXPECT_EQ(parse_json(whole.out).at("extra_bytes").get<std::int64_t>(), 0);

    const auto hist = run_cli("hist " + raw + " --frame 1 --format json");
    ASSERT_EQ(hist.exit_code, 0) << hist.err;
    EXPECT_EQ(parse_json(hist.out).at("channels")[0].at("counts")[200].get<std::uint64_t>(), 8u);
    EXPECT_EQ(hist.err, "note: " + note + "\n");
    expect_refused(run_cli("hist " + raw + " --frame 2"), "the cut frame",
                   "frame 2 is truncated: the file ends after 3 of its 8 bytes");
    expect_refused(run_cli("hist " + raw + " --frame 3"), "past it",
                   "has no frame 3: it holds 2 whole frames (0..1) and a truncated frame 2");
    // Standard input says the same of what arrived.
    const auto piped = run_cli("info --raw 4x2x1:u8 - --format json < " + quote(path));
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_EQ(parse_json(piped.out).at("extra_bytes").get<std::int64_t>(), 3);
    expect_refused(run_cli("hist --raw 4x2x1:u8 - --frame 2 < " + quote(path)), "piped cut frame",
                   "frame 2 is truncated: the input ends after 3 of its 8 bytes");
}

// At most one bin per code value counted: the samples' (2^depth) and, with --range LO:HI, the
// range's HI - LO, whose bins default to one per code value when it holds fewer than 256.
TEST(CliRaw, OneBinPerCodeValueOfTheRangeCounted) {
    const Scratch dir("range-bins");
    const Image img = ramp(32, 16, 1, SampleType::U16, 10);  // 0..511
    const std::string raw =
        "--raw 32x16x1:u16:10 " + quote(write_raw_file(img, dir.path / "ten.raw"));
    for (const auto& [options, says] : std::vector<std::pair<std::string, std::string>>{
             {"--range 0:64 --bins 128",
              "--bins 128: more bins than the 64 code values of --range 0:64"},
             {"--range 100:101 --bins 2",
              "--bins 2: more bins than the 1 code values of --range "
              "100:101"},
             {"--range 0:4096 --bins 2048",
              "--bins 2048: more bins than the 1024 code values of 10-bit samples"}}) {
        expect_refused(run_cli("hist " + raw + " " + options), options, says, 2);
        expect_refused(run_cli("bench " + raw + " --runs 20 --warmup 0 " + options),
                       "bench " + options, says, 2);
    }
    for (const auto& [options, bins] : std::vector<std::pair<std::string, int>>{
             {"--range 0:64 --bins 64", 64}, {"--range 0:64", 64}, {"--range 0:1000", 256}}) {
        const auto r = run_cli("hist " + raw + " " + options + " --format json");
        ASSERT_EQ(r.exit_code, 0) << options << "\n" << r.err;
        const auto j = parse_json(r.out);
        EXPECT_EQ(j.at("spec").at("bins").get<int>(), bins) << options;
        const auto& [lower, upper] = std::pair{j.at("spec").at("range")[0].get<std::int64_t>(),
                                               j.at("spec").at("range")[1].get<std::int64_t>()};
        EXPECT_EQ(counts_of(j.at("channels")[0]),
                  reference_histogram(img.view(), {Channel::Gray},
                                      HistogramSpec::even(bins, lower, upper))[0]
                      .counts)
            << options;
    }
}

// A one-channel image is equalized as it is: the reports name its space gray, not --space's.
TEST(CliRaw, EqualizeReportsNameTheSpaceOfAGrayImageGray) {
    const Scratch dir("eq-space");
    const auto gray = write_raw_file(ramp(8, 4, 1, SampleType::U8, 8), dir.path / "gray.raw");
    const auto rgb = write_raw_file(ramp(8, 4, 3, SampleType::U8, 8), dir.path / "rgb.raw");
    const auto out = quote(dir.path / "out.raw");
    const auto report = [&](const std::string& args) {
        const auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
        return r.out;
    };
    const std::string g = "--raw 8x4x1:u8 " + quote(gray), c = "--raw 8x4x3:u8 " + quote(rgb);
    EXPECT_NE(report("equalize " + g + " -o " + out + " --timing").find(": global, gray, kernel"),
              std::string::npos);
    for (const char* space : {"", " --space rgb", " --space luma"})
        EXPECT_EQ(parse_json(report("equalize " + g + " -o " + out + " --format json" + space))
                      .at("space"),
                  "gray")
            << space;
    EXPECT_EQ(parse_json(report("equalize " + c + " -o " + out + " --format json")).at("space"),
              "luma");
    EXPECT_NE(report("equalize " + g + " --per-frame -o " + out + " --timing")
                  .find("equalized (global, gray)"),
              std::string::npos);
    EXPECT_EQ(parse_json(report("equalize " + g + " --per-frame -o " + out + " --format json"))
                  .at("space"),
              "gray");
    EXPECT_EQ(parse_json(report("bench " + g + " --stream --format json")).at("equalize"),
              "global, gray, strength 1");
    EXPECT_EQ(parse_json(report("bench " + c + " --stream --format json")).at("equalize"),
              "global, luma, strength 1");
}

// Without --format, the format is what -o's extension names where the command writes it; an
// extension that names another format than --format, or one the command does not write, is a
// usage error, and nothing is written.
TEST(CliRaw, OutputsTakeTheFormatTheirExtensionNames) {
    const Scratch dir("by-name");
    const std::string in =
        "--raw 4x2x1:u8 " +
        quote(write_raw_file(constant(4, 2, 1, SampleType::U8, 8, 7), dir.path / "in.raw"));
    const auto written = [&](const std::string& command, const std::string& name) {
        const auto r = run_cli(command + " " + in + " -o " + quote(dir.path / name));
        EXPECT_EQ(r.exit_code, 0) << command << " " << name << "\n" << r.err;
        return slurp(dir.path / name);
    };
    EXPECT_EQ(parse_json(written("hist --bins 2", "h.json")).at("spec").at("bins"), 2);
    EXPECT_EQ(written("hist --bins 2", "h.CSV"), "bin,lower,upper,gray\n0,0,128,8\n1,128,256,0\n");
    EXPECT_EQ(written("hist --bins 2", "h.txt").rfind("# ", 0), 0u);
    EXPECT_EQ(parse_json(written("info", "i.json")).at("width"), 4);
    EXPECT_EQ(written("scope --levels 1", "s.csv"),
              "plane,column,level_0\ngray,0,2\ngray,1,2\n"
              "gray,2,2\ngray,3,2\n");
    EXPECT_EQ(written("scope --levels 1", "s.png").substr(1, 3), "PNG");
    // An extension that names no format of these leaves --format and its default.
    EXPECT_EQ(written("hist --bins 2 --format json", "h.dat").rfind("{", 0), 0u);
    EXPECT_EQ(written("hist --bins 2", "h.dat").rfind("# ", 0), 0u);
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"hist " + in + " --format csv -o " + quote(dir.path / "x.json"),
              "x.json names a json file, but --format csv was asked: name it " +
                  (dir.path / "x.csv").string() + " (or leave --format out)"},
             {"hist " + in + " -o " + quote(dir.path / "x.png"),
              "x.png names a png file, which hist does not write: name it " +
                  (dir.path / "x.txt").string() + ", " + (dir.path / "x.csv").string() + " or " +
                  (dir.path / "x.json").string()},
             {"info " + in + " -o " + quote(dir.path / "x.csv"),
              "x.csv names a csv file, which info does not write"},
             {"scope " + in + " -o " + quote(dir.path / "x.txt"),
              "x.txt names a text file, which scope does not write"},
             {"kernels -o " + quote(dir.path / "x.csv"),
              "x.csv names a csv file, which kernels does not write"},
             {"bench " + in + " --format json -o " + quote(dir.path / "x.txt"),
              "x.txt names a table file, but --format json was asked"},
             {"bench " + in + " --stream -o " + quote(dir.path / "x.csv"),
              "x.csv names a csv file, which a stream benchmark does not write: name it " +
                  (dir.path / "x.txt").string() + " or " + (dir.path / "x.json").string()}}) {
        const auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << args << "\n" << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << args << "\n" << r.err;
    }
    for (const char* name : {"x.json", "x.png", "x.csv", "x.txt"})
        EXPECT_FALSE(std::filesystem::exists(dir.path / name)) << name;
}

TEST(CliErrors, BadInputExitsThreeWithOneLine) {
    const auto dir = temp_dir("bad");
    { std::ofstream(dir / "short.raw", std::ios::binary) << "12345"; }
    { std::ofstream(dir / "empty.raw", std::ios::binary); }
    { std::ofstream(dir / "one.raw", std::ios::binary) << std::string(48, 'x'); }
    for (const std::string& args :
         {"hist --raw 4x4x3:u8 '" + (dir / "short.raw").string() + "'",
          "hist --raw 4x4x3:u8 '" + (dir / "empty.raw").string() + "'",
          "hist --raw 4x4x3:u8 '" + (dir / "missing.raw").string() + "'",
          // A frame past the end is missing from the input, as for a video.
          "hist --raw 4x4x3:u8 '" + (dir / "one.raw").string() + "' --frame 1"}) {
        const auto r = run_cli(args);
        EXPECT_EQ(r.exit_code, 3) << args << "\n" << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << r.err;
        EXPECT_EQ(r.out, "");
    }
}

TEST(CliErrors, UsageErrorsExitTwoWithOneLine) {
    const Image img = uniform(4, 4, 3, SampleType::U8, 8);
    const std::string raw = "--raw 4x4x3:u8 '" + write_raw(img, "u.raw").string() + "'";
    const std::vector<std::string> cases{std::string("frobnicate"),
                                         "hist " + raw + " --bins 0",
                                         "hist " + raw + " --bins 16777217",
                                         "hist " + raw + " --bins x",
                                         "hist " + raw + " --range 5:5",
                                         "hist " + raw + " --range 9",
                                         "hist " + raw + " --edges 0,10 --bins 4",
                                         "hist " + raw + " --edges 10,5",
                                         "hist " + raw + " --kernel nope",
                                         "hist " + raw + " --format xml",
                                         "hist " + raw + " --channels a",
                                         "hist " + raw + " --saturate 0",
                                         "hist " + raw + " --bogus",
                                         "hist --raw 4x4x2:u8 -",
                                         "hist --raw 4x4:u8 -",
                                         "hist",
                                         "hist " + raw + " --bins",
                                         "hist " + raw + " --stats --stats",
                                         "hist " + raw + " --bins 4 --bins 8",
                                         "hist " + raw + " --channels r,r",
                                         "hist " + raw + " -o ''",
                                         "hist " + raw + " -o=x.txt",
                                         "",
                                         "--bogus hist",
                                         "bench " + raw + " --kernels ''",
                                         "bench " + raw + " --kernels cpu,cpu"};
    for (const std::string& args : cases) {
        const auto r = run_cli(args + " < /dev/null");
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << args << "\n" << r.err;
    }
}

// Flags take CLI11's boolean values: false, no, off, 0 (and -1) turn one off, true, yes, on, 1
// (and other positive numbers) on; a value that is none of them is a usage error.
TEST(CliErrors, FlagsTakeTheValuesCli11DocumentsOrRefuseThem) {
    const Image img = uniform(4, 4, 3, SampleType::U8, 8, 7);
    const std::string raw = "--raw 4x4x3:u8 '" + write_raw(img, "f.raw").string() + "'";
    const auto has_stats = [&](const std::string& flag) {
        const auto r = run_cli("hist " + raw + " --format json " + flag);
        EXPECT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
        return parse_json(r.out).at("channels")[0].contains("stats");
    };
    EXPECT_FALSE(has_stats(""));
    for (const std::string on :
         {"--stats", "--stats=true", "--stats=yes", "--stats=on", "--stats=1"})
        EXPECT_TRUE(has_stats(on)) << on;
    for (const std::string off : {"--stats=false", "--stats=no", "--stats=off", "--stats=0"})
        EXPECT_FALSE(has_stats(off)) << off;
    // Every flag reads its value the same way: --per-frame=no is one frame's histogram.
    const auto one = run_cli("hist " + raw + " --per-frame=no --format json");
    EXPECT_EQ(one.exit_code, 0) << one.err;
    EXPECT_FALSE(parse_json(one.out).contains("frames"));
    const auto bad = run_cli("hist " + raw + " --stats=maybe");
    EXPECT_EQ(bad.exit_code, 2) << bad.err;
    EXPECT_TRUE(one_error_line(bad.err)) << bad.err;
    EXPECT_NE(bad.err.find("--stats"), std::string::npos) << bad.err;
    EXPECT_EQ(bad.out, "");
}

TEST(CliKernels, ListsTheRegistry) {
    const auto r = run_cli("kernels --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    bool cpu = false;
    for (const auto& k : j.at("kernels"))
        if (k.at("name").get<std::string>() == "cpu") cpu = k.at("available").get<bool>();
    EXPECT_TRUE(cpu);
    // The equalizers too: the cpu reference is always there.
    bool cpu_equalizer = false;
    for (const auto& k : j.at("equalizers"))
        if (k.at("name").get<std::string>() == "cpu") cpu_equalizer = k.at("available").get<bool>();
    EXPECT_TRUE(cpu_equalizer);
    const auto text = run_cli("kernels");
    EXPECT_EQ(text.exit_code, 0);
    EXPECT_NE(text.out.find("cpu\tavailable"), std::string::npos);
    const auto equalizers = text.out.find("# equalizers");
    ASSERT_NE(equalizers, std::string::npos);
    EXPECT_NE(text.out.find("cpu\tavailable", equalizers), std::string::npos);
}

TEST(CliBench, SyntheticInputsAreVerifiedForEveryAvailableKernel) {
    for (const std::string kind : {"uniform", "degenerate", "gauss:3", "ramp"}) {
        const auto r = run_cli("bench --synthetic " + kind +
                               " --pixels 100000 --depth 16 --channels 3 --bins 1024 --runs 20 "
                               "--warmup 1 --format json");
        ASSERT_EQ(r.exit_code, 0) << kind << ": " << r.err;
        const auto j = parse_json(r.out);
        int ok = 0;
        for (const auto& row : j.at("results")) {
            EXPECT_EQ(row.at("width").get<std::int64_t>(), 4096);
            EXPECT_EQ(row.at("height").get<std::int64_t>(),
                      25);  // 100000 pixels rounded up to whole rows
            if (row.at("status").get<std::string>() != "ok") continue;
            ++ok;
            EXPECT_TRUE(row.at("verified").get<bool>()) << row.at("kernel").get<std::string>();
            EXPECT_EQ(row.at("runs").get<std::int64_t>(), 20);
            EXPECT_GT(row.at("median_ms").get<double>(), 0.0);
            EXPECT_EQ(row.at("bytes").get<std::uint64_t>(), 4096u * 25u * 3u * 2u);
        }
        EXPECT_GE(ok, 1) << "the cpu engine always runs";
    }
}

TEST(CliBench, BadOptionsAreUsageErrors) {
    for (const std::string& args :
         {std::string("bench --synthetic triangle"), std::string("bench --synthetic gauss:-1"),
          std::string("bench --synthetic uniform --pixels 0"),
          std::string("bench --synthetic uniform --depth 7"),
          std::string("bench --synthetic uniform --channels 2"),
          std::string("bench --synthetic uniform --runs 5"),
          std::string("bench --synthetic uniform --kernels nope"),
          std::string("bench --pixels 100")}) {
        const auto r = run_cli(args + " < /dev/null");
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << args << "\n" << r.err;
    }
}

TEST(CliRaw, SamplesAboveTheDeclaredDepthAreRefused) {
    // 12-bit frames holding 5000: not data of that format, in a single frame or a stream.
    Image img = uniform(8, 4, 1, SampleType::U16, 12);
    const auto good = write_raw(img, "ok12.raw");
    reinterpret_cast<std::uint16_t*>(img.row(2))[3] = 5000;
    const auto bad = write_raw(img, "bad12.raw");
    const auto r = run_cli("hist --raw 8x4x1:u16:12 '" + bad.string() + "'");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_TRUE(one_error_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("sample value 5000"), std::string::npos) << r.err;
    // A stream: the frame fails, the others are counted.
    const auto stream = temp_dir("raw") / "two.raw";
    {
        std::ofstream out(stream, std::ios::binary);
        for (const auto& f : {good, bad}) {
            std::ifstream in(f, std::ios::binary);
            out << in.rdbuf();
        }
    }
    const auto s =
        run_cli("hist --raw 8x4x1:u16:12 '" + stream.string() + "' --per-frame --format json");
    ASSERT_EQ(s.exit_code, 0) << s.err;
    const auto j = parse_json(s.out);
    ASSERT_EQ(j.at("frames").size(), 2u);
    EXPECT_EQ(j.at("frames")[0].at("status").get<std::string>(), "ok");
    EXPECT_EQ(j.at("frames")[1].at("status").get<std::string>(), "failed");
    EXPECT_NE(j.at("frames")[1].at("reason").get<std::string>().find("5000"), std::string::npos);
}

TEST(CliBench, CsvQuotesFieldsAsRfc4180) {
    // A file name with a quote and a comma must stay one field.
    const Image img = uniform(8, 8, 1, SampleType::U8, 8);
    const auto path = write_raw(img, "we\"ird, name.raw");
    const auto r = run_cli("bench --raw 8x8x1:u8 '" + path.string() +
                           "' --kernels cpu --runs 20 --warmup 0 --format csv");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // "# " context lines, the header, then the row.
    std::istringstream lines(r.out);
    std::string line;
    while (std::getline(lines, line) && line.rfind("# ", 0) == 0) {
    }
    EXPECT_EQ(line.rfind("input,width,height,", 0), 0u) << line;
    ASSERT_TRUE(std::getline(lines, line));
    std::string quoted = path.string();
    quoted.replace(quoted.find('"'), 1, "\"\"");
    EXPECT_EQ(line.rfind("\"" + quoted + "\",8,8,1,8,64,gray,", 0), 0u) << line;
    EXPECT_NE(line.find(",cpu,ok,"), std::string::npos) << line;
}
