// Video at its coded depth through histoscope-cli: info's coding, hist of the Y', Cb, Cr planes
// and of the 16-bit R, G, B (one frame, --per-frame, a region), bench, equalize and scope of deep
// clips, cut and broken files. The clips are made from known code values by the ffmpeg tool
// (tests/support/coded_video.hpp); every count expected comes from those values.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include "cli_helpers.hpp"
#include "coded_video.hpp"
#include "histoscope/media/media.hpp"
#include "synthetic.hpp"

using namespace hs::test;
namespace fs = std::filesystem;

namespace {

constexpr const char* kLosslessHevc = "-c:v libx265 -x265-params lossless=1:log-level=error";
constexpr const char* kBt709 =
    " -color_range tv -colorspace bt709 -color_trc bt709 -color_primaries bt709";

bool only_our_lines(const std::string& err) {
    std::istringstream in(err);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("error: ", 0) != 0 && line.rfind("warning: ", 0) != 0 &&
            line.rfind("note: ", 0) != 0)
            return false;
    return true;
}

// One bin per code value of R (0), G (1) or B (2) of the clip's frame, by media's formula.
std::vector<std::uint64_t> rgb_counts(const CodedClip& clip, int channel, int frame,
                                      const std::string& matrix, bool full) {
    const auto t = hs::media::YCbCrToRgb::make(matrix, full, clip.depth);
    std::vector<std::uint64_t> counts(std::size_t{1} << clip.depth);
    for (int y = 0; y < clip.height; ++y)
        for (int x = 0; x < clip.width; ++x) {
            std::uint32_t rgb[3];
            t.convert(clip.value(0, x, y, frame),
                      clip.value(1, x >> clip.shift_x, y >> clip.shift_y, frame),
                      clip.value(2, x >> clip.shift_x, y >> clip.shift_y, frame), rgb);
            ++counts[rgb[channel]];
        }
    return counts;
}

// The clip of 6 10-bit 4:2:0 frames (96x64), Rec.709, limited range, in Matroska.
struct TenBitClip {
    Scratch scratch{"coded"};
    CodedClip clip;
    fs::path path = scratch.path / "clip.mkv";
    std::string error = encode_clip(clip, path, std::string(kLosslessHevc) + kBt709);
};

// The samples of a file of 16-bit little-endian raw frames, in file order.
std::vector<std::uint32_t> raw_samples(const fs::path& path) {
    const std::string bytes = slurp(path);
    std::vector<std::uint32_t> out(bytes.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<unsigned char>(bytes[2 * i]) |
                 static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[2 * i + 1])) << 8;
    return out;
}

// Plane `k` of interleaved samples of `channels` channels (plane 0 of a gray image serves all).
std::vector<std::uint32_t> plane_of(const std::vector<std::uint32_t>& samples, int channels,
                                    int k) {
    std::vector<std::uint32_t> out;
    const auto step = static_cast<std::size_t>(channels);
    for (std::size_t i = static_cast<std::size_t>(channels == 1 ? 0 : k); i < samples.size();
         i += step)
        out.push_back(samples[i]);
    return out;
}

// R, G, B planes (in that order) of a photo as OpenCV reads it, or its gray plane.
std::vector<std::vector<std::uint32_t>> photo_planes(const std::string& path) {
    const cv::Mat m = cv::imread(path, cv::IMREAD_UNCHANGED);
    std::vector<std::vector<std::uint32_t>> planes(static_cast<std::size_t>(m.channels()));
    for (int y = 0; y < m.rows; ++y)
        for (int x = 0; x < m.cols; ++x)
            for (int c = 0; c < m.channels(); ++c) {
                const int rgb = m.channels() == 1 ? 0 : 2 - c;  // B, G, R in the file
                const std::size_t at = static_cast<std::size_t>(x * m.channels() + c);
                planes[static_cast<std::size_t>(rgb)].push_back(
                    m.depth() == CV_8U ? m.ptr<std::uint8_t>(y)[at] : m.ptr<std::uint16_t>(y)[at]);
            }
    return planes;
}

// Histogram matching written out: image value v goes to the smallest reference value u whose
// share of reference samples at or below it reaches v's share of image samples at or below it,
// written at the image's depth as the nearest value of the same fraction of full scale.
std::vector<std::uint32_t> matched_by_definition(const std::vector<std::uint32_t>& image, int depth,
                                                 const std::vector<std::uint32_t>& reference,
                                                 int reference_depth) {
    std::vector<std::uint64_t> hi(std::size_t{1} << depth), hr(std::size_t{1} << reference_depth);
    for (std::uint32_t v : image) ++hi[v];
    for (std::uint32_t u : reference) ++hr[u];
    const long double ni = static_cast<long double>(image.size()),
                      nr = static_cast<long double>(reference.size());
    std::vector<std::uint32_t> lut(hi.size());
    std::uint64_t ci = 0, cr = 0;
    std::size_t u = 0;
    cr = hr[0];
    for (std::size_t v = 0; v < hi.size(); ++v) {
        ci += hi[v];
        // Exact: both products are integers below 2^64.
        while (static_cast<long double>(cr) * ni < static_cast<long double>(ci) * nr) cr += hr[++u];
        lut[v] = static_cast<std::uint32_t>(
            std::llround(static_cast<long double>(u) * (std::ldexp(1.0L, depth) - 1) /
                         (std::ldexp(1.0L, reference_depth) - 1)));
    }
    std::vector<std::uint32_t> out;
    for (std::uint32_t v : image) out.push_back(lut[v]);
    return out;
}

}  // namespace

TEST(CliCodedVideo, InfoSaysTheCodedDepthPixelsMatrixRangeAndTransfer) {
    const TenBitClip t;
    ASSERT_EQ(t.error, "");
    const auto text = run_cli("info " + quote(t.path));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.err, "");
    for (const std::string line :
         {"depth:    10-bit (u16 samples)", "frames:   6 (counted: the container stores no count)",
          "coded:    10-bit yuv420p10le (Y'CbCr 4:2:0)", "matrix:   bt709\n", "range:    limited\n",
          "transfer: bt709\n"})
        EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;
    EXPECT_EQ(text.out.find("note:"), std::string::npos) << "an intact file:\n" << text.out;

    const auto r = run_cli("info " + quote(t.path) + " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("depth"), 10);
    EXPECT_EQ(j.at("sample_type"), "u16");
    EXPECT_EQ(j.at("frames"), 6);
    EXPECT_EQ(j.at("frames_in_file"), 6);
    EXPECT_EQ(j.at("frames_counted"), true);
    EXPECT_EQ(j.at("pixel_format"), "yuv420p10le");
    EXPECT_EQ(j.at("coded_depth"), 10);
    EXPECT_EQ(j.at("chroma"), "4:2:0");
    EXPECT_EQ(j.at("matrix"), "bt709");
    EXPECT_EQ(j.at("range"), "limited");
    EXPECT_EQ(j.at("range_assumed"), false);
    EXPECT_EQ(j.at("transfer"), "bt709");
    EXPECT_EQ(j.at("rgb_conversion"), "exact");
    EXPECT_TRUE(j.at("alpha").is_null());
    EXPECT_TRUE(j.at("notes").empty());

    // An 8-bit clip at full range says so, and stays 8-bit.
    CodedClip eight;
    eight.depth = 8;
    eight.pix_fmt = "yuv420p";
    const fs::path full = t.scratch.path / "full.mkv";
    ASSERT_EQ(encode_clip(eight, full, "-c:v ffv1 -color_range pc"), "");
    const auto f = run_cli("info " + quote(full) + " --format json");
    ASSERT_EQ(f.exit_code, 0) << f.err;
    const auto fj = parse_json(f.out);
    EXPECT_EQ(fj.at("depth"), 8);
    EXPECT_EQ(fj.at("range"), "full");
    EXPECT_EQ(fj.at("matrix_assumed"), true);
    // Its R, G, B are OpenCV's, whatever its matrix: info and the JSON say so.
    EXPECT_EQ(fj.at("rgb_conversion"), "opencv");
    const auto ft = run_cli("info " + quote(full));
    EXPECT_NE(ft.out.find("rgb:      as OpenCV converts 8-bit video"), std::string::npos) << ft.out;
}

