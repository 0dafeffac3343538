// histoscope-cli on streams of frames, end to end: hist --per-frame on every frame of the
// bundled clips against the CPU reference of the decoded frames, a damaged clip processed with
// its bad frames reported, equalize of a video (to a video and to exact raw frames), bench of a
// video and of a raw stream, and the usage errors of the streaming options.

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

#include "cli_helpers.hpp"
#include "damaged_media.hpp"
#include "histoscope/core/engine.hpp"
#include "histoscope/core/equalize.hpp"
#include "histoscope/media/media.hpp"
#include "synthetic.hpp"

using namespace hs::test;
using hs::Channel;
using hs::Image;

namespace {

// Every frame the decoder delivers, in order (read_frame skips the ones that fail).
std::vector<Image> decoded_frames(const std::string& path) {
    hs::media::VideoReader video(path);
    std::vector<Image> out;
    Image frame;
    for (;;) {
        const auto status = video.read_frame(frame);
        if (status == hs::media::VideoReader::FrameStatus::End) break;
        if (status == hs::media::VideoReader::FrameStatus::Ok) out.push_back(std::move(frame));
    }
    return out;
}

// The "ok" frames of a --per-frame JSON document equal the reference of `frames`, in order.
void expect_frames_match(const hs::cli::Json& doc, const std::vector<Image>& frames) {
    const std::vector<Channel> channels{Channel::R, Channel::G, Channel::B};
    std::size_t next = 0;
    for (const auto& f : doc.at("frames")) {
        if (f.at("status").get<std::string>() != "ok") continue;
        ASSERT_LT(next, frames.size());
        const auto reference = hs::reference_histogram(frames[next].view(), channels,
                                                       hs::HistogramSpec::even(256, 0, 256));
        const auto& got = f.at("channels");
        ASSERT_EQ(got.size(), 3u);
        for (std::size_t c = 0; c < 3; ++c)
            ASSERT_EQ(counts_of(got[c]), reference[c].counts)
                << "frame " << f.at("frame").get<std::int64_t>() << " channel " << c;
        ++next;
    }
    EXPECT_EQ(next, frames.size());
}

void write_file(const std::filesystem::path& p, const std::vector<std::uint8_t>& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

class CliClip : public ::testing::TestWithParam<std::string> {};

TEST_P(CliClip, PerFrameHistogramsEqualTheReferenceOfEveryFrame) {
    const std::string path = sample(GetParam());
    const auto r = run_cli("hist '" + path + "' --per-frame --channels r,g,b --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto doc = parse_json(r.out);
    const std::vector<Image> frames = decoded_frames(path);
    EXPECT_EQ(doc.at("kind").get<std::string>(), "video");
    EXPECT_EQ(doc.at("frames_reported").get<std::int64_t>(),
              static_cast<std::int64_t>(frames.size()));
    EXPECT_EQ(doc.at("summary").at("ok").get<std::int64_t>(),
              static_cast<std::int64_t>(frames.size()));
    EXPECT_EQ(doc.at("summary").at("failed").get<std::int64_t>(), 0);
    expect_frames_match(doc, frames);
    // Frame numbers run from 0 without gaps.
    std::int64_t expected = 0;
    for (const auto& f : doc.at("frames")) EXPECT_EQ(f.at("frame").get<std::int64_t>(), expected++);
}

INSTANTIATE_TEST_SUITE_P(Clips, CliClip,
                         ::testing::Values("tree.avi", "Megamind.avi", "starry_pan_4k.mp4"),
                         ParamName());

TEST(CliStream, PerFrameCsvHasOneRowPerFrame) {
    const auto r =
        run_cli("hist '" + sample("tree.avi") + "' --per-frame --bins 4 --format csv --frames 5");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string header, row;
    std::getline(lines, header);
    EXPECT_EQ(header, "frame,status,r_0,r_1,r_2,r_3,g_0,g_1,g_2,g_3,b_0,b_1,b_2,b_3");
    int n = 0;
    while (std::getline(lines, row)) {
        EXPECT_EQ(row.rfind(std::to_string(n) + ",ok,", 0), 0u) << row;
        ++n;
    }
    EXPECT_EQ(n, 5);
}

TEST(CliStream, ADamagedClipIsProcessedWithItsBadFramesReported) {
    const auto dir = temp_dir("damaged");
    for (const std::string name : {"starry_pan_4k.mp4", "Megamind.avi"}) {
        const std::string damaged = (dir / name).string();
        write_damaged_copy(sample(name), damaged);
        const auto r = run_cli("hist '" + damaged + "' --per-frame --channels r,g,b --format json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_NE(r.err.find("warning: "), std::string::npos) << r.err;
        const auto doc = parse_json(r.out);
        const auto& summary = doc.at("summary");
        const std::int64_t reported = doc.at("frames_reported").get<std::int64_t>();
        EXPECT_GE(summary.at("failed").get<std::int64_t>(), 1) << name;
        EXPECT_EQ(summary.at("ok").get<std::int64_t>() + summary.at("failed").get<std::int64_t>(),
                  reported)
            << name;
        // Every failed frame has its row, with the reason.
        std::int64_t failed_rows = 0;
        for (const auto& f : doc.at("frames"))
            if (f.at("status").get<std::string>() == "failed") {
                ++failed_rows;
                EXPECT_FALSE(f.at("reason").get<std::string>().empty());
            }
        EXPECT_GE(failed_rows, 1) << name;
        // The frames that decoded are exact.
        expect_frames_match(doc, decoded_frames(damaged));
    }
    std::filesystem::remove_all(dir);
}

TEST(CliStream, EqualizeAVideoToAVideoAndToExactRawFrames) {
    const auto dir = temp_dir("eqvideo");
    const std::string in = sample("tree.avi");
    const std::vector<Image> frames = decoded_frames(in);
    ASSERT_EQ(frames.size(), 68u);

    const std::string avi = (dir / "out.avi").string();
    auto r = run_cli("equalize '" + in + "' -o '" + avi + "' --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto report = parse_json(r.out);
    EXPECT_EQ(report.at("written").get<std::int64_t>(), 68);
    EXPECT_EQ(report.at("failed").get<std::int64_t>(), 0);
    {
        // Each frame at its time: the clip's 68 frames with data lie among the 444 of its
        // header (its other chunks are empty: the frame before stays), and an .avi holds no gap,
        // so each is repeated up to the next one.
        hs::media::VideoReader back(avi);
        EXPECT_EQ(back.frame_count(), 444);
        EXPECT_EQ(back.width(), 320);
        EXPECT_EQ(back.height(), 240);
        EXPECT_NEAR(back.fps(), 15.0, 0.01);
    }
    // .raw keeps the samples: every frame equals the reference equalization of its input.
    for (const std::string mode : {"global", "clahe"}) {
        const std::string raw = (dir / ("out_" + mode + ".raw")).string();
        r = run_cli("equalize '" + in + "' -o '" + raw + "' --mode " + mode +
                    " --strength 0.8 --format json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        report = parse_json(r.out);
        EXPECT_EQ(report.at("mode").get<std::string>(), mode);
        const std::string bytes = slurp(raw);
        const std::size_t frame_bytes = 320u * 240u * 3u;
        ASSERT_EQ(bytes.size(), frame_bytes * frames.size());
        for (std::size_t i = 0; i < frames.size(); ++i) {
            hs::EqualizeRequest request;
            request.image = frames[i].view();
            request.mode = mode == "clahe" ? hs::EqualizeMode::Clahe : hs::EqualizeMode::Global;
            request.strength = 0.8;
            const Image expected = hs::equalize_reference(request);
            ASSERT_EQ(
                0, std::memcmp(bytes.data() + i * frame_bytes, expected.view().data, frame_bytes))
                << mode << " frame " << i;
        }
    }
    std::filesystem::remove_all(dir);
}

TEST(CliStream, BenchOfAVideoReportsEveryStageAndVerifies) {
    const auto r = run_cli("bench '" + sample("tree.avi") + "' --loop 2 --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("frames").get<std::int64_t>(), 136);
    EXPECT_EQ(j.at("ok").get<std::int64_t>(), 136);
    EXPECT_EQ(j.at("passes").get<std::int64_t>(), 2);
    EXPECT_TRUE(j.at("verified").get<bool>());
    EXPECT_EQ(j.at("verified_frames").get<std::int64_t>(), 68);
    EXPECT_GT(j.at("decode_fps").get<double>(), 0.0);
    EXPECT_GT(j.at("end_to_end_fps").get<double>(), 0.0);
    EXPECT_GT(j.at("steady_state_ms_per_frame").get<double>(), 0.0);
    const auto& stages = j.at("stage_median_ms");
    EXPECT_TRUE(stages.contains("histogram"));
    EXPECT_TRUE(j.at("memory").at("start").at("host_rss_bytes").get<std::uint64_t>() > 0);
    EXPECT_TRUE(j.at("memory").at("end").at("host_rss_bytes").get<std::uint64_t>() > 0);
    EXPECT_FALSE(j.at("memory").at("after_first_pass").is_null());
}

TEST(CliStream, RawStreamsWithATruncatedLastFrame) {
    const auto dir = temp_dir("rawstream");
    const auto path = dir / "frames.raw";
    std::vector<std::uint8_t> bytes(3 * 8 * 6 * 3 + 10);
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 13);
    write_file(path, bytes);
    auto r =
        run_cli("hist --raw 8x6x3:u8 '" + path.string() + "' --per-frame --format json --bins 8");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = parse_json(r.out);
    EXPECT_EQ(j.at("summary").at("ok").get<std::int64_t>(), 3);
    EXPECT_EQ(j.at("summary").at("failed").get<std::int64_t>(), 1);
    EXPECT_NE(r.err.find("frame 3 is truncated"), std::string::npos) << r.err;
    const auto& frames = j.at("frames");
    ASSERT_EQ(frames.size(), 4u);
    EXPECT_EQ(frames[3].at("status").get<std::string>(), "failed");

    r = run_cli("bench --raw 8x6x3:u8 '" + path.string() + "' --stream --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    j = parse_json(r.out);
    EXPECT_EQ(j.at("ok").get<std::int64_t>(), 3);
    EXPECT_EQ(j.at("failed").get<std::int64_t>(), 1);
    EXPECT_TRUE(j.at("verified").get<bool>());

    const auto out = dir / "eq.raw";
    r = run_cli("equalize --raw 8x6x3:u8 '" + path.string() + "' --per-frame -o '" + out.string() +
                "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(std::filesystem::file_size(out), 3u * 8u * 6u * 3u);

    // Nothing to read: one error line, exit 3.
    const auto empty = dir / "empty.raw";
    write_file(empty, {});
    for (const std::string& command :
         {"hist --raw 8x6x3:u8 '" + empty.string() + "' --per-frame",
          "bench --raw 8x6x3:u8 '" + empty.string() + "' --stream",
          std::string("hist --raw 8x6x3:u8 - --per-frame </dev/null")}) {
        r = run_cli(command);
        EXPECT_EQ(r.exit_code, 3) << command << "\n" << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << command << "\n" << r.err;
    }
    std::filesystem::remove_all(dir);
}

TEST(CliStream, StreamingOptionsOutOfPlaceAreUsageErrors) {
    const std::string video = "'" + sample("tree.avi") + "'";
    const std::string photo = "'" + sample("fruits.jpg") + "'";
    for (const std::string& args :
         {"hist " + photo + " --per-frame", "hist " + video + " --frames 3",
          "hist " + video + " --per-frame --stats", "hist " + video + " --per-frame --frame 2",
          "equalize " + video + " -o /tmp/histoscope-x.png",
          "equalize " + video + " -o /tmp/histoscope-x.avi --repeat 3",
          "bench " + video + " --kernels cpu", "bench " + photo + " --loop 2",
          std::string("hist --raw 2x2x1:u8 - --per-frame --frames 0"),
          std::string("bench --raw 2x2x1:u8 - --stream --loop 2")}) {
        const auto r = run_cli(args + " </dev/null");
        EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
        EXPECT_TRUE(one_error_line(r.err)) << args << "\n" << r.err;
    }
    // Each message names the options in conflict, not a kind of input the input is: --frame N
    // of a video makes one image of it, which the stream's options do not apply to.
    for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
             {"equalize " + video + " --frames 5 --frame 2 -o /tmp/histoscope-x.mkv",
              "--frames N limits the frames of a stream, and --frame N picks one frame: give one "
              "of them"},
             {"equalize " + photo + " --frames 5 -o /tmp/histoscope-x.png",
              "--frames N applies to streams (a video, or --per-frame), not to one image"},
             {"equalize " + video + " -o /tmp/histoscope-x.avi --repeat 3",
              "--repeat applies to one image (a photo, or --frame N of a video), not to a stream"},
             {"bench " + video + " --frame 2 --frames 3",
              "--frames applies to the stream benchmark, and --frame N benchmarks one frame: give "
              "one of them"},
             {"bench " + video + " --frame 2 --no-equalize",
              "--no-equalize applies to the stream benchmark, and --frame N"},
             {"bench " + photo + " --loop 2",
              "--loop applies to the stream benchmark (a video, or --stream)"}})
        expect_refused(run_cli(args), args, says, 2);
}
