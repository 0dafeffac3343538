// Camera raw files through histoscope-cli: info's camera, exposure, CFA pattern and levels, hist
// of the CFA mosaic (r, g1, g2, b, their levels and clipped photosites) and of the demosaiced
// image, equalize, bench, standard input, and hostile files. The DNGs are written by numpy and
// tifffile (tests/support/make_dng.py); every count expected is numpy's.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>

#include "camera_raw_dng.hpp"
#include "cli_helpers.hpp"
#include "synthetic.hpp"

using namespace hs::test;
namespace fs = std::filesystem;

namespace {

// One DNG of `spec` in a scratch folder, and numpy's counts of it.
struct Dng {
    explicit Dng(const DngSpec& s, const std::string& file = "shot.dng")
        : spec(s), path(scratch.path / file) {
        error = make_dng(spec, path);
        if (error.empty()) truth = read_truth(path);
    }
    Scratch scratch{"camera-raw"};
    DngSpec spec;
    fs::path path;
    std::string error;
    DngTruth truth;
};

DngSpec odd_rggb() {
    DngSpec s;
    s.width = 65;
    s.height = 47;
    return s;
}

}  // namespace

TEST(CliCameraRaw, InfoSaysTheCameraTheExposureThePatternAndTheLevels) {
    DngSpec spec = odd_rggb();
    spec.pattern = "GRBG";
    spec.black = "250,251,252,253";
    const Dng d(spec);
    ASSERT_EQ(d.error, "");
    const auto text = run_cli("info " + quote(d.path));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.err, "");
    for (const std::string line :
         {": camera_raw (DNG)\n", "size:     32x23\n", "depth:    12-bit (u16 samples)\n",
          "channels: 4 (r, g1, g2, b: the CFA mosaic's 2x2 quads)\n",
          "camera:   Histoscope Test Sensor\n",
          "shot:     ISO 400, 1/250 s, f/5.6, 35 mm, 2024-05-17 10:20:30\n",
          "sensor:   65x47 photosites visible at 0,0 of 65x47, CFA GRBG, 12-bit\n",
          // GRBG: g1 (on red's row) is the first position, r the second, b the third.
          "levels:   black r 251, g1 250, g2 253, b 252; white 4095\n",
          "mosaic:   32x23 quads (r, g1, g2, b), 111 photosites left out (this view)\n",
          "demosaiced: 65x47 linear 16-bit RGB",
          "note:     the visible area is 65x47 photosites: its last column and row hold 111 "
          "photosites of no whole 2x2 quad, which the CFA histograms leave out\n"})
        EXPECT_NE(text.out.find(line), std::string::npos) << line << "\n" << text.out;

    const auto r = run_cli("info " + quote(d.path) + " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("kind"), "camera_raw");
    EXPECT_EQ(j.at("format"), "DNG");
    EXPECT_EQ(j.at("width"), 32);
    EXPECT_EQ(j.at("depth"), 12);
    EXPECT_EQ(j.at("channels"), 4);
    const auto& c = j.at("camera_raw");
    EXPECT_EQ(c.at("view"), "cfa");
    EXPECT_EQ(c.at("make"), "Histoscope");
    EXPECT_EQ(c.at("model"), "Test Sensor");
    EXPECT_EQ(c.at("iso"), 400.0);
    EXPECT_EQ(c.at("exposure_s"), 0.004);
    EXPECT_EQ(c.at("exposure"), "1/250 s");
    EXPECT_EQ(c.at("aperture"), 5.6);
    EXPECT_EQ(c.at("focal_length_mm"), 35.0);
    EXPECT_EQ(c.at("date"), "2024-05-17 10:20:30");
    EXPECT_EQ(c.at("cfa_pattern"), "GRBG");
    EXPECT_TRUE(c.at("mosaic_problem").is_null());
    EXPECT_EQ(c.at("sensor_depth"), 12);
    EXPECT_EQ(c.at("white_level"), 4095);
    for (const auto& [name, t] : d.truth.colours) EXPECT_EQ(c.at("black_levels").at(name), t.black);
    EXPECT_EQ(c.at("raw_size"), hs::cli::Json::array({65, 47}));
    EXPECT_EQ(c.at("visible"), hs::cli::Json::array({0, 0, 65, 47}));
    EXPECT_EQ(c.at("demosaiced_size"), hs::cli::Json::array({65, 47}));
    EXPECT_EQ(c.at("quads"), hs::cli::Json::array({32, 23}));
    EXPECT_EQ(c.at("photosites_left_out"), 111);

    // The demosaiced view: its size without demosaicing, the same as hist's.
    const auto rgb = run_cli("info " + quote(d.path) + " --camera-raw rgb --format json");
    ASSERT_EQ(rgb.exit_code, 0) << rgb.err;
    const auto rj = parse_json(rgb.out);
    EXPECT_EQ(rj.at("width"), 65);
    EXPECT_EQ(rj.at("height"), 47);
    EXPECT_EQ(rj.at("depth"), 16);
    EXPECT_EQ(rj.at("channels"), 3);
    EXPECT_EQ(rj.at("camera_raw").at("view"), "rgb");
}