TEST(CliCodedVideo, HistCountsThePlanesAndTheColoursOfAFrameExactly) {
    const TenBitClip t;
    ASSERT_EQ(t.error, "");
    const auto r = run_cli("hist " + quote(t.path) +
                           " --frame 2 --channels y,cb,cr,r,g,b --bins 1024 --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("depth"), 10);
    EXPECT_EQ(j.at("range"), "limited");
    EXPECT_EQ(j.at("matrix"), "bt709");
    EXPECT_EQ(j.at("spec").at("range"), hs::cli::Json::array({0, 1024}));
    const auto& ch = j.at("channels");
    ASSERT_EQ(ch.size(), 6u);
    const char* names[] = {"y", "cb", "cr", "r", "g", "b"};
    for (int k = 0; k < 6; ++k) EXPECT_EQ(ch[static_cast<std::size_t>(k)].at("name"), names[k]);
    EXPECT_EQ(ch[0].at("width"), 96);
    EXPECT_EQ(ch[0].at("height"), 64);
    EXPECT_EQ(ch[1].at("width"), 48);
    EXPECT_EQ(ch[2].at("height"), 32);
    for (int p = 0; p < 3; ++p)
        EXPECT_EQ(counts_of(ch[static_cast<std::size_t>(p)]), t.clip.plane_counts(p, 2)) << p;
    for (int c = 0; c < 3; ++c)
        EXPECT_EQ(counts_of(ch[static_cast<std::size_t>(3 + c)]),
                  rgb_counts(t.clip, c, 2, "bt709", false))
            << names[3 + c];

    // Text and CSV name the planes as columns, in the order listed.
    const auto csv = run_cli("hist " + quote(t.path) + " --channels cr,g --bins 4 --format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "bin,lower,upper,cr,g");
    const auto text = run_cli("hist " + quote(t.path) + " --channels y --bins 4");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("# coded yuv420p10le, Y'CbCr 4:2:0, matrix bt709, limited range"),
              std::string::npos)
        << text.out;
}

TEST(CliCodedVideo, ARegionCountsTheChromaSamplesItCovers) {
    const TenBitClip t;
    ASSERT_EQ(t.error, "");
    // Pixels 11..40 x 7..26: chroma samples 5..20 x 3..13 hold some of them.
    const auto r = run_cli("hist " + quote(t.path) +
                           " --frame 1 --roi 11,7,30,20 --channels y,cb --bins 1024 --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    const auto& ch = j.at("channels");
    ASSERT_EQ(ch.size(), 2u);
    EXPECT_EQ(counts_of(ch[0]), t.clip.plane_counts(0, 1, 11, 7, 41, 27));
    EXPECT_EQ(ch[1].at("width"), 16);
    EXPECT_EQ(ch[1].at("height"), 11);
    EXPECT_EQ(counts_of(ch[1]), t.clip.plane_counts(1, 1, 5, 3, 21, 14));
}

TEST(CliCodedVideo, PerFrameCountsEveryFrameWithOrWithoutTheStream) {
    const TenBitClip t;
    ASSERT_EQ(t.error, "");
    // Planes beside the image's channels (through the frame stream), and planes alone.
    for (const std::string channels : {"cr,r,y", "cb"}) {
        const auto r = run_cli("hist " + quote(t.path) + " --per-frame --channels " + channels +
                               " --bins 1024 --format json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(r.err, "");
        const auto j = parse_json(r.out);
        EXPECT_EQ(j.at("coded_depth"), 10);
        const auto& frames = j.at("frames");
        ASSERT_EQ(frames.size(), 6u);
        for (int f = 0; f < 6; ++f) {
            const auto& row = frames[static_cast<std::size_t>(f)];
            EXPECT_EQ(row.at("frame"), f);
            EXPECT_EQ(row.at("status"), "ok");
            const auto& ch = row.at("channels");
            if (channels == "cb") {
                ASSERT_EQ(ch.size(), 1u);
                EXPECT_EQ(counts_of(ch[0]), t.clip.plane_counts(1, f)) << f;
                continue;
            }
            ASSERT_EQ(ch.size(), 3u);
            EXPECT_EQ(ch[0].at("name"), "cr");
            EXPECT_EQ(counts_of(ch[0]), t.clip.plane_counts(2, f)) << f;
            EXPECT_EQ(counts_of(ch[1]), rgb_counts(t.clip, 0, f, "bt709", false)) << f;
            EXPECT_EQ(counts_of(ch[2]), t.clip.plane_counts(0, f)) << f;
        }
        EXPECT_EQ(j.at("summary").at("ok"), 6);
    }
    const auto csv =
        run_cli("hist " + quote(t.path) + " --per-frame --channels y,b --bins 2 --format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "frame,status,y_0,y_1,b_0,b_1");
    // "all" beside planes and other channels: the frame's channels in its place, each once.
    const auto all =
        run_cli("hist " + quote(t.path) + " --per-frame --channels g,y,all,luma --bins 1 " +
                "--frames 1 --format csv");
    ASSERT_EQ(all.exit_code, 0) << all.err;
    EXPECT_EQ(all.out.substr(0, all.out.find('\n')), "frame,status,g_0,y_0,r_0,b_0,luma_0");
    const auto one = run_cli("hist " + quote(t.path) +
                             " --frame 1 --channels cb,all,b --bins 1024 --format json");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    const auto ch = parse_json(one.out).at("channels");
    ASSERT_EQ(ch.size(), 4u);
    const char* names[] = {"cb", "r", "g", "b"};
    for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(ch[k].at("name"), names[k]) << k;
    EXPECT_EQ(counts_of(ch[0]), t.clip.plane_counts(1, 1));
    EXPECT_EQ(counts_of(ch[3]), rgb_counts(t.clip, 2, 1, "bt709", false));
}

// The waveform of a video's coded plane (scope --channel y, cb, cr): the plane's code values
// column by column over the frame's depth, as a gray image's, of the samples of the region.
TEST(CliCodedVideo, ScopeDrawsTheWaveformOfACodedPlane) {
    const TenBitClip t;
    ASSERT_EQ(t.error, "");
    const CodedClip& c = t.clip;
    // counts[x][level] of plane `plane` of frame 2 over [x0, x1) x [y0, y1).
    const auto waveform = [&](int plane, int x0, int y0, int x1, int y1, int columns, int levels) {
        std::vector<std::vector<std::uint64_t>> out(
            static_cast<std::size_t>(columns),
            std::vector<std::uint64_t>(static_cast<std::size_t>(levels)));
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x)
                ++out[static_cast<std::size_t>((x - x0) * columns / (x1 - x0))]
                     [(c.value(plane, x, y, 2) * static_cast<std::uint32_t>(levels)) >> c.depth];
        return out;
    };
    const auto counts = [](const hs::cli::Json& plane) {
        std::vector<std::vector<std::uint64_t>> out;
        for (const auto& column : plane.at("counts"))
            out.push_back(column.get<std::vector<std::uint64_t>>());
        return out;
    };
    const auto y = run_cli("scope " + quote(t.path) +
                           " --frame 2 --channel y --columns 5 --levels 8 --format json");
    ASSERT_EQ(y.exit_code, 0) << y.err;
    const auto yj = parse_json(y.out);
    EXPECT_EQ(yj.at("scope").at("channel"), "y");
    EXPECT_EQ(yj.at("image_channels"), 3);
    ASSERT_EQ(yj.at("planes").size(), 1u);
    EXPECT_EQ(yj.at("planes")[0].at("name"), "y");
    EXPECT_EQ(counts(yj.at("planes")[0]), waveform(0, 0, 0, c.width, c.height, 5, 8));
    // Chroma at its subsampled size: the samples that hold any pixel of the region.
    const auto cb = run_cli("scope " + quote(t.path) +
                            " --frame 2 --channel cb --roi 11,7,30,20 --levels 16 --format json");
    ASSERT_EQ(cb.exit_code, 0) << cb.err;
    const auto cbj = parse_json(cb.out);
    EXPECT_EQ(cbj.at("planes")[0].at("name"), "cb");
    EXPECT_EQ(counts(cbj.at("planes")[0]), waveform(1, 5, 3, 21, 14, 16, 16));

    expect_refused(run_cli("scope " + quote(t.path) + " --channel y --kind parade"), "parade",
                   "--channel applies to waveforms, not to a parade", 2);
    expect_refused(run_cli("scope " + quote(sample("fruits.jpg")) + " --channel cr"), "photo",
                   "is a photo", 2);
}

// A clip of one rate with B-frames remuxed to MP4: its clock of 16000 ticks a second rounds the
// frames' times, and FFmpeg's average over them is not 24. info gives the nominal rate and says
// so, and the equalized clip is written at 24/1.
TEST(CliCodedVideo, TheNominalRateIsInfosAndTheEqualizedClips) {
    const Scratch scratch("nominal-rate");
    CodedClip clip;
    clip.frames = 24;
    const fs::path mkv = scratch.path / "clip.mkv", mp4 = scratch.path / "clip.mp4",
                   out = scratch.path / "eq.mkv";
    ASSERT_EQ(encode_clip(clip, mkv, std::string(kLosslessHevc) + ":bframes=3"), "");
    ASSERT_EQ(run_command("ffmpeg -nostdin -loglevel error -y -i " + quote(mkv) + " -c copy " +
                          quote(mp4))
                  .exit_code,
              0);
    const auto text = run_cli("info " + quote(mp4));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("fps:      24 (nominal)\n"), std::string::npos) << text.out;
    const auto json = run_cli("info " + quote(mp4) + " --format json");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto j = parse_json(json.out);
    EXPECT_EQ(j.at("fps"), 24);
    EXPECT_EQ(j.at("fps_nominal"), true);

    const auto eq = run_cli("equalize " + quote(mp4) + " -o " + quote(out));
    ASSERT_EQ(eq.exit_code, 0) << eq.err;
    const auto rate = run_command(
        "ffprobe -v error -select_streams v -show_entries stream=r_frame_rate,avg_frame_rate "
        "-of csv=p=0 " +
        quote(out));
    EXPECT_EQ(rate.out, "24/1,24/1\n");
}

TEST(CliCodedVideo, PlanesAreRefusedWhereThereAreNone) {
    const TenBitClip t;
    ASSERT_EQ(t.error, "");
    expect_refused(run_cli("hist " + quote(sample("fruits.jpg")) + " --channels y"), "photo",
                   "is a photo", 2);
    expect_refused(run_cli("hist " + quote(sample("tree.avi")) + " --channels cb"), "rgb24",
                   "is coded rgb24, without them", 2);
    expect_refused(run_cli("hist " + quote(t.path) + " --channels y,cr,y"), "twice",
                   "channel 'y' is listed twice", 2);
    expect_refused(run_cli("bench " + quote(t.path) + " --select y"), "bench",
                   "are counted by hist", 2);
    // A deep clip's equalized frames go to .mkv (FFV1) or raw files, not to a lossy container.
    expect_refused(run_cli("equalize " + quote(t.path) + " --per-frame -o " +
                           quote(t.scratch.path / "out.mp4")),
                   "deep to mp4",
                   "frames deeper than 8 bits (96x64x3 u16/10) are written losslessly as FFV1 in "
                   "a .mkv file, or to a .raw file",
                   2);
    EXPECT_FALSE(fs::exists(t.scratch.path / "out.mp4"));
}

// A matrix without a conversion to R, G, B: its planes count, its colours are refused.
TEST(CliCodedVideo, AYCgCoClipCountsItsPlanesAndRefusesRgb) {
    Scratch scratch("coded-ycgco");
    CodedClip clip;
    clip.frames = 2;
    const fs::path path = scratch.path / "ycgco.mkv";
    ASSERT_EQ(encode_clip(clip, path, "-c:v ffv1 -level 3 -colorspace ycgco"), "");
    const auto info = run_cli("info " + quote(path) + " --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(parse_json(info.out).at("matrix"), "ycgco");
    const auto planes = run_cli("hist " + quote(path) + " --channels cr --bins 1024 --format json");
    ASSERT_EQ(planes.exit_code, 0) << planes.err;
    EXPECT_EQ(counts_of(parse_json(planes.out).at("channels")[0]), clip.plane_counts(2, 0));
    expect_refused(run_cli("hist " + quote(path) + " --channels r"), "ycgco to rgb",
                   "no conversion to R, G, B for the Y'CbCr matrix 'ycgco'");
}

TEST(CliCodedVideo, BenchEqualizeAndScopeTakeDeepClips) {
    const TenBitClip t;
    ASSERT_EQ(t.error, "");
    const auto bench = run_cli("bench " + quote(t.path) + " --format json");
    ASSERT_EQ(bench.exit_code, 0) << bench.err;
    const auto b = parse_json(bench.out);
    EXPECT_EQ(b.at("depth"), 10);
    EXPECT_EQ(b.at("ok"), 6);
    EXPECT_EQ(b.at("verified"), true);

    const fs::path raw = t.scratch.path / "eq.raw";
    const auto eq = run_cli("equalize " + quote(t.path) + " --per-frame -o " + quote(raw));
    ASSERT_EQ(eq.exit_code, 0) << eq.err;
    EXPECT_EQ(fs::file_size(raw), std::uintmax_t{6} * 96 * 64 * 3 * 2);
    // Its frames are 10-bit frames: raw input of that format takes them.
    const auto back = run_cli("info --raw 96x64x3:u16:10 " + quote(raw) + " --format json");
    ASSERT_EQ(back.exit_code, 0) << back.err;
    EXPECT_EQ(parse_json(back.out).at("frames"), 6);
    // The same equalization to a .mkv: FFV1 keeps every sample, so it reads back as the raw
    // frames, at 10 bits.
    const fs::path mkv = t.scratch.path / "eq.mkv";
    const auto eq_mkv = run_cli("equalize " + quote(t.path) + " --per-frame -o " + quote(mkv));
    ASSERT_EQ(eq_mkv.exit_code, 0) << eq_mkv.err;
    {
        hs::media::VideoReader video(mkv.string());
        EXPECT_EQ(video.coding().pixel_format, "gbrp10le");
        // The clip's transfer and primaries go with its frames.
        EXPECT_EQ(video.coding().transfer, "bt709");
        EXPECT_EQ(video.coding().primaries, "bt709");
        ASSERT_EQ(video.frame_format(), (hs::FrameFormat{96, 64, 3, hs::SampleType::U16, 10}));
        std::ifstream in(raw, std::ios::binary);
        const std::size_t frame_bytes = std::size_t{96} * 64 * 3 * 2;
        std::string want(frame_bytes, '\0');
        hs::Image frame;
        for (int f = 0; f < 6; ++f) {
            ASSERT_EQ(video.read_frame(frame), hs::media::VideoReader::FrameStatus::Ok)
                << video.failure();
            ASSERT_TRUE(in.read(want.data(), static_cast<std::streamsize>(frame_bytes)));
            EXPECT_EQ(std::memcmp(frame.view().data, want.data(), frame_bytes), 0) << f;
        }
        EXPECT_EQ(video.read_frame(frame), hs::media::VideoReader::FrameStatus::End);
    }

    const auto scope = run_cli("scope " + quote(t.path) +
                               " --kind parade --levels 1024 --columns 2 --format json");
    ASSERT_EQ(scope.exit_code, 0) << scope.err;
    const auto s = parse_json(scope.out);
    EXPECT_EQ(s.at("depth"), 10);
    // Column totals: every pixel of the frame in some level of each plane.
    std::uint64_t total = 0;
    for (const auto& column : s.at("planes")[0].at("counts"))
        for (const auto& n : column) total += n.get<std::uint64_t>();
    EXPECT_EQ(total, 96u * 64u);
}

// At most one bin per code value of the samples' depth, for a video's frames and planes as for
// photos and raw frames: more is refused (exit 2, one line) by every command that counts bins.
TEST(CliCodedVideo, MoreBinsThanCodeValuesAreRefusedForVideoAsForPhotos) {
    const TenBitClip t;
    ASSERT_EQ(t.error, "");
    const std::string ten = "--bins 2048: more bins than the 1024 code values of 10-bit samples";
    for (const std::string& options :
         {std::string(" --bins 2048"), std::string(" --bins 2048 --channels y,cb"),
          std::string(" --bins 2048 --per-frame"),
          std::string(" --bins 2048 --per-frame --channels cr"),
          std::string(" --bins 2048 --range 0:4096")})
        expect_refused(run_cli("hist " + quote(t.path) + options), options, ten, 2);
    expect_refused(
        run_cli("bench " + quote(t.path) + " --frame 1 --bins 2048 --runs 20 --warmup 0"),
        "bench of a frame", ten, 2);
    const auto full =
        run_cli("hist " + quote(t.path) + " --bins 1024 --channels y,r --format json");
    ASSERT_EQ(full.exit_code, 0) << full.err;
    EXPECT_EQ(parse_json(full.out).at("spec").at("bins"), 1024);

    // Photos and raw frames by the same rule: 8, 12 (declared) and 16 bits.
    const Scratch scratch("bins");
    const fs::path raw =
        write_raw_file(uniform(16, 8, 3, hs::SampleType::U16, 12), scratch.path / "deep.raw");
    expect_refused(run_cli("hist " + quote(sample("fruits.jpg")) + " --bins 512"), "8-bit photo",
                   "--bins 512: more bins than the 256 code values of 8-bit samples", 2);
    expect_refused(run_cli("hist --raw 16x8x3:u16:12 " + quote(raw) + " --bins 8192"), "12-bit raw",
                   "--bins 8192: more bins than the 4096 code values of 12-bit samples", 2);
    expect_refused(run_cli("hist " + quote(sample("moon_4k_16bit.png")) + " --bins 65537"),
                   "16-bit photo", "--bins 65537: more bins than the 65536 code values", 2);
    const auto raw_ok =
        run_cli("hist --raw 16x8x3:u16:12 " + quote(raw) + " --bins 4096 --format csv");
    EXPECT_EQ(raw_ok.exit_code, 0) << raw_ok.err;
}

// HEVC with B-frames and open GOPs, remuxed from Matroska to MP4 (an index of decoding times
// on a clock of 16000 ticks a second): --frame N and the rows of --per-frame count the N-th
// frame the ffmpeg tool decodes, as its select filter numbers them.
TEST(CliCodedVideo, FrameNOfABFrameMp4IsTheNthFrameFfmpegDecodes) {
    Scratch scratch("coded-bframes");
    CodedClip clip;
    clip.frames = 16;
    const fs::path mkv = scratch.path / "clip.mkv", mp4 = scratch.path / "clip.mp4";
    ASSERT_EQ(encode_clip(clip, mkv,
                          std::string(kLosslessHevc) +
                              ":keyint=8:min-keyint=8:bframes=3:b-adapt=0:open-gop=1"),
              "");
    const auto remux = run_command("ffmpeg -nostdin -loglevel error -y -i " + quote(mkv) +
                                   " -c copy " + quote(mp4));
    ASSERT_EQ(remux.exit_code, 0) << remux.err;
    // The Y' plane of each frame the ffmpeg tool decodes, in its order.
    const std::vector<std::uint8_t> decoded = ffmpeg_decode(mp4, "yuv420p10le");
    const std::size_t frame_bytes = decoded.size() / 16, luma = 96 * 64;
    ASSERT_EQ(frame_bytes * 16, decoded.size());
    const auto ffmpeg_counts = [&](int f) {
        std::vector<std::uint64_t> counts(1024);
        const std::uint8_t* y = decoded.data() + frame_bytes * static_cast<std::size_t>(f);
        for (std::size_t i = 0; i < luma; ++i) ++counts[y[2 * i] | (y[2 * i + 1] & 3) << 8];
        return counts;
    };
    for (const int f : {6, 7, 2, 15, 0, 9}) {
        const auto r = run_cli("hist " + quote(mp4) + " --frame " + std::to_string(f) +
                               " --channels y --bins 1024 --format json");
        ASSERT_EQ(r.exit_code, 0) << f << ": " << r.err;
        EXPECT_EQ(counts_of(parse_json(r.out).at("channels")[0]), ffmpeg_counts(f))
            << "frame " << f;
    }
    const auto per =
        run_cli("hist " + quote(mp4) + " --per-frame --channels y --bins 1024 --format json");
    ASSERT_EQ(per.exit_code, 0) << per.err;
    const auto rows = parse_json(per.out).at("frames");
    ASSERT_EQ(rows.size(), 16u);
    for (int f = 0; f < 16; ++f) {
        const auto& row = rows[static_cast<std::size_t>(f)];
        ASSERT_EQ(row.at("frame"), f);
        ASSERT_EQ(row.at("status"), "ok") << per.err;
        EXPECT_EQ(counts_of(row.at("channels")[0]), ffmpeg_counts(f)) << "row " << f;
    }
}

// A 10-bit HEVC clip whose only key frame is damaged (lossy, its key frame's data overwritten
// with bits all set): no frame decodes whole, so that it is refused without --allow-corrupt;
// with it, every frame has its row, those decoded from the damaged data kept and marked.
// A clip whose first group of pictures is damaged is described all the same: info gives its
// frames, rate and coding (from the first frame that decodes, frame 12) and notes the damaged
// start, as hist --per-frame reports the frames before it failed.
TEST(CliCodedVideo, InfoDescribesAClipWhoseFirstFramesAreDamaged) {
    Scratch scratch("coded-first-group");
    CodedClip clip;
    clip.frames = 24;
    const fs::path whole = scratch.path / "clip.mkv", damaged = scratch.path / "damaged.mkv";
    ASSERT_EQ(
        encode_clip(clip, whole, std::string(kLosslessHevc) + ":keyint=12:min-keyint=12:bframes=0"),
        "");
    const std::vector<PacketSpan> packets = video_packets(whole);
    ASSERT_EQ(packets.size(), 24u);
    ASSERT_GT(packets[0].size, 1500u);
    std::string bytes = slurp(whole);
    bytes.replace(packets[0].pos + 300, 1000, 1000, '\xff');
    { std::ofstream(damaged, std::ios::binary) << bytes; }

    const auto per = run_cli("hist " + quote(damaged) + " --per-frame --format json");
    ASSERT_EQ(per.exit_code, 0) << per.err;
    const auto rows = parse_json(per.out).at("frames");
    ASSERT_EQ(rows.size(), 24u);
    for (std::size_t f = 0; f < rows.size(); ++f)
        EXPECT_EQ(rows[f].at("status"), f < 12 ? "failed" : "ok") << f;

    const auto json = run_cli("info " + quote(damaged) + " --format json");
    ASSERT_EQ(json.exit_code, 0) << json.err;
    EXPECT_TRUE(only_our_lines(json.err)) << json.err;
    const auto j = parse_json(json.out);
    EXPECT_EQ(j.at("frames"), 24);
    EXPECT_EQ(j.at("fps"), 24);
    EXPECT_EQ(j.at("pixel_format"), "yuv420p10le");
    EXPECT_EQ(j.at("corrupt"), false);
    bool noted = false;
    for (const auto& note : j.at("notes")) {
        const std::string n = note.get<std::string>();
        noted = noted ||
                (n.rfind("its first 12 frames cannot be read (the first: frame 0 of ", 0) == 0 &&
                 n.find("); frame 12 is the first that decodes") != std::string::npos);
    }
    EXPECT_TRUE(noted) << json.out;
    const auto text = run_cli("info " + quote(damaged));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("frame 12 is the first that decodes"), std::string::npos) << text.out;
}

namespace {

// The presentation times of the video packets of `clip` as ffprobe gives them, ascending.
std::vector<double> packet_times(const fs::path& clip) {
    const auto r = run_command(
        "ffprobe -v error -select_streams v:0 -show_entries packet=pts_time -of csv=p=0 " +
        quote(clip));
    std::vector<double> times;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);)
        if (!line.empty()) times.push_back(std::stod(line));
    std::sort(times.begin(), times.end());
    return times;
}

// The mean absolute difference between the samples of two frames of one shape.
double mean_difference(const hs::Image& a, const hs::Image& b) {
    const hs::ImageView va = a.view(), vb = b.view();
    double sum = 0.0;
    for (int y = 0; y < va.height; ++y) {
        const auto* ra = reinterpret_cast<const std::uint8_t*>(va.row(y));
        const auto* rb = reinterpret_cast<const std::uint8_t*>(vb.row(y));
        for (std::size_t x = 0; x < va.row_bytes(); ++x) sum += std::abs(ra[x] - rb[x]);
    }
    return sum / static_cast<double>(va.row_bytes() * static_cast<std::size_t>(va.height));
}

}  // namespace

