// histoscope-cli equalize end to end: the written files against cv::equalizeHist,
// cv::createCLAHE and the YCrCb recipe, depth and channels kept, --timing JSON, and one
// `error:` line with exit code 2 or 3 for bad options and inputs.

#include <gtest/gtest.h>

#include <fstream>
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "cli_helpers.hpp"
#include "histoscope/core/equalize.hpp"
#include "synthetic.hpp"

using namespace hs::test;

namespace {

cv::Mat read(const std::filesystem::path& p) {
    return cv::imread(p.string(), cv::IMREAD_UNCHANGED);
}

double max_diff(const cv::Mat& a, const cv::Mat& b) {
    if (a.size() != b.size() || a.type() != b.type()) return 1e9;
    return cv::norm(a, b, cv::NORM_INF);
}

std::string q(const std::filesystem::path& p) {
    return "'" + p.string() + "'";
}

}  // namespace

TEST(CliEqualize, MoonGlobalWritesEqualizeHistPixelsAndBytes) {
    const auto dir = temp_dir("eq");
    const auto out = dir / "out.png";
    const auto r = run_cli("equalize " + q(sample("moon.png")) + " -o " + q(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
    const cv::Mat in = read(sample("moon.png"));
    ASSERT_EQ(in.type(), CV_8UC1);
    cv::Mat expected;
    cv::equalizeHist(in, expected);
    EXPECT_EQ(max_diff(read(out), expected), 0);
    std::vector<uchar> bytes;
    ASSERT_TRUE(cv::imencode(".png", expected, bytes));
    EXPECT_EQ(slurp(out), std::string(bytes.begin(), bytes.end()));
}

TEST(CliEqualize, ColourLumaEqualsTheYCrCbRecipe) {
    const auto dir = temp_dir("eq");
    const auto out = dir / "fruits.png";
    const auto r = run_cli("equalize " + q(sample("fruits.jpg")) + " -o " + q(out) +
                           " --mode global --space luma");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const cv::Mat bgr = read(sample("fruits.jpg"));
    cv::Mat ycc;
    cv::cvtColor(bgr, ycc, cv::COLOR_BGR2YCrCb);
    std::vector<cv::Mat> planes;
    cv::split(ycc, planes);
    cv::equalizeHist(planes[0], planes[0]);
    cv::merge(planes, ycc);
    cv::Mat expected;
    cv::cvtColor(ycc, expected, cv::COLOR_YCrCb2BGR);
    EXPECT_EQ(max_diff(read(out), expected), 0);
}

TEST(CliEqualize, ClaheOnMoonMatchesCreateClahe) {
    const auto dir = temp_dir("eq");
    for (const std::string tiles : {"8x8", "3x5", "7x7"}) {
        const auto out = dir / ("clahe" + tiles + ".png");
        const auto r = run_cli("equalize " + q(sample("moon.png")) + " -o " + q(out) +
                               " --mode clahe --clip 3 --tiles " + tiles);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const int tx = tiles[0] - '0', ty = tiles[2] - '0';
        cv::Mat expected;
        cv::createCLAHE(3.0, cv::Size(tx, ty))->apply(read(sample("moon.png")), expected);
        EXPECT_EQ(max_diff(read(out), expected), 0) << tiles;
    }
}

TEST(CliEqualize, SixteenBitInSixteenBitOut) {
    const auto dir = temp_dir("eq");
    const auto out = dir / "moon16.png";
    const auto r = run_cli("equalize " + q(sample("moon_4k_16bit.png")) + " -o " + q(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const cv::Mat in = read(sample("moon_4k_16bit.png"));
    const cv::Mat got = read(out);
    ASSERT_EQ(got.type(), CV_16UC1);
    ASSERT_EQ(got.size(), in.size());
    hs::EqualizeRequest req;
    req.image = hs::ImageView{reinterpret_cast<const std::byte*>(in.data),
                              in.cols,
                              in.rows,
                              1,
                              hs::SampleType::U16,
                              16,
                              in.step[0]};
    const hs::Image expected = hs::equalize_reference(req);
    const cv::Mat expected_mat(expected.height(), expected.width(), CV_16UC1,
                               const_cast<std::byte*>(expected.view().data), expected.stride());
    EXPECT_EQ(max_diff(got, expected_mat), 0);
    double lo = 0, hi = 0;
    cv::minMaxLoc(got, &lo, &hi);
    EXPECT_EQ(hi, 65535);

    const auto tif = dir / "chess.tif";
    const auto c = run_cli("equalize " + q(sample("chessboard_GRAY_U16.tif")) + " -o " + q(tif) +
                           " --mode clahe --clip 4 --tiles 3x5");
    ASSERT_EQ(c.exit_code, 0) << c.err;
    cv::Mat clahe;
    cv::createCLAHE(4.0, cv::Size(3, 5))->apply(read(sample("chessboard_GRAY_U16.tif")), clahe);
    EXPECT_EQ(max_diff(read(tif), clahe), 0);
}

TEST(CliEqualize, MatchingAPhotoToItselfKeepsIt) {
    const auto dir = temp_dir("eq");
    const auto out = dir / "same.png";
    const auto r = run_cli("equalize " + q(sample("camera.png")) + " -o " + q(out) +
                           " --mode match --reference " + q(sample("camera.png")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(max_diff(read(out), read(sample("camera.png"))), 0);
}

TEST(CliEqualize, RawFrameKeepsDepthAndChannels) {
    const auto dir = temp_dir("eq");
    // Two RGB pixels, (0, 0, 0) and (16, 16, 16), as little-endian u16.
    const char frame[12] = {0, 0, 0, 0, 0, 0, 16, 0, 16, 0, 16, 0};
    std::ofstream(dir / "frame.raw", std::ios::binary).write(frame, sizeof frame);
    const auto out = dir / "frame.png";
    const auto r = run_cli("equalize --raw 2x1x3:u16:12 " + q(dir / "frame.raw") + " -o " + q(out) +
                           " --space rgb");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const cv::Mat got = read(out);
    ASSERT_EQ(got.type(), CV_16UC3);
    // Each channel holds 0 and 16 -> 0 and 4095 (the declared 12-bit maximum), which the PNG
    // holds as its bit replication to 16 bits (4095 << 4 | 4095 >> 8): white.
    EXPECT_EQ(got.at<cv::Vec3w>(0, 0), cv::Vec3w(0, 0, 0));
    EXPECT_EQ(got.at<cv::Vec3w>(0, 1), cv::Vec3w(65535, 65535, 65535));
    // Read back at the declared depth (the PNG's sBIT).
    const auto back = run_cli("info " + q(out) + " --format json");
    ASSERT_EQ(back.exit_code, 0) << back.err;
    EXPECT_EQ(parse_json(back.out).at("depth"), 12);
}

TEST(CliEqualize, TimingJsonNamesEveryStage) {
    const auto dir = temp_dir("eq");
    const auto out = dir / "t.png";
    const auto r = run_cli("equalize " + q(sample("baboon.jpg")) + " -o " + q(out) +
                           " --mode clahe --space rgb --timing --format json --kernel cpu");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("input").get<std::string>(), sample("baboon.jpg"));
    EXPECT_EQ(j.at("output").get<std::string>(), out.string());
    EXPECT_EQ(j.at("mode").get<std::string>(), "clahe");
    EXPECT_EQ(j.at("space").get<std::string>(), "rgb");
    EXPECT_EQ(j.at("kernel").get<std::string>(), "cpu");
    EXPECT_EQ(j.at("width").get<std::int64_t>(), 512);
    EXPECT_EQ(j.at("height").get<std::int64_t>(), 512);
    EXPECT_EQ(j.at("depth").get<std::int64_t>(), 8);
    EXPECT_EQ(j.at("channels").get<std::int64_t>(), 3);
    const auto& t = j.at("timing_ms");
    for (const char* stage :
         {"read", "to_planes", "equalize", "to_image", "engine_total", "write", "total"})
        EXPECT_GE(t.at(stage).get<double>(), 0.0) << stage;
    EXPECT_TRUE(std::filesystem::exists(out));
}

TEST(CliEqualize, BadOptionsExitTwoWithOneErrorLine) {
    const auto dir = temp_dir("eq");
    const std::string in = q(sample("moon.png"));
    const std::string out = " -o " + q(dir / "never.png");
    const std::vector<std::pair<std::string, std::string>> cases{
        {in + out + " --mode foo", "--mode"},
        {in + out + " --space hsv", "--space"},
        {in + out + " --strength 2", "--strength"},
        {in + out + " --strength abc", "--strength"},
        {in + out + " --mode clahe --clip 0", "--clip"},
        {in + out + " --mode clahe --tiles 0x3", "--tiles"},
        {in + out + " --mode clahe --tiles 100x100", "--tiles"},
        {in + out + " --mode clahe --tiles 8xq", "--tiles"},
        {in + out + " --mode match", "--reference"},
        {in + out + " --clip 2", "--mode clahe only"},
        {in + out + " --tiles 4x4", "--mode clahe only"},
        {in + out + " --reference " + in, "--mode match only"},
        {in + out + " --kernel nope", "unknown equalize kernel"},
        {in + out + " --format xml", "--format"},
        {in + out + " --bogus", "unknown option"},
        {in, "-o"},
        {in + out + " --mode match --reference-frame 1", "--reference-frame requires --reference"},
        {in + out + " --mode match --reference " + q(sample("moon_4k_16bit.png")) +
             " --reference-frame 1",
         "--reference-frame applies to video and raw input, not to photos"},
        {q(sample("Megamind.avi")) + out, "video"},
    };
    for (const auto& [args, says] : cases) {
        const auto r = run_cli("equalize " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << args << ": " << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(r.out, "") << args;
    }
    EXPECT_FALSE(std::filesystem::exists(dir / "never.png"));
}

TEST(CliEqualize, OneFrameOfAVideoIsAnImage) {
    const auto dir = temp_dir("eq");
    const auto out = dir / "frame5.png";
    const auto r = run_cli("equalize " + q(sample("tree.avi")) + " --frame 5 -o " + q(out));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    // The frame hist reads as frame 5, equalized by the same engine, is what was written.
    const auto info = parse_json(run_cli("info " + q(sample("tree.avi")) + " --format json").out);
    const cv::Mat written = cv::imread(out.string(), cv::IMREAD_UNCHANGED);
    EXPECT_EQ(written.cols, info.at("width").get<int>());
    EXPECT_EQ(written.rows, info.at("height").get<int>());
    const auto again = dir / "again.png";
    ASSERT_EQ(run_cli("equalize " + q(sample("tree.avi")) + " --frame 5 -o " + q(again)).exit_code,
              0);
    EXPECT_EQ(slurp(out), slurp(again));
}

TEST(CliEqualize, OutputsTheFormatCannotHoldAreUsageErrors) {
    const auto dir = temp_dir("eq");
    // The extension is checked before the input is decoded.
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {q(sample("moon.png")) + " -o " + q(dir / "o.xyz"),
              "cannot write '.xyz' files (use .png, .tif, .jpg, .bmp, .webp, .ppm, .pgm, .pnm or "
              ".raw)"},
             {q(sample("moon.png")) + " -o " + q(dir / "noextension"),
              "noextension' has no extension to choose the picture's format by: name it .png, "
              ".tif, .jpg, .bmp, .webp, .ppm, .pgm, .pnm or .raw"},
             {q(sample("moon_4k_16bit.png")) + " -o " + q(dir / "o.jpg"),
              "JPEG cannot store 16-bit samples"},
         }) {
        const auto r = run_cli("equalize " + args);
        EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << args << ": " << r.err;
        EXPECT_NE(r.err.find(says), std::string::npos) << args << ": " << r.err;
    }
    EXPECT_TRUE(std::filesystem::is_empty(dir));
    // A device takes the image as PNG (to time equalize without keeping its output).
    const auto r = run_cli("equalize " + q(sample("moon.png")) + " -o /dev/null --timing");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // So does a pipe named as a file: /dev/stdout into one.
    const auto png = dir / "moon.png";
    ASSERT_EQ(run_cli("equalize " + q(sample("moon.png")) + " -o " + q(png)).exit_code, 0);
    const auto piped = run_command("sh -c \"" + cli() + " equalize " + q(sample("moon.png")) +
                                   " -o /dev/stdout | cat\"");
    EXPECT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_EQ(piped.err, "");
    EXPECT_EQ(piped.out, slurp(png));
}

TEST(CliEqualize, BadInputsAndOutputsExitThree) {
    const auto dir = temp_dir("eq");
    const std::vector<std::string> cases{
        q(dir / "missing.png") + " -o " + q(dir / "o.png"),
        q(sample("moon.png")) + " -o " + q(dir / "o.png") + " --mode match --reference " +
            q(dir / "missing.png"),
    };
    for (const auto& args : cases) {
        const auto r = run_cli("equalize " + args);
        EXPECT_EQ(r.exit_code, 3) << args << ": " << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << args << ": " << r.err;
    }
}