TEST(CliCameraRaw, WholeExifNumbersAreJsonIntegers) {
    DngSpec spec = odd_rggb();
    spec.iso = 100;
    spec.exposure = "1";
    spec.fnumber = "8";
    spec.focal = "50";
    const Dng d(spec);
    ASSERT_EQ(d.error, "");
    const auto r = run_cli("info " + quote(d.path) + " --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const std::string text :
         {"\"iso\": 100,", "\"exposure_s\": 1,", "\"aperture\": 8,", "\"focal_length_mm\": 50,"})
        EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
    const auto j = parse_json(r.out);
    const auto& c = j.at("camera_raw");
    for (const char* key : {"iso", "exposure_s", "aperture", "focal_length_mm"})
        EXPECT_TRUE(c.at(key).is_number_integer()) << key << ": " << c.at(key).dump();
    EXPECT_EQ(c.at("exposure"), "1 s");
    // Fractions keep theirs (f/5.6, 1/250 s).
    const Dng f(odd_rggb(), "fractions.dng");
    ASSERT_EQ(f.error, "");
    const auto fr = run_cli("info " + quote(f.path) + " --format json");
    ASSERT_EQ(fr.exit_code, 0) << fr.err;
    const auto fj = parse_json(fr.out);
    const auto& fc = fj.at("camera_raw");
    EXPECT_TRUE(fc.at("aperture").is_number_float());
    EXPECT_EQ(fc.at("aperture"), 5.6);
    EXPECT_EQ(fc.at("exposure_s"), 0.004);
    EXPECT_TRUE(fc.at("iso").is_number_integer());
}