// equalize keeps each frame's presentation time: the frames that fail to decode (a damaged
// group of pictures, frames 8 to 15) leave a gap in .mkv and .mp4, the frames after it at their
// own times, and are the frame before them repeated in .avi, whose frames all last one period;
// a variable rate (24 fps, then 12) keeps its times.
TEST(CliCodedVideo, EqualizeKeepsEachFramesTime) {
    Scratch scratch("eq-times");
    CodedClip clip;
    clip.frames = 24;
    clip.depth = 8;
    clip.pix_fmt = "yuv420p";
    const fs::path whole = scratch.path / "clip.mkv", damaged = scratch.path / "damaged.mkv",
                   vfr = scratch.path / "vfr.mkv";
    ASSERT_EQ(
        encode_clip(clip, whole, std::string(kLosslessHevc) + ":keyint=8:min-keyint=8:bframes=0"),
        "");
    const std::vector<PacketSpan> packets = video_packets(whole);
    ASSERT_EQ(packets.size(), 24u);
    ASSERT_GT(packets[8].size, 1500u);
    std::string bytes = slurp(whole);
    bytes.replace(packets[8].pos + 300, 1000, 1000, '\xff');
    { std::ofstream(damaged, std::ios::binary) << bytes; }
    const auto per = run_cli("hist " + quote(damaged) + " --per-frame --format json");
    ASSERT_EQ(per.exit_code, 0) << per.err;
    const auto rows = parse_json(per.out).at("frames");
    ASSERT_EQ(rows.size(), 24u);
    for (std::size_t f = 0; f < rows.size(); ++f)
        ASSERT_EQ(rows[f].at("status"), f >= 8 && f < 16 ? "failed" : "ok") << f;

    for (const std::string ext : {"mkv", "mp4"}) {
        const fs::path out = scratch.path / ("eq." + ext);
        const auto eq = run_cli("equalize " + quote(damaged) + " -o " + quote(out));
        ASSERT_EQ(eq.exit_code, 0) << eq.err;
        const std::vector<double> times = packet_times(out);
        ASSERT_EQ(times.size(), 16u) << ext;
        for (std::size_t i = 0; i < times.size(); ++i) {
            const double frame = static_cast<double>(i < 8 ? i : i + 8);
            EXPECT_NEAR(times[i], frame / 24, 1e-3) << ext << " " << i;
        }
    }
    const fs::path avi = scratch.path / "eq.avi";
    const auto eq = run_cli("equalize " + quote(damaged) + " -o " + quote(avi));
    ASSERT_EQ(eq.exit_code, 0) << eq.err;
    const std::vector<double> times = packet_times(avi);
    ASSERT_EQ(times.size(), 24u);
    for (std::size_t i = 0; i < times.size(); ++i)
        EXPECT_NEAR(times[i], static_cast<double>(i) / 24, 1e-3) << i;
    std::vector<hs::Image> frames;
    hs::media::VideoReader back(avi.string());
    for (hs::Image frame; back.read_frame(frame) == hs::media::VideoReader::FrameStatus::Ok;)
        frames.push_back(std::move(frame));
    ASSERT_EQ(frames.size(), 24u);
    // Frames of value()'s noise differ by a third of the range; one frame encoded again, by
    // the rate control's rounding at most.
    for (std::size_t f = 8; f < 16; ++f) EXPECT_LT(mean_difference(frames[f], frames[7]), 2.0) << f;
    EXPECT_GT(mean_difference(frames[16], frames[7]), 20.0);

    ASSERT_EQ(encode_clip(clip, vfr,
                          "-vf \"setpts=(N+max(N-8\\,0))/24/TB\" -vsync vfr " +
                              std::string(kLosslessHevc) + ":bframes=0"),
              "");
    const std::vector<double> in_times = packet_times(vfr);
    ASSERT_EQ(in_times.size(), 24u);
    ASSERT_NEAR(in_times.back(), 38.0 / 24, 1e-3);
    const fs::path out = scratch.path / "eq_vfr.mkv";
    const auto eq_vfr = run_cli("equalize " + quote(vfr) + " -o " + quote(out));
    ASSERT_EQ(eq_vfr.exit_code, 0) << eq_vfr.err;
    const std::vector<double> out_times = packet_times(out);
    ASSERT_EQ(out_times.size(), 24u);
    for (std::size_t i = 0; i < out_times.size(); ++i)
        EXPECT_NEAR(out_times[i], in_times[i], 1e-3) << i;
}

// A gap an .avi file could hold only as more repeated frames than the writer makes (a frame
// 3000 s after the one before it, at 24 fps) is one error, and nothing is written; .mkv holds it.
TEST(CliCodedVideo, AGapAnAviCannotHoldIsOneError) {
    Scratch scratch("eq-gap");
    CodedClip clip;
    clip.frames = 3;
    clip.depth = 8;
    clip.pix_fmt = "yuv420p";
    const fs::path whole = scratch.path / "clip.mkv", far = scratch.path / "far.mkv",
                   avi = scratch.path / "eq.avi", mkv = scratch.path / "eq.mkv";
    ASSERT_EQ(encode_clip(clip, whole, std::string(kLosslessHevc) + ":bframes=0"), "");
    const auto copy =
        run_command("ffmpeg -nostdin -loglevel error -y -i " + quote(whole) +
                    " -c copy -bsf:v \"setts=ts=if(eq(N\\,2)\\,3000000\\,N*40)\" " + quote(far));
    ASSERT_EQ(copy.exit_code, 0) << copy.err;
    ASSERT_EQ(packet_times(far), (std::vector<double>{0.0, 0.04, 3000.0}));

    expect_refused(run_cli("equalize " + quote(far) + " -o " + quote(avi)), "equalize to .avi",
                   "a gap of 71998 frame periods before a frame");
    EXPECT_FALSE(fs::exists(avi));
    const auto eq = run_cli("equalize " + quote(far) + " -o " + quote(mkv));
    ASSERT_EQ(eq.exit_code, 0) << eq.err;
    // On the grid of the clip's rate, 24 fps.
    const std::vector<double> times = packet_times(mkv);
    ASSERT_EQ(times.size(), 3u);
    EXPECT_NEAR(times[1], 1.0 / 24, 1e-3);
    EXPECT_NEAR(times[2], 3000.0, 1e-3);
}