TEST(CliCameraRaw, HistCountsEveryCfaColourAsNumpyDoesWithItsLevels) {
    DngSpec spec = odd_rggb();
    spec.above = 60;  // past the white level: a 13-bit histogram
    const Dng d(spec);
    ASSERT_EQ(d.error, "");
    const auto r = run_cli("hist " + quote(d.path) + " --bins 8192 --stats --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("kind"), "camera_raw");
    EXPECT_EQ(j.at("depth"), 13);
    EXPECT_EQ(j.at("image_channels"), 4);
    EXPECT_FALSE(j.contains("frame"));
    EXPECT_EQ(j.at("spec").at("range"), hs::cli::Json::array({0, 8192}));
    EXPECT_EQ(j.at("camera_raw").at("cfa_pattern"), "RGGB");
    const auto& ch = j.at("channels");
    ASSERT_EQ(ch.size(), 4u);
    const char* names[] = {"r", "g1", "g2", "b"};
    for (std::size_t k = 0; k < 4; ++k) {
        const CfaTruth& t = d.truth.colours.at(names[k]);
        SCOPED_TRACE(names[k]);
        EXPECT_EQ(ch[k].at("name"), names[k]);
        EXPECT_EQ(counts_of(ch[k]), t.histogram(13));
        EXPECT_EQ(ch[k].at("total"), t.total);
        EXPECT_EQ(ch[k].at("black"), t.black);
        EXPECT_EQ(ch[k].at("white"), 4095);
        EXPECT_EQ(ch[k].at("at_or_below_black"), t.at_or_below_black);
        EXPECT_EQ(ch[k].at("at_or_above_white"), t.at_or_above_white);
        EXPECT_GT(t.at_or_above_white, 0u);  // the mosaic holds white and above: not vacuous
        EXPECT_EQ(ch[k].at("stats").at("count"), t.total);
    }
    // The notes say what was left out and why the depth is 13.
    const auto& notes = j.at("notes");
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_NE(notes[1].get<std::string>().find("111 photosites of no whole 2x2 quad"),
              std::string::npos);

    // Any order, any subset; text and CSV name them so.
    const auto some =
        run_cli("hist " + quote(d.path) + " --channels g2,r --bins 8192 --format json");
    ASSERT_EQ(some.exit_code, 0) << some.err;
    const auto sj = parse_json(some.out);
    ASSERT_EQ(sj.at("channels").size(), 2u);
    EXPECT_EQ(sj.at("channels")[0].at("name"), "g2");
    EXPECT_EQ(counts_of(sj.at("channels")[0]), d.truth.colours.at("g2").histogram(13));
    EXPECT_EQ(counts_of(sj.at("channels")[1]), d.truth.colours.at("r").histogram(13));
    // "all" beside some of them: every colour once, at its first place.
    const auto all = run_cli("hist " + quote(d.path) + " --channels g2,all --bins 4 --format csv");
    ASSERT_EQ(all.exit_code, 0) << all.err;
    EXPECT_NE(all.out.find("\nbin,lower,upper,g2,r,g1,b\n"), std::string::npos) << all.out;
    const auto csv = run_cli("hist " + quote(d.path) + " --bins 4 --format csv");
    ASSERT_EQ(csv.exit_code, 0) << csv.err;
    EXPECT_NE(csv.out.find("bin,lower,upper,r,g1,g2,b\n"), std::string::npos) << csv.out;
    const auto text = run_cli("hist " + quote(d.path) + " --bins 4");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    const CfaTruth& g1 = d.truth.colours.at("g1");
    EXPECT_NE(text.out.find("# levels g1: black 256, white 4095, at_or_below_black=" +
                            std::to_string(g1.at_or_below_black) +
                            " at_or_above_white=" + std::to_string(g1.at_or_above_white) + "\n"),
              std::string::npos)
        << text.out;
}

TEST(CliCameraRaw, TheMosaicHasNoOtherChannels) {
    const Dng d(odd_rggb());
    ASSERT_EQ(d.error, "");
    for (const std::string channels : {"g", "luma", "a", "rgb", "r,r", "y"})
        expect_refused(run_cli("hist " + quote(d.path) + " --channels " + channels), channels,
                       channels == "r,r" ? "listed twice"
                       : channels == "y" ? "Y'CbCr planes of a video"
                                         : "r, g1, g2",
                       2);
    expect_refused(run_cli("hist " + quote(d.path) + " --frame 1"), "--frame", "--frame", 2);
    expect_refused(run_cli("hist " + quote(sample("fruits.jpg")) + " --camera-raw rgb"), "a photo",
                   "--camera-raw applies to camera raw files", 2);
}

TEST(CliCameraRaw, TheDemosaicedImageIsAnImageLikeAnyOther) {
    const Dng d(odd_rggb());
    ASSERT_EQ(d.error, "");
    const auto r = run_cli("hist " + quote(d.path) + " --camera-raw rgb --format json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("depth"), 16);
    EXPECT_EQ(j.at("image_channels"), 3);
    EXPECT_EQ(j.at("camera_raw").at("view"), "rgb");
    const auto& ch = j.at("channels");
    ASSERT_EQ(ch.size(), 3u);
    EXPECT_EQ(ch[1].at("name"), "g");
    EXPECT_EQ(ch[1].at("total"), 65 * 47);
    EXPECT_FALSE(ch[1].contains("black"));
    // The mosaic's notes (its depth deepened by photosites above white, the photosites of no
    // whole quad) say nothing of this view: none is told, by any command that reads it.
    EXPECT_EQ(j.at("notes"), hs::cli::Json::array());
    EXPECT_EQ(r.err, "");
    const auto rgb_info = run_cli("info " + quote(d.path) + " --camera-raw rgb");
    ASSERT_EQ(rgb_info.exit_code, 0) << rgb_info.err;
    EXPECT_EQ(rgb_info.out.find("note:"), std::string::npos) << rgb_info.out;

    // equalize works on it (and refuses the mosaic), into a 16-bit PNG of its size.
    const fs::path out = d.scratch.path / "eq.png";
    const auto eq = run_cli("equalize " + quote(d.path) + " -o " + quote(out));
    ASSERT_EQ(eq.exit_code, 0) << eq.err;
    EXPECT_EQ(eq.err, "");
    const auto info = run_cli("info " + quote(out) + " --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    const auto ij = parse_json(info.out);
    EXPECT_EQ(ij.at("width"), 65);
    EXPECT_EQ(ij.at("height"), 47);
    EXPECT_EQ(ij.at("depth"), 16);
    expect_refused(run_cli("equalize " + quote(d.path) + " --camera-raw cfa -o " +
                           quote(d.scratch.path / "no.png")),
                   "equalize cfa", "demosaiced image", 2);
    // scope too.
    const auto scope = run_cli("scope " + quote(d.path) + " --kind parade --format json");
    ASSERT_EQ(scope.exit_code, 0) << scope.err;
    EXPECT_EQ(parse_json(scope.out).at("planes").size(), 3u);
    EXPECT_EQ(scope.err, "");
}

TEST(CliCameraRaw, BenchTimesTheMosaicAndTheDemosaicedImageVerified) {
    const Dng d(odd_rggb());
    ASSERT_EQ(d.error, "");
    for (const std::string view : {"cfa", "rgb"}) {
        const auto r = run_cli("bench " + quote(d.path) + " --camera-raw " + view +
                               " --kernels cpu --runs 20 --warmup 0 --format json");
        ASSERT_EQ(r.exit_code, 0) << view << "\n" << r.err;
        const auto j = parse_json(r.out);
        const auto& rows = j.at("results");
        ASSERT_EQ(rows.size(), 1u) << r.out;
        EXPECT_EQ(rows[0].at("input"), d.path.string() + " (" + view + ")");
        EXPECT_EQ(rows[0].at("verified"), true);
        EXPECT_EQ(rows[0].at("channels"), view == "cfa" ? "r,g1,g2,b" : "r,g,b");
        EXPECT_EQ(rows[0].at("image_channels"), view == "cfa" ? 4 : 3);
        EXPECT_EQ(rows[0].at("depth"), view == "cfa" ? 12 : 16);
    }
}

TEST(CliCameraRaw, StandardInputAndPipesGiveTheFilesCounts) {
    const Dng d(odd_rggb());
    ASSERT_EQ(d.error, "");
    const std::string args = " --bins 4096 --format json";
    const auto file = run_cli("hist " + quote(d.path) + args);
    ASSERT_EQ(file.exit_code, 0) << file.err;
    const auto piped = run_command("cat " + quote(d.path) + " | " + cli() + " hist -" + args);
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    const auto fj = parse_json(file.out), pj = parse_json(piped.out);
    EXPECT_EQ(pj.at("input"), "-");
    EXPECT_EQ(pj.at("channels"), fj.at("channels"));
    EXPECT_EQ(pj.at("camera_raw"), fj.at("camera_raw"));
}

// LibRaw's X-Trans demosaic works in tiles of 512x512 photosites and takes the usual colour
// proportions only: other sensors are refused as what they are, before LibRaw calls them corrupt.
TEST(CliCameraRaw, AnXTransSensorLibRawCannotDemosaicIsSaidSo) {
    const std::string xtrans = "GGRGGBGGBGGRBRGRBGGGBGGRGGRGGBRBGBRG";
    const auto dng = [&](int width, int height, const std::string& pattern) {
        DngSpec spec;
        spec.width = width;
        spec.height = height;
        spec.pattern = pattern;
        return std::make_unique<Dng>(spec);
    };
    const auto small = dng(240, 512, xtrans);
    ASSERT_EQ(small->error, "");
    const auto info = run_cli("info " + quote(small->path) + " --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    const std::string too_small =
        "cannot be demosaiced: its X-Trans sensor is 240x512 photosites, and LibRaw demosaics "
        "X-Trans only from 512x512 photosites (its tile) up";
    expect_refused(run_cli("hist " + quote(small->path)), "hist 240x512", too_small);
    expect_refused(
        run_cli("equalize " + quote(small->path) + " -o " + quote(small->scratch.path / "eq.png")),
        "equalize 240x512", too_small);
    const auto odd = dng(512, 512, "RGBRGBGBRGBRBRGBRGRGBRGBGBRGBRBRGBRG");
    ASSERT_EQ(odd->error, "");
    expect_refused(run_cli("hist " + quote(odd->path)), "12 of each",
                   "cannot be demosaiced: its X-Trans pattern holds 12 red, 12 green and 12 blue "
                   "photosites of 36");
    // The smallest LibRaw demosaics.
    const auto least = dng(512, 512, xtrans);
    ASSERT_EQ(least->error, "");
    const auto hist = run_cli("hist " + quote(least->path) + " --format json");
    ASSERT_EQ(hist.exit_code, 0) << hist.err;
    EXPECT_EQ(parse_json(hist.out).at("channels")[0].at("total"), 512 * 512);
}

TEST(CliCameraRaw, ACfaWithAColourOtherThanRgbHasNoMosaic) {
    // LibRaw names the white photosites green: the mosaic would count them as g2.
    DngSpec spec = odd_rggb();
    spec.pattern = "RGGW";
    const Dng d(spec);
    ASSERT_EQ(d.error, "");
    expect_refused(
        run_cli("hist " + quote(d.path) + " --camera-raw cfa"), "RGGW cfa",
        "has no 2x2 Bayer mosaic to count: its colour pattern RGGW has white photosites");
    const auto info = run_cli("info " + quote(d.path) + " --format json");
    ASSERT_EQ(info.exit_code, 0) << info.err;
    const auto j = parse_json(info.out);
    EXPECT_TRUE(j.at("camera_raw").at("cfa_pattern").is_null());
    EXPECT_EQ(j.at("camera_raw").at("view"), "rgb");
    EXPECT_EQ(j.at("channels"), 3);
    const auto rgb = run_cli("hist " + quote(d.path) + " --camera-raw rgb --format json");
    ASSERT_EQ(rgb.exit_code, 0) << rgb.err;
    EXPECT_EQ(parse_json(rgb.out).at("channels").size(), 3u);
}

TEST(CliCameraRaw, LevelsThatLeaveNoRoomForAPhotositeAreRefused) {
    DngSpec spec = odd_rggb();
    spec.black = "5000";  // above the white level 4095
    const Dng d(spec);
    ASSERT_EQ(d.error, "");
    for (const std::string command : {"info", "hist", "hist --camera-raw rgb"})
        expect_refused(run_cli(command + " " + quote(d.path)), command,
                       "' is corrupt (its black level 5000 is not below its white level 4095)");
    // A WhiteLevel of 0, which LibRaw reads as 65535.
    DngSpec zero = odd_rggb();
    zero.black = "0";
    zero.white = 0;
    const Dng z(zero, "zero.dng");
    ASSERT_EQ(z.error, "");
    expect_refused(run_cli("info " + quote(z.path)), "white 0",
                   "' is corrupt (its WhiteLevel is 0, which no black level lies below)");
}

// The rule the desktop application follows too (media::holds_raw_frames).
TEST(CliCameraRaw, RawAndBinFilesAreRawFramesUnlessTheirBytesSayOtherwise) {
    const Dng d(odd_rggb(), "shot.raw");
    ASSERT_EQ(d.error, "");
    const auto dng = run_cli("info " + quote(d.path) + " --format json");
    ASSERT_EQ(dng.exit_code, 0) << dng.err;
    EXPECT_EQ(parse_json(dng.out).at("kind"), "camera_raw");
    const fs::path frames = d.scratch.path / "frames.bin";
    {
        std::ofstream out(frames, std::ios::binary);
        for (int i = 0; i < 600; ++i) out.put(static_cast<char>(i * 7 + 3));
    }
    for (const std::string command : {"info", "hist", "hist --per-frame", "bench --runs 20"})
        expect_refused(run_cli(command + " " + quote(frames)), command,
                       "error: '" + frames.string() +
                           "' holds raw frames, which carry no header: give their format with "
                           "--raw WxHxC:u8|u16[:DEPTH]|f32\n",
                       2);
    // As a reference, their format is --reference-raw's.
    expect_refused(
        run_cli("equalize " + quote(sample("fruits.jpg")) + " --mode match --reference " +
                quote(frames) + " -o " + quote(d.scratch.path / "matched.png")),
        "reference",
        "' holds raw frames, which carry no header: give their format with "
        "--reference-raw WxHxC:u8|u16[:DEPTH]|f32\n",
        2);
    const auto raw = run_cli("info --raw 10x10x3:u8 " + quote(frames) + " --format json");
    ASSERT_EQ(raw.exit_code, 0) << raw.err;
    EXPECT_EQ(parse_json(raw.out).at("frames"), 2);
}

TEST(CliCameraRaw, HostileFilesGiveOneErrorLine) {
    const Dng whole(odd_rggb());
    ASSERT_EQ(whole.error, "");
    const std::size_t size = fs::file_size(whole.path);
    for (const std::size_t keep : {std::size_t{8}, std::size_t{300}, size / 2, size - 1}) {
        // The same file cut after `keep` bytes.
        DngSpec spec = odd_rggb();
        spec.extra = "--truncate " + std::to_string(keep);
        const Dng cut(spec, "cut.dng");
        ASSERT_EQ(cut.error, "");
        ASSERT_EQ(fs::file_size(cut.path), keep);
        for (const std::string command : {"info", "hist", "bench --kernels cpu --runs 20"}) {
            const auto r = run_cli(command + " " + quote(cut.path));
            EXPECT_EQ(r.exit_code, 3) << command << " " << keep << "\n" << r.err;
            EXPECT_TRUE(one_error_line(r.err)) << command << " " << keep << "\n" << r.err;
            EXPECT_EQ(r.out, "");
        }
    }
    // Not camera raw files at all, only named so; a file of nothing.
    const fs::path text = whole.scratch.path / "notes.nef";
    std::ofstream(text) << "a text file\n";
    expect_refused(run_cli("info " + quote(text)), "text",
                   "' is not a camera raw file LibRaw reads (nothing but its name says it is one)");
    const fs::path empty = whole.scratch.path / "empty.dng";
    std::ofstream{empty};
    expect_refused(run_cli("hist " + quote(empty)), "empty",
                   "error: '" + empty.string() + "' is empty");
    // Damaged directory entries.
    DngSpec damaged = odd_rggb();
    damaged.extra = "--damage 10:200";
    const Dng bad(damaged, "bad.dng");
    ASSERT_EQ(bad.error, "");
    expect_refused(run_cli("hist " + quote(bad.path)), "damaged", bad.path.string());
    // A size its data cannot hold, and one over --max-pixels.
    DngSpec huge = odd_rggb();
    huge.extra = "--declare 30000x30000";
    const Dng h(huge, "huge.dng");
    ASSERT_EQ(h.error, "");
    expect_refused(run_cli("hist " + quote(h.path)), "huge", "declares 30000x30000 photosites");
    // Sizes other than the strips' (the file's photosites are 65x47): a row more is missing,
    // refused even with --allow-corrupt (LibRaw would read zeros); a width one short shears the
    // rows, refused; a row fewer reads the rows declared, and says what is left unread.
    for (const std::string declared : {"65x48", "64x47"}) {
        DngSpec sized = odd_rggb();
        sized.extra = "--declare " + declared;
        const Dng s(sized, "sized.dng");
        ASSERT_EQ(s.error, "");
        expect_refused(run_cli("hist " + quote(s.path) + " --allow-corrupt"), declared,
                       "' is corrupt (its header declares " + declared + " photosites, ");
    }
    DngSpec fewer = odd_rggb();
    fewer.extra = "--declare 65x46";
    const Dng f(fewer, "fewer.dng");
    ASSERT_EQ(f.error, "");
    const auto read = run_cli("hist " + quote(f.path) + " --format json");
    ASSERT_EQ(read.exit_code, 0) << read.err;
    const std::string unread =
        "130 bytes of its strips lie past the 65x46 photosites its header declares: they are not "
        "read";
    EXPECT_NE(read.err.find("note: " + unread + "\n"), std::string::npos) << read.err;
    EXPECT_EQ(parse_json(read.out).at("notes").at(0), unread);
    expect_refused(run_cli("info " + quote(whole.path) + " --max-pixels 1K"), "max-pixels",
                   "more than the limit of 1024 pixels");
    // A sensor without a 2x2 mosaic: the mosaic refused, the default falls back with a note.
    DngSpec linear = odd_rggb();
    linear.linear = true;
    const Dng l(linear, "linear.dng");
    ASSERT_EQ(l.error, "");
    expect_refused(run_cli("hist " + quote(l.path) + " --camera-raw cfa"), "linear cfa",
                   "has no 2x2 Bayer mosaic to count");
    const auto fallback = run_cli("hist " + quote(l.path) + " --format json");
    ASSERT_EQ(fallback.exit_code, 0) << fallback.err;
    EXPECT_NE(fallback.err.find("note: '" + l.path.string() +
                                "' has no 2x2 Bayer mosaic (it holds no colour mosaic"),
              std::string::npos)
        << fallback.err;
    EXPECT_EQ(parse_json(fallback.out).at("camera_raw").at("view"), "rgb");
}