TEST(CliCodedVideo, AClipWhoseOnlyKeyFrameIsDamagedIsReadWithAllowCorrupt) {
    Scratch scratch("coded-keyless");
    CodedClip clip;
    clip.frames = 12;
    const fs::path whole = scratch.path / "clip.mkv", damaged = scratch.path / "damaged.mkv";
    ASSERT_EQ(encode_clip(clip, whole, "-c:v libx265 -x265-params bframes=3:log-level=error"), "");
    const std::vector<PacketSpan> packets = video_packets(whole);
    ASSERT_EQ(packets.size(), 12u);
    ASSERT_GT(packets[0].size, 1500u);
    std::string bytes = slurp(whole);
    bytes.replace(packets[0].pos + 300, 1000, 1000, '\xff');
    { std::ofstream(damaged, std::ios::binary) << bytes; }

    for (const std::string& command : {"hist " + quote(damaged) + " --per-frame --format json",
                                       "hist " + quote(damaged), "info " + quote(damaged)})
        expect_refused(run_cli(command), command, quote(damaged) + " holds no frame that decodes");

    const auto per = run_cli("hist " + quote(damaged) +
                             " --per-frame --allow-corrupt --channels y --bins 1024 --format json");
    ASSERT_EQ(per.exit_code, 0) << per.err;
    EXPECT_TRUE(only_our_lines(per.err)) << per.err;
    const auto doc = parse_json(per.out);
    const auto& rows = doc.at("frames");
    ASSERT_EQ(rows.size(), 12u);
    std::int64_t corrupt = 0;
    for (std::size_t f = 0; f < rows.size(); ++f) {
        EXPECT_EQ(rows[f].at("frame"), f);
        const std::string status = rows[f].at("status").get<std::string>();
        EXPECT_TRUE(status == "corrupt" || status == "failed") << status;
        EXPECT_NE(
            rows[f].at("reason").get<std::string>().find("frame " + std::to_string(f) + " of "),
            std::string::npos);
        if (status == "corrupt") {
            ++corrupt;
            EXPECT_EQ(rows[f].at("channels")[0].at("total"), 96 * 64);
        }
    }
    EXPECT_GE(corrupt, 1);
    EXPECT_EQ(doc.at("summary").at("frames"), 12);
    EXPECT_EQ(doc.at("summary").at("corrupt"), corrupt);
    EXPECT_EQ(doc.at("summary").at("failed"), 12 - corrupt);

    const auto info = run_cli("info " + quote(damaged) + " --allow-corrupt --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    EXPECT_EQ(parse_json(info.out).at("frames"), 12);
}

// A deep frame written as a photo: PNG and TIFF hold each sample as its bit replication to 16
// bits (v << (16 - d) | v >> (2d - 16)), as OpenCV reads them, so that other viewers show the
// picture at its brightness; the PNG records the depth in sBIT and reads back at it, sample for
// sample, as the .raw frame the same command writes unscaled.
TEST(CliCodedVideo, DeepFramesGoToPngAndTiffAsBitReplicationsAndPngKeepsTheDepth) {
    const TenBitClip ten;
    ASSERT_EQ(ten.error, "");
    CodedClip twelve;  // ProRes 4444: 12-bit with alpha, four channels
    twelve.depth = 12;
    twelve.alpha = true;
    twelve.shift_x = twelve.shift_y = 0;
    twelve.pix_fmt = "yuva444p12le";
    const fs::path twelve_path = ten.scratch.path / "alpha12.mov";
    ASSERT_EQ(encode_clip(twelve, twelve_path, "-c:v prores_ks -profile:v 4444"), "");

    for (const auto& [clip, depth, channels] :
         {std::tuple{ten.path, 10, 3}, std::tuple{twelve_path, 12, 4}}) {
        const std::string tag = std::to_string(depth) + "-bit";
        const fs::path raw = ten.scratch.path / (tag + ".raw");
        const fs::path png = ten.scratch.path / (tag + ".png");
        const fs::path tif = ten.scratch.path / (tag + ".tif");
        for (const fs::path& out : {raw, png, tif}) {
            const auto r =
                run_cli("equalize " + quote(clip) + " --frame 2 --mode clahe -o " + quote(out));
            ASSERT_EQ(r.exit_code, 0) << out << "\n" << r.err;
            EXPECT_EQ(r.err, "") << out;
        }
        const std::string samples = slurp(raw);
        ASSERT_EQ(samples.size(), std::size_t{96} * 64 * static_cast<std::size_t>(channels) * 2);
        const auto sample = [&](std::size_t i) {
            return static_cast<std::uint32_t>(static_cast<unsigned char>(samples[2 * i])) |
                   static_cast<std::uint32_t>(static_cast<unsigned char>(samples[2 * i + 1])) << 8;
        };
        const std::uint32_t max = (1u << depth) - 1u;
        for (const fs::path& out : {png, tif}) {
            const cv::Mat m = cv::imread(out.string(), cv::IMREAD_UNCHANGED);
            ASSERT_EQ(m.type(), CV_MAKETYPE(CV_16U, channels)) << out;
            std::size_t wrong = 0, top = 0;
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 96; ++x)
                    for (int c = 0; c < channels; ++c) {
                        // OpenCV's order is B, G, R(, A).
                        const int file_c = c < 3 ? 2 - c : c;
                        const std::uint32_t got = m.ptr<std::uint16_t>(y)[x * channels + file_c];
                        const std::uint32_t v = sample(
                            (static_cast<std::size_t>(y) * 96 + static_cast<std::size_t>(x)) *
                                static_cast<std::size_t>(channels) +
                            static_cast<std::size_t>(c));
                        if (got != ((v << (16 - depth)) | (v >> (2 * depth - 16)))) ++wrong;
                        if (v == max && got == 65535) ++top;
                    }
            EXPECT_EQ(wrong, 0u) << out;
            EXPECT_GT(top, 0u) << out << ": the largest code value is white";
        }
        // sBIT: the depth for each of the PNG's channels, right after IHDR.
        const std::string bytes = slurp(png);
        ASSERT_GT(bytes.size(), 33u + 8u + static_cast<std::size_t>(channels));
        EXPECT_EQ(bytes.substr(33, 8),
                  std::string("\0\0\0", 3) + static_cast<char>(channels) + "sBIT");
        EXPECT_EQ(bytes.substr(41, static_cast<std::size_t>(channels)),
                  std::string(static_cast<std::size_t>(channels), static_cast<char>(depth)));

        // Read back: the PNG at its depth, as the raw frame; the TIFF as 16-bit samples.
        const std::string format =
            "96x64x" + std::to_string(channels) + ":u16:" + std::to_string(depth);
        // One bin per code value of the depth, the most bins it takes.
        const std::string bins = " --bins " + std::to_string(1 << depth) + " --format json";
        const auto from_raw = run_cli("hist --raw " + format + " " + quote(raw) + bins);
        const auto from_png = run_cli("hist " + quote(png) + bins);
        const auto from_tif = run_cli("info " + quote(tif) + " --format json");
        ASSERT_EQ(from_raw.exit_code, 0) << from_raw.err;
        ASSERT_EQ(from_png.exit_code, 0) << from_png.err;
        ASSERT_EQ(from_tif.exit_code, 0) << from_tif.err;
        const auto jr = parse_json(from_raw.out), jp = parse_json(from_png.out);
        EXPECT_EQ(jp.at("depth"), depth);
        EXPECT_EQ(parse_json(from_tif.out).at("depth"), 16);
        ASSERT_EQ(jp.at("channels").size(), jr.at("channels").size());
        for (std::size_t c = 0; c < jr.at("channels").size(); ++c)
            EXPECT_EQ(counts_of(jp.at("channels")[c]), counts_of(jr.at("channels")[c])) << c;
    }
}

// Matching a 10-bit clip needs no reference of its depth: an 8-bit photo, a 16-bit PNG or a
// frame of a 12-bit clip serves, each compared over its own code values (the normalized CDFs,
// computed here from the samples of each side), one frame or every frame of the clip.
TEST(CliCodedVideo, MatchTakesAReferenceOfAnyDepth) {
    const TenBitClip ten;
    ASSERT_EQ(ten.error, "");
    CodedClip twelve;  // ProRes 4444 at 12 bits, with alpha (not matched: kept)
    twelve.depth = 12;
    twelve.alpha = true;
    twelve.shift_x = twelve.shift_y = 0;
    twelve.pix_fmt = "yuva444p12le";
    const fs::path other = ten.scratch.path / "other.mov";
    ASSERT_EQ(encode_clip(twelve, other, "-c:v prores_ks -profile:v 4444"), "");
    const auto samples_of = [&](const fs::path& clip, int frame) {
        const fs::path raw = ten.scratch.path / "copy.raw";
        const auto r = run_cli("equalize " + quote(clip) + " --frame " + std::to_string(frame) +
                               " --strength 0 -o " + quote(raw));
        EXPECT_EQ(r.exit_code, 0) << r.err;
        return raw_samples(raw);
    };
    const std::vector<std::uint32_t> frame1 = samples_of(ten.path, 1);
    ASSERT_EQ(frame1.size(), 96u * 64u * 3u);
    const std::vector<std::uint32_t> other3 = samples_of(other, 3);
    ASSERT_EQ(other3.size(), 96u * 64u * 4u);

    struct Reference {
        std::string options;
        std::vector<std::vector<std::uint32_t>> planes;  // R, G, B, or gray for all three
        int depth;
    };
    std::vector<Reference> refs{
        {"--reference " + quote(sample("fruits.jpg")), photo_planes(sample("fruits.jpg")), 8},
        {"--reference " + quote(sample("moon_4k_16bit.png")),
         photo_planes(sample("moon_4k_16bit.png")), 16},
        {"--reference " + quote(other) + " --reference-frame 3",
         {plane_of(other3, 4, 0), plane_of(other3, 4, 1), plane_of(other3, 4, 2)},
         12}};
    for (const Reference& ref : refs) {
        const fs::path out = ten.scratch.path / "matched.raw";
        const auto r = run_cli("equalize " + quote(ten.path) + " --frame 1 --mode match " +
                               ref.options + " --space rgb -o " + quote(out));
        ASSERT_EQ(r.exit_code, 0) << ref.options << "\n" << r.err;
        EXPECT_EQ(r.err, "");
        const std::vector<std::uint32_t> got = raw_samples(out);
        ASSERT_EQ(got.size(), frame1.size());
        for (int k = 0; k < 3; ++k)
            EXPECT_EQ(plane_of(got, 3, k),
                      matched_by_definition(
                          plane_of(frame1, 3, k), 10,
                          ref.planes[ref.planes.size() == 1 ? 0 : static_cast<std::size_t>(k)],
                          ref.depth))
                << ref.options << ", plane " << k;
    }

    // Every frame of the clip to the 16-bit PNG (gray: its samples serve R, G and B).
    const fs::path all = ten.scratch.path / "all.raw";
    const auto r = run_cli("equalize " + quote(ten.path) + " --per-frame --mode match " +
                           refs[1].options + " --space rgb -o " + quote(all));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::uint32_t> frames = raw_samples(all);
    ASSERT_EQ(frames.size(), 6u * 96u * 64u * 3u);
    for (int f : {0, 5}) {
        const std::vector<std::uint32_t> in = samples_of(ten.path, f);
        const std::vector<std::uint32_t> got(
            frames.begin() + static_cast<long>(in.size()) * f,
            frames.begin() + static_cast<long>(in.size()) * (f + 1));
        for (int k = 0; k < 3; ++k)
            EXPECT_EQ(plane_of(got, 3, k),
                      matched_by_definition(plane_of(in, 3, k), 10, refs[1].planes[0], 16))
                << "frame " << f << ", plane " << k;
    }

    // A frame asked of a photo, or past a clip's end: one error line.
    expect_refused(
        run_cli("equalize " + quote(ten.path) + " --frame 1 --mode match " + refs[0].options +
                " --reference-frame 2 -o " + quote(ten.scratch.path / "x.raw")),
        "photo frame", "--reference-frame applies to video and raw input", 2);
    expect_refused(
        run_cli("equalize " + quote(ten.path) + " --frame 1 --mode match --reference " +
                quote(other) + " --reference-frame 6 -o " + quote(ten.scratch.path / "x.raw")),
        "past the end", "frame 6", 3);
    EXPECT_FALSE(fs::exists(ten.scratch.path / "x.raw"));
}

TEST(CliCodedVideo, ACutClipSaysSoAndABrokenOneIsOneErrorLine) {
    Scratch scratch("coded-cut");
    CodedClip clip;
    const fs::path whole = scratch.path / "clip.mkv", cut = scratch.path / "cut.mkv";
    ASSERT_EQ(encode_clip(clip, whole, std::string(kLosslessHevc) + ":keyint=1"), "");
    const std::string bytes = slurp(whole);
    { std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2); }
    const auto info = run_cli("info " + quote(cut) + " --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    const auto j = parse_json(info.out);
    EXPECT_EQ(j.at("frames"), 6);
    const std::int64_t held = j.at("frames_in_file").get<std::int64_t>();
    EXPECT_GE(held, 1);
    EXPECT_LT(held, 6);
    ASSERT_EQ(j.at("notes").size(), 1u);
    EXPECT_NE(j.at("notes")[0].get<std::string>().find("before the 0.250 s its container declares"),
              std::string::npos);

    const auto per =
        run_cli("hist " + quote(cut) + " --per-frame --channels y --bins 1024 --format json");
    ASSERT_EQ(per.exit_code, 0) << per.err;
    EXPECT_TRUE(only_our_lines(per.err)) << per.err;
    const auto p = parse_json(per.out);
    EXPECT_EQ(p.at("summary").at("frames"), 6);
    // Every frame the container declares has its row: those past the cut failed, saying why.
    const std::string missing =
        "its data is missing: the file ends before it (6 frames declared, " + std::to_string(held) +
        " in the file)";
    ASSERT_EQ(p.at("frames").size(), 6u);
    for (int f = 0; f < 6; ++f) {
        const auto& row = p.at("frames")[static_cast<std::size_t>(f)];
        ASSERT_EQ(row.at("frame"), f);
        if (f >= held) {
            EXPECT_EQ(row.at("status"), "failed");
            EXPECT_NE(row.at("reason").get<std::string>().find(missing), std::string::npos)
                << row.dump();
            EXPECT_NE(per.err.find("warning: frame " + std::to_string(f) + " of " + quote(cut) +
                                   " could not be decoded (" + missing + ")"),
                      std::string::npos)
                << per.err;
        }
        if (row.at("status") != "ok") continue;
        EXPECT_EQ(counts_of(row.at("channels")[0]), clip.plane_counts(0, f));
    }
    EXPECT_EQ(p.at("summary").at("failed").get<std::int64_t>(),
              6 - p.at("summary").at("ok").get<std::int64_t>());

    expect_refused(run_cli("hist " + quote(cut) + " --frame 5 --channels y"), "past the cut",
                   "frame 5 of " + quote(cut) + " could not be decoded (" + missing + ")");

    // The same frames in MP4: cut with its index in front (faststart), the container's count
    // against what the file holds; cut before its index (at the end), no video at all.
    for (const bool faststart : {true, false}) {
        const fs::path mp4 = scratch.path / (faststart ? "front.mp4" : "end.mp4");
        ASSERT_EQ(encode_clip(clip, mp4,
                              std::string(kLosslessHevc) + ":keyint=1" +
                                  (faststart ? " -movflags +faststart" : "")),
                  "");
        const std::string whole_mp4 = slurp(mp4);
        const fs::path cut_mp4 = scratch.path / ("cut_" + mp4.filename().string());
        { std::ofstream(cut_mp4, std::ios::binary) << whole_mp4.substr(0, whole_mp4.size() / 2); }
        const auto r = run_cli("info " + quote(cut_mp4) + " --format json");
        if (!faststart) {
            expect_refused(r, "mp4 cut before its index",
                           "cannot open " + quote(cut_mp4) + " as a video");
            continue;
        }
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto m = parse_json(r.out);
        EXPECT_EQ(m.at("frames"), 6);
        EXPECT_EQ(m.at("frames_counted"), false);
        EXPECT_LT(m.at("frames_in_file").get<int>(), 6);
        EXPECT_EQ(m.at("coded_depth"), 10);
        ASSERT_EQ(m.at("notes").size(), 1u);
        EXPECT_NE(m.at("notes")[0].get<std::string>().find("reports 6 frames but the file holds"),
                  std::string::npos);
    }

    // A header that is not Matroska any more.
    std::string broken = bytes;
    for (std::size_t i = 4; i < 40; ++i) broken[i] = '\xff';
    { std::ofstream(scratch.path / "broken.mkv", std::ios::binary) << broken; }
    expect_refused(run_cli("info " + quote(scratch.path / "broken.mkv")), "broken header",
                   "broken.mkv");
}
