// histoscope-cli against damaged, hostile and self-overwriting input, every file made here from
// the bundled media (cut, flipped, zeroed, a header patched): a bad input gives exit code 3 (or
// 2 for a usage error) with exactly one "error:" line and nothing from the libraries, a result
// is exactly the clean one or says it is corrupt, an output never replaces its input and is
// never left half written.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_helpers.hpp"
#include "damaged_media.hpp"
#include "synthetic.hpp"

using namespace hs::test;
namespace fs = std::filesystem;

namespace {

void put(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// Standard error holds only Histoscope's own lines: no libjpeg, libpng, FFmpeg or OpenCV text.
bool only_our_lines(const std::string& err) {
    for (const std::string& line : lines_of(err))
        if (line.rfind("error: ", 0) != 0 && line.rfind("warning: ", 0) != 0 &&
            line.rfind("note: ", 0) != 0)
            return false;
    return true;
}

// Every channel's counts of hist's JSON.
std::vector<std::vector<std::uint64_t>> histograms(const hs::cli::Json& doc) {
    std::vector<std::vector<std::uint64_t>> out;
    for (const auto& c : doc.at("channels")) out.push_back(counts_of(c));
    return out;
}

std::uint32_t crc32(const std::string& bytes, std::size_t from, std::size_t to) {
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = from; i < to; ++i) {
        crc ^= static_cast<std::uint8_t>(bytes[i]);
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

void put_be(std::string& bytes, std::size_t at, std::uint32_t v, int n) {
    for (int i = 0; i < n; ++i)
        bytes[at + static_cast<std::size_t>(i)] = static_cast<char>(v >> (8 * (n - 1 - i)));
}

// A copy of a JPEG whose frame header (SOF) declares another size.
std::string jpeg_declaring(const std::string& jpeg, std::uint32_t width, std::uint32_t height) {
    std::string out = jpeg;
    for (std::size_t p = 2; p + 9 < out.size(); ++p) {
        const auto m = static_cast<std::uint8_t>(out[p + 1]);
        if (static_cast<std::uint8_t>(out[p]) == 0xFF && (m == 0xC0 || m == 0xC2)) {
            put_be(out, p + 5, height, 2);
            put_be(out, p + 7, width, 2);
            return out;
        }
    }
    ADD_FAILURE() << "no SOF marker";
    return out;
}

// A copy of a PNG whose IHDR declares another size (its CRC made right again).
std::string png_declaring(const std::string& png, std::uint32_t width, std::uint32_t height) {
    std::string out = png;
    put_be(out, 16, width, 4);
    put_be(out, 20, height, 4);
    put_be(out, 29, crc32(out, 12, 29), 4);
    return out;
}

// A copy of a TIFF whose first directory declares another size (ImageWidth, ImageLength): its
// strips stay those of the real image, so the decoder fails while reading them.
std::string tiff_declaring(const std::string& tiff, std::uint32_t width, std::uint32_t height) {
    std::string out = tiff;
    const bool little = out.compare(0, 2, "II") == 0;
    const auto get = [&](std::size_t at, int n) {
        std::uint32_t v = 0;
        for (int i = 0; i < n; ++i) {
            const auto byte = static_cast<std::uint8_t>(out[at + static_cast<std::size_t>(i)]);
            v |= std::uint32_t{byte} << (8 * (little ? i : n - 1 - i));
        }
        return v;
    };
    const auto put = [&](std::size_t at, std::uint32_t v, int n) {
        for (int i = 0; i < n; ++i)
            out[at + static_cast<std::size_t>(i)] =
                static_cast<char>(v >> (8 * (little ? i : n - 1 - i)));
    };
    const std::size_t ifd = get(4, 4);
    for (std::uint32_t k = 0, n = get(ifd, 2); k < n; ++k) {
        const std::size_t entry = ifd + 2 + 12 * k;
        const std::uint32_t tag = get(entry, 2), type = get(entry + 2, 2);
        if (tag == 256 || tag == 257)
            put(entry + 8, tag == 256 ? width : height, type == 3 ? 2 : 4);
    }
    return out;
}

bool under_address_sanitizer() {
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#endif
#endif
    return false;
}

// The command run with its virtual memory limited to 1.5 GiB (none under AddressSanitizer,
// which reserves terabytes of address space): an allocation for a frame declared but never
// sent would fail with "out of host memory" instead of the expected message.
std::string with_memory_limit(const std::string& command) {
    if (under_address_sanitizer()) return command;
    return "bash -c \"ulimit -v 1572864; " + command + "\"";
}

}  // namespace

// --- 1. corrupt JPEGs

TEST(CliRobust, CorruptJpegsAreRefusedOrMarkedWithAllowCorrupt) {
    const Scratch scratch("corrupt");
    const fs::path& dir = scratch.path;
    const std::string clean = slurp(sample("fruits.jpg"));
    const std::size_t mid = clean.size() / 2;
    std::string half = clean.substr(0, mid) + "\xFF\xD9";  // cut, with an end marker appended
    std::string zeroed = clean;
    std::fill(zeroed.begin() + static_cast<std::ptrdiff_t>(mid),
              zeroed.begin() + static_cast<std::ptrdiff_t>(mid + 64), '\0');
    std::string flipped = clean;
    for (std::size_t i = mid; i < mid + 32; ++i) flipped[i] = static_cast<char>(flipped[i] ^ 1);
    const auto clean_json =
        parse_json(run_cli("hist " + quote(sample("fruits.jpg")) + " --format json").out);
    for (const auto& [name, bytes] : {std::pair<std::string, std::string>{"half.jpg", half},
                                      {"zeroed.jpg", zeroed},
                                      {"flipped.jpg", flipped}}) {
        const fs::path path = dir / name;
        put(path, bytes);
        expect_refused(run_cli("hist " + quote(path) + " --format json"), name, "corrupt");

        const auto kept = run_cli("hist " + quote(path) + " --format json --allow-corrupt");
        ASSERT_EQ(kept.exit_code, 0) << name << "\n" << kept.err;
        EXPECT_TRUE(only_our_lines(kept.err)) << kept.err;
        EXPECT_NE(kept.err.find("note: corrupt JPEG data ("), std::string::npos) << kept.err;
        const auto doc = parse_json(kept.out);
        EXPECT_TRUE(doc.at("corrupt").get<bool>()) << name;
        EXPECT_FALSE(doc.at("notes").empty()) << name;
        EXPECT_EQ(doc.at("width").get<std::int64_t>(), clean_json.at("width").get<std::int64_t>());
        EXPECT_EQ(doc.at("height").get<std::int64_t>(),
                  clean_json.at("height").get<std::int64_t>());
        EXPECT_NE(histograms(doc), histograms(clean_json)) << name;
    }
    EXPECT_FALSE(clean_json.at("corrupt").get<bool>());
}

// --- 2. hostile headers

TEST(CliRobust, HostileHeadersAreRefusedBeforeDecoding) {
    const Scratch scratch("hostile");
    const fs::path& dir = scratch.path;
    const std::string fish = slurp(sample("HappyFish.jpg"));  // 8 KB
    put(dir / "20k.jpg", jpeg_declaring(fish, 20000, 20000));
    put(dir / "32k.jpg", jpeg_declaring(fish, 32000, 32000));
    put(dir / "60k.jpg", jpeg_declaring(fish, 60000, 60000));
    expect_refused(run_cli("hist " + quote(dir / "20k.jpg")), "20k", "which 8283 bytes of JPEG");
    expect_refused(run_cli("hist " + quote(dir / "32k.jpg")), "32k", "cannot hold");
    expect_refused(run_cli("hist " + quote(dir / "60k.jpg")), "60k",
                   "declares 60000x60000 pixels, more than the limit of 1073741824");

    const std::string camera = slurp(sample("camera.png"));
    put(dir / "huge.png", png_declaring(camera, 100000, 100000));
    put(dir / "big.png", png_declaring(camera, 30000, 30000));
    expect_refused(run_cli("hist " + quote(dir / "huge.png")), "huge.png", "more than the limit");
    expect_refused(run_cli("hist " + quote(dir / "big.png")), "big.png",
                   "bytes of compressed image data cannot hold");

    // BMP and TIFF (decoded by OpenCV): refused in our words, also past OpenCV's own cap.
    ASSERT_EQ(run_cli("equalize " + quote(sample("camera.png")) + " --strength 0 -o " +
                      quote(dir / "c.bmp"))
                  .exit_code,
              0);
    ASSERT_EQ(run_cli("equalize " + quote(sample("camera.png")) + " --strength 0 -o " +
                      quote(dir / "c.tif"))
                  .exit_code,
              0);
    std::string bmp = slurp(dir / "c.bmp");
    for (std::size_t at : {std::size_t{18}, std::size_t{22}})  // little-endian width, height
        for (int i = 0; i < 4; ++i) bmp[at + static_cast<std::size_t>(i)] = "\x40\x9c\0\0"[i];
    put(dir / "huge.bmp", bmp);  // 40000x40000
    std::string tif = slurp(dir / "c.tif");
    ASSERT_EQ(tif.substr(0, 2), "II");
    const auto le = [&](std::size_t at, int n) {
        std::uint32_t v = 0;
        for (int i = n - 1; i >= 0; --i)
            v = v << 8 | static_cast<std::uint8_t>(tif[at + static_cast<std::size_t>(i)]);
        return v;
    };
    const std::uint32_t ifd = le(4, 4);
    for (std::uint32_t e = 0; e < le(ifd, 2); ++e) {
        const std::size_t entry = ifd + 2 + 12 * e;
        const std::uint32_t tag = le(entry, 2), type = le(entry + 2, 2);
        if ((tag == 256 || tag == 257) && (type == 3 || type == 4)) {
            tif[entry + 8] = '\x40';  // 40000 = 0x9C40
            tif[entry + 9] = '\x9c';
        }
    }
    put(dir / "huge.tif", tif);
    // Past the limit, an uncompressed BMP must still hold every row.
    expect_refused(run_cli("hist " + quote(dir / "huge.bmp")), "huge.bmp",
                   "declares 40000x40000 pixels, more than the limit of 1073741824");
    expect_refused(run_cli("hist " + quote(dir / "huge.bmp") + " --max-pixels 2G"), "huge.bmp 2G",
                   "is truncated or corrupt (BMP pixel data needs 1600001078 bytes");
    expect_refused(run_cli("hist " + quote(dir / "huge.tif")), "huge.tif",
                   "declares 40000x40000 pixels, more than the limit of 1073741824");
    expect_refused(run_cli("hist " + quote(dir / "huge.tif") + " --max-pixels 2G"), "huge.tif 2G",
                   "pixels cannot be decoded (OpenCV's limit)");

    // --max-pixels lowers or raises the limit; its value is checked.
    const std::string fruits = quote(sample("fruits.jpg"));  // 512x480 = 245760 pixels
    expect_refused(run_cli("hist " + fruits + " --max-pixels 245759"), "limit",
                   "more than the limit of 245759 pixels");
    EXPECT_EQ(run_cli("hist " + fruits + " --max-pixels 245760").exit_code, 0);
    EXPECT_EQ(run_cli("info " + fruits + " --max-pixels 4G").exit_code, 0);
    for (const std::string bad : {"0", "-5", "x", "1T"})
        expect_refused(run_cli("hist " + fruits + " --max-pixels " + bad), bad, "--max-pixels", 2);

    // PNM samples above the header's maxval are refused, not clamped to it.
    put(dir / "raw10.pgm", std::string("P5\n2 1\n10\n") + char(99) + char(5));
    put(dir / "text10.pgm", "P2\n2 1\n10\n300 5\n");
    put(dir / "fine10.pgm", "P2\n2 1\n10\n10 5\n");
    expect_refused(run_cli("hist " + quote(dir / "raw10.pgm")), "raw10",
                   "sample 99 at pixel (0, 0) exceeds the header's maxval 10");
    expect_refused(run_cli("hist " + quote(dir / "text10.pgm")), "text10",
                   "sample 300 at pixel (0, 0) exceeds the header's maxval 10");
    EXPECT_EQ(run_cli("hist " + quote(dir / "fine10.pgm")).exit_code, 0);
}

// --- 3. damaged video keeps its frame numbers

namespace {

// hist --per-frame --format json: frame number -> (status, counts of every channel).
struct FrameRow {
    std::string status;
    std::vector<std::vector<std::uint64_t>> counts;
};
std::vector<std::pair<std::int64_t, FrameRow>> per_frame(const std::string& args,
                                                         CommandResult& r) {
    r = run_cli("hist " + args + " --per-frame --channels g --bins 32 --format json");
    std::vector<std::pair<std::int64_t, FrameRow>> rows;
    if (r.exit_code != 0) return rows;
    const auto doc = parse_json(r.out);
    for (const auto& f : doc.at("frames")) {
        FrameRow row{f.at("status").get<std::string>(), {}};
        if (row.status != "failed") row.counts = histograms(f);
        rows.emplace_back(f.at("frame").get<std::int64_t>(), std::move(row));
    }
    return rows;
}

}  // namespace

TEST(CliRobust, DamagedVideoKeepsItsFrameNumbers) {
    const Scratch scratch("damaged-avi");
    const fs::path& dir = scratch.path;
    const std::string damaged = (dir / "Megamind.avi").string();
    write_damaged_copy(sample("Megamind.avi"), damaged, 100000);  // 100 KB in the middle
    CommandResult r;
    const auto clean = per_frame(quote(sample("Megamind.avi")), r);
    ASSERT_EQ(clean.size(), 270u) << r.err;
    const auto rows = per_frame(quote(damaged), r);
    ASSERT_EQ(rows.size(), 270u) << r.err;
    EXPECT_TRUE(only_our_lines(r.err)) << r.err;
    std::int64_t failed = 0, first_failed = -1, ok_after = -1;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& [frame, row] = rows[i];
        ASSERT_EQ(frame, static_cast<std::int64_t>(i)) << "every frame once, in order";
        if (row.status == "failed") {
            ++failed;
            if (first_failed < 0) first_failed = frame;
            continue;
        }
        ASSERT_EQ(row.status, "ok");
        // A frame delivered as good is the clean frame of the same number.
        EXPECT_EQ(row.counts, clean[i].second.counts) << "frame " << frame;
        if (first_failed >= 0) ok_after = frame;
    }
    EXPECT_GE(failed, 20);  // 100 KB of a 1.2 MB clip
    ASSERT_GE(first_failed, 1);
    ASSERT_GT(ok_after, first_failed);

    // One frame: a failed number is an error, a good one equals the clean frame.
    expect_refused(run_cli("hist " + quote(damaged) + " --frame " + std::to_string(first_failed)),
                   "failed frame", "frame " + std::to_string(first_failed) + " of ");
    const auto one = run_cli("hist " + quote(damaged) + " --frame " + std::to_string(ok_after) +
                             " --channels g --bins 32 --format json");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    EXPECT_EQ(histograms(parse_json(one.out)),
              clean[static_cast<std::size_t>(ok_after)].second.counts);

    // --allow-corrupt keeps the frames decoded from damaged data, marked; the missing stay
    // failed.
    const auto kept = per_frame(quote(damaged) + " --allow-corrupt", r);
    ASSERT_EQ(kept.size(), 270u) << r.err;
    for (std::size_t i = 0; i < kept.size(); ++i)
        if (kept[i].second.status == "ok") {
            EXPECT_EQ(kept[i].second.counts, clean[i].second.counts) << "frame " << i;
        }
}

TEST(CliRobust, CutVideosSayWhatTheFileHolds) {
    const Scratch scratch("cut-video");
    const fs::path& dir = scratch.path;
    for (const std::string name : {"tree.avi", "Megamind.avi"}) {
        const std::string bytes = slurp(sample(name));
        const fs::path cut = dir / name;
        put(cut, bytes.substr(0, bytes.size() * 4 / 10));
        const auto info = run_cli("info " + quote(cut) + " --format json");
        ASSERT_EQ(info.exit_code, 0) << info.err;
        const auto doc = parse_json(info.out);
        const std::int64_t reported = doc.at("frames").get<std::int64_t>();
        const std::int64_t held = doc.at("frames_in_file").get<std::int64_t>();
        EXPECT_GT(held, 0) << name;
        EXPECT_LT(held, reported) << name;
        ASSERT_EQ(doc.at("notes").size(), 1u) << name;
        EXPECT_NE(doc.at("notes")[0].get<std::string>().find("reports " + std::to_string(reported) +
                                                             " frames but the file holds " +
                                                             std::to_string(held)),
                  std::string::npos);

        CommandResult r;
        const auto clean = per_frame(quote(sample(name)), r);
        const auto rows = per_frame(quote(cut), r);
        // Every frame the container reports has its row, those past the cut failed.
        ASSERT_EQ(static_cast<std::int64_t>(rows.size()), reported) << name << "\n" << r.err;
        for (std::int64_t f = held + 2; f < reported; ++f)
            EXPECT_EQ(rows[static_cast<std::size_t>(f)].second.status, "failed") << name << f;
        EXPECT_TRUE(only_our_lines(r.err)) << r.err;
        EXPECT_NE(r.err.find("warning: "), std::string::npos) << "the missing frames are said";
        std::int64_t ok = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            ASSERT_EQ(rows[i].first, static_cast<std::int64_t>(i));
            if (rows[i].second.status != "ok") continue;
            ++ok;
            EXPECT_EQ(rows[i].second.counts, clean[i].second.counts) << name << " frame " << i;
        }
        EXPECT_GE(ok, held - 2) << name;  // the last chunk or two may be cut inside
    }
}

// The AVI header-size underflow: "LIST" hdrl with a size of 2.
TEST(CliRobust, AnAviHeaderSizeOfTwoIsNoCrash) {
    const Scratch scratch("avi-header");
    const fs::path& dir = scratch.path;
    std::string bytes = slurp(sample("Megamind.avi"));
    const auto list = bytes.find("LIST");
    ASSERT_NE(list, std::string::npos);
    put_be(bytes, list + 4, 0x02000000u, 4);  // little-endian 2
    put(dir / "h.avi", bytes);
    const auto r = run_cli("hist " + quote(dir / "h.avi") + " --format json");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.err;
    EXPECT_TRUE(only_our_lines(r.err)) << r.err;
    if (r.exit_code == 3) {
        EXPECT_TRUE(one_error_line(r.err)) << r.err;
    }
    EXPECT_EQ(r.err.find("std::"), std::string::npos) << r.err;
}

// --- 4. an output never replaces its input

TEST(CliRobust, AnOutputNeverReplacesItsInput) {
    const Scratch scratch("self");
    const fs::path& dir = scratch.path;
    fs::copy_file(sample("camera.png"), dir / "b.png");
    fs::copy_file(sample("fruits.jpg"), dir / "a.jpg");
    fs::copy_file(sample("tree.avi"), dir / "t.avi");
    fs::create_symlink(dir / "b.png", dir / "link.png");
    fs::create_hard_link(dir / "a.jpg", dir / "hard.jpg");
    put(dir / "s.raw", std::string(2 * 64 * 48 * 3, '\x42'));
    const std::string b = quote(dir / "b.png"), a = quote(dir / "a.jpg");
    const std::string raw = "--raw 64x48x3:u8 " + quote(dir / "s.raw");
    const std::vector<std::string> cases{
        "hist " + b + " -o " + b,
        "hist " + b + " -o " + quote(dir / "link.png"),
        "info " + b + " -o " + b,
        "equalize " + a + " -o " + a,
        "equalize " + a + " -o " + quote(dir / "hard.jpg"),
        "equalize " + raw + " --per-frame -o " + quote(dir / "s.raw"),
        "hist " + raw + " --per-frame -o " + quote(dir / "s.raw"),
        "hist --raw 64x48x3:u8 - -o " + quote(dir / "s.raw") + " < " + quote(dir / "s.raw"),
        "equalize " + quote(dir / "t.avi") + " -o " + quote(dir / "t.avi"),
        "equalize " + a + " --mode match --reference " + b + " -o " + b,
        "bench " + b + " " + a + " --runs 20 --warmup 0 -o " + a,
    };
    const std::vector<std::string> names{"b.png", "a.jpg", "t.avi", "s.raw"};
    std::vector<std::string> before;
    for (const auto& n : names) before.push_back(slurp(dir / n));
    for (const std::string& c : cases)
        expect_refused(run_cli(c), c, "an output never replaces its input", 2);
    for (std::size_t i = 0; i < names.size(); ++i)
        EXPECT_EQ(slurp(dir / names[i]), before[i]) << names[i] << " was changed";
    EXPECT_TRUE(fs::is_symlink(dir / "link.png"));
}

// --- 5. files are never left half written

TEST(CliRobust, FailuresLeaveTheOldFileAndNoTemporaryFile) {
    const Scratch scratch("write");
    const fs::path& dir = scratch.path;
    put(dir / "out.csv", "old\n");
    // A clip whose only key frame is damaged: no frame of it decodes.
    std::string mp4 = slurp(sample("starry_pan_4k.mp4"));
    std::mt19937 rng(7);
    for (std::size_t i = 200000; i < 205000; ++i) mp4[i] = static_cast<char>(rng());
    put(dir / "keyless.mp4", mp4);
    expect_refused(run_cli("hist " + quote(dir / "keyless.mp4") + " --per-frame --format csv -o " +
                           quote(dir / "out.csv")),
                   "all frames fail", "no frame that decodes");
    EXPECT_EQ(slurp(dir / "out.csv"), "old\n");
    // A device that refuses the bytes: the error names the reason.
    expect_refused(run_cli("hist " + quote(sample("camera.png")) + " -o /dev/full"), "full",
                   "cannot write '/dev/full': No space left on device");
    // Nothing but the files written here remains in the folder (no temporary file).
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, (std::vector<std::string>{"keyless.mp4", "out.csv"}));
}

// A full disk in the middle of a video (the file size limit stands in for it): the encoder's and
// muxer's writes, and the container's trailer, are checked like every other output's.
TEST(CliRobust, AVideoThatCannotBeWrittenCompletelyFailsAndKeepsTheOldFile) {
    const Scratch scratch("video-full");
    const fs::path& dir = scratch.path;
    for (const std::string ext : {".avi", ".mp4", ".mkv"}) {
        const fs::path out = dir / ("out" + ext);
        const std::string command = "equalize " + quote(sample("tree.avi")) + " --per-frame -o " +
                                    quote(out) + " --frames 20";
        const auto whole = run_cli(command);
        ASSERT_EQ(whole.exit_code, 0) << ext << "\n" << whole.err;
        const std::string previous = slurp(out);
        ASSERT_GT(previous.size(), std::size_t{200} << 10) << ext;
        // 64 KiB at most per file, and the signal ignored: write() fails with EFBIG.
        const auto cut =
            run_command("bash -c \"trap '' XFSZ; ulimit -f 64; " + cli() + " " + command + "\"");
        expect_refused(cut, ext, "cannot write " + quote(out) + ": File too large");
        EXPECT_EQ(slurp(out), previous) << ext << ": the earlier video was replaced";
    }
    std::vector<std::string> left;
    for (const auto& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
    std::sort(left.begin(), left.end());
    EXPECT_EQ(left, (std::vector<std::string>{"out.avi", "out.mkv", "out.mp4"}));
}

TEST(CliRobust, KillingEqualizeMidwayLeavesThePreviousOutputIntact) {
    const Scratch scratch("kill");
    const fs::path& dir = scratch.path;
    const fs::path out = dir / "out.raw";
    const std::string previous(12345, 'p');
    put(out, previous);
    constexpr std::size_t kFrame = 320 * 240 * 3;

    int feed[2];
    ASSERT_EQ(::pipe(feed), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::dup2(feed[0], STDIN_FILENO);
        ::close(feed[0]);
        ::close(feed[1]);
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDOUT_FILENO);
        ::dup2(null, STDERR_FILENO);
        ::execl(HS_CLI_PATH, HS_CLI_PATH, "equalize", "--raw", "320x240x3:u8", "-", "--per-frame",
                "-o", out.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(feed[0]);
    // Three frames, then nothing: the CLI waits for the fourth with its output half written.
    const hs::Image frame = uniform(320, 240, 3, hs::SampleType::U8, 8, 5);
    for (int i = 0; i < 3; ++i)
        ASSERT_EQ(::write(feed[1], frame.view().data, kFrame), static_cast<ssize_t>(kFrame));
    // Wait until the equalized frames reach the temporary file next to the output.
    std::uintmax_t written = 0;
    for (int waited = 0; waited < 600 && written < 2 * kFrame; ++waited) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path() != out) written = std::max(written, fs::file_size(e.path()));
    }
    ASSERT_EQ(::kill(child, SIGKILL), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ::close(feed[1]);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the CLI was still running when killed";
    ASSERT_GE(written, 2 * kFrame) << "the CLI had written equalized frames before the kill";
    EXPECT_EQ(slurp(out), previous) << "the previous output was damaged";
}

// --- 6. nothing but our lines on standard error

TEST(CliRobust, LibraryMessagesNeverReachStandardError) {
    const Scratch scratch("chatter");
    const fs::path& dir = scratch.path;
    const std::string mp4 = slurp(sample("starry_pan_4k.mp4"));
    put(dir / "cut.mp4", mp4.substr(0, mp4.size() / 2));  // no moov atom
    std::string crc = slurp(sample("camera.png"));
    crc[crc.find("IDAT") + 40] ^= 0x10;  // a CRC error in the image data
    put(dir / "crc.png", crc);
    put(dir / "noise.png", "\x89PNG\r\n\x1a\n garbage garbage garbage");
    const std::string tif = slurp(sample("chessboard_GRAY_U16.tif"));
    put(dir / "cut.tif", tif.substr(0, tif.size() / 2));
    put(dir / "empty.jpg", "");
    std::string jpeg = slurp(sample("fruits.jpg"));
    jpeg[jpeg.size() / 2] ^= 0x40;
    jpeg[jpeg.size() / 2 + 1] = '\xFF';  // a marker where none may be
    put(dir / "marker.jpg", jpeg);
    for (const std::string name :
         {"cut.mp4", "crc.png", "noise.png", "cut.tif", "empty.jpg", "marker.jpg"}) {
        for (const std::string command : {"hist ", "info "}) {
            const auto r = run_cli(command + quote(dir / name));
            expect_refused(r, command + name, name);
        }
    }
    expect_refused(run_cli("hist " + quote(dir / "cut.mp4")), "mp4", "moov atom not found");
    // A TIFF declaring 20000x20000 over the strips of a small image: OpenCV's decoder fails, and
    // what it printed itself is quoted in our line.
    put(dir / "huge.tif", tiff_declaring(tif, 20000, 20000));
    for (const std::string command : {"hist ", "info "})
        expect_refused(run_cli(command + quote(dir / "huge.tif")), command + "huge.tif",
                       "'" + (dir / "huge.tif").string() + "' could not be decoded as TIFF");
    // A newline in a raw format, or in a file's name, stays inside one line.
    expect_refused(run_cli("hist --raw '64x64\nx1:u8' /dev/null"), "raw format with a newline",
                   "malformed raw format '64x64\\nx1:u8'", 2);
    expect_refused(run_cli("hist " + quote(dir / "no\nsuch.png")), "name with a newline",
                   "no\\nsuch.png");
    // A PNG whose colour profile libpng criticises decodes silently.
    const auto chelsea = run_cli("hist " + quote(sample("chelsea.png")));
    EXPECT_EQ(chelsea.exit_code, 0);
    EXPECT_EQ(chelsea.err, "");
    // A damaged clip streams with our warnings only; encoding a video prints nothing.
    write_damaged_copy(sample("starry_pan_4k.mp4"), (dir / "damaged.mp4").string(), 20000);
    const auto stream = run_cli("equalize " + quote(dir / "damaged.mp4") + " -o " +
                                quote(dir / "out.avi") + " --frames 6");
    EXPECT_TRUE(only_our_lines(stream.err)) << stream.err;
    const auto encode = run_cli("equalize " + quote(sample("tree.avi")) + " -o " +
                                quote(dir / "tree.mp4") + " --frames 5");
    EXPECT_EQ(encode.exit_code, 0) << encode.err;
    EXPECT_EQ(encode.err, "");
}

// --- 7. raw input: exit codes and memory before data

TEST(CliRobust, RawInputIsSizedBeforeAnythingIsAllocated) {
    const Scratch scratch("raw-size");
    const fs::path& dir = scratch.path;
    put(dir / "two.raw", std::string(2 * 320 * 240 * 3, '\x10'));
    put(dir / "small.raw", std::string(9000, '\x01'));
    put(dir / "short.raw", std::string(1000, '\x01'));
    const std::string two = quote(dir / "two.raw");
    expect_refused(run_cli("hist --raw 320x240x3:u8 " + two + " --frame 3"), "past end",
                   "has no frame 3: it holds 2 frames (0..1)");
    expect_refused(run_cli("hist --raw 320x240x3:u8 - --frame 2 < " + two), "stdin past end",
                   "has no frame 2: it holds 2 frames (0..1)");
    for (const std::string command : {"hist", "equalize"})
        expect_refused(run_cli(command + " --raw 320x240x3:u8 " + quote(dir / "short.raw") +
                               " --per-frame -o " + quote(dir / "o.raw")),
                       command, "has 1000 bytes, shorter than one 320x240x3:u8 frame");
    for (const std::string per_frame : {"", " --per-frame"})
        expect_refused(run_command(with_memory_limit(cli() + " hist --raw 65536x65536x4:u16 " +
                                                     quote(dir / "small.raw") + per_frame)),
                       "huge frame" + per_frame,
                       "has 9000 bytes, shorter than one 65536x65536x4:u16 frame");
    for (const std::string command : {"hist", "hist --per-frame", "info", "bench"})
        expect_refused(run_command(with_memory_limit(cli() + " " + command +
                                                     " --raw 32768x32768x3:u8 - < /dev/null")),
                       command, "raw input on standard input is empty");
    expect_refused(run_command(with_memory_limit("head -c 5000 /dev/zero | " + cli() +
                                                 " hist --raw 32768x32768x3:u8 - --per-frame")),
                   "5000 bytes", "ends after 5000 bytes");
    EXPECT_FALSE(fs::exists(dir / "o.raw"));
}

// --- the fuzz test: a few hundred mutations of the bundled photos, fixed seed

namespace {

enum class Mutation { Truncate, TruncateWithEnd, FlipBits, OverwriteRun, ZeroRun, InsertDelete };

const char* name_of(Mutation m) {
    switch (m) {
        case Mutation::Truncate:
            return "truncate";
        case Mutation::TruncateWithEnd:
            return "truncate+end marker";
        case Mutation::FlipBits:
            return "flip bits";
        case Mutation::OverwriteRun:
            return "overwrite a run";
        case Mutation::ZeroRun:
            return "zero a run";
        case Mutation::InsertDelete:
            return "insert or delete bytes";
    }
    return "";
}

std::string mutate(const std::string& clean, bool jpeg, Mutation m, std::mt19937& rng) {
    std::string d = clean;
    const auto at = [&](std::size_t n) {
        return static_cast<std::size_t>(rng() % static_cast<std::uint32_t>(n));
    };
    switch (m) {
        case Mutation::Truncate:
            d.resize(1 + at(d.size() - 1));
            break;
        case Mutation::TruncateWithEnd:
            d.resize(1 + at(d.size() - 1));
            d += jpeg ? std::string("\xFF\xD9") : clean.substr(clean.size() - 12);  // EOI, IEND
            break;
        case Mutation::FlipBits:
            for (std::uint32_t k = 1 + rng() % 8; k > 0; --k)
                d[at(d.size())] ^= static_cast<char>(1u << (rng() % 8));
            break;
        case Mutation::OverwriteRun:
        case Mutation::ZeroRun: {
            const std::size_t len = std::array<std::size_t, 5>{1, 8, 64, 512, 4096}[rng() % 5];
            const std::size_t from = at(d.size());
            for (std::size_t i = from; i < std::min(d.size(), from + len); ++i)
                d[i] = m == Mutation::ZeroRun ? '\0' : static_cast<char>(rng());
            break;
        }
        case Mutation::InsertDelete: {
            const std::size_t from = at(d.size());
            const std::size_t len = 1 + rng() % 64;
            if (rng() % 2 == 0)
                d.erase(from, len);
            else
                for (std::size_t i = 0; i < len; ++i)
                    d.insert(d.begin() + static_cast<std::ptrdiff_t>(from),
                             static_cast<char>(rng()));
            break;
        }
    }
    return d;
}

}  // namespace

// What is asserted for every mutation: an exit code of 0, 2 or 3, nothing on standard error
// but our own lines, exactly one "error:" line when refused, and, for a result (exit 0), that
// it equals the clean decode's histogram or says it is corrupt. PNG guards every byte with a
// CRC, so that holds for every mutation there. JPEG and TIFF carry no checksum: a flipped bit
// among the samples, or scan data that stays well-formed, decodes without any decoder noticing
// (libjpeg resynchronises on its Huffman codes) and is a different, valid file. For those two
// formats the last property is asserted where the damage is detectable (truncation, with or
// without an end marker appended), and for the other mutations the result must at least keep
// the clean image's size and channels; the count of changes nobody can detect is printed.
class CliFuzz : public ::testing::TestWithParam<std::string> {};

TEST_P(CliFuzz, MutatedPhotosAreRefusedOrExact) {
    const std::string photo = GetParam();
    const std::string clean = slurp(sample(photo));
    const bool png = photo.size() > 4 && photo.substr(photo.size() - 4) == ".png";
    const bool jpeg = photo.size() > 4 && photo.substr(photo.size() - 4) == ".jpg";
    const auto reference =
        parse_json(run_cli("hist " + quote(sample(photo)) + " --channels all --format json").out);
    const auto clean_counts = histograms(reference);
    const Scratch scratch("fuzz");
    const fs::path& dir = scratch.path;
    const fs::path path = dir / ("mutant" + fs::path(photo).extension().string());
    std::mt19937 rng(20261124u + static_cast<unsigned>(std::hash<std::string>{}(photo) % 1000));
    constexpr int kMutations = 30;
    int refused = 0, exact = 0, marked = 0, undetectable = 0;
    for (int i = 0; i < kMutations; ++i) {
        const auto m = static_cast<Mutation>(rng() % 6);
        put(path, mutate(clean, jpeg, m, rng));
        const auto r = run_cli("hist " + quote(path) + " --channels all --format json");
        const std::string what = photo + " mutation " + std::to_string(i) + " (" + name_of(m) + ")";
        ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 2 || r.exit_code == 3)
            << what << ": exit " << r.exit_code << "\n"
            << r.err;
        EXPECT_TRUE(only_our_lines(r.err)) << what << "\n" << r.err;
        if (r.exit_code != 0) {
            EXPECT_TRUE(one_error_line(r.err)) << what << "\n" << r.err;
            ++refused;
            continue;
        }
        const auto doc = parse_json(r.out);
        if (doc.at("corrupt").get<bool>()) {
            ++marked;
        } else if (histograms(doc) == clean_counts) {
            ++exact;
        } else {
            const bool detectable =
                png || m == Mutation::Truncate || m == Mutation::TruncateWithEnd;
            EXPECT_FALSE(detectable) << what << ": a different histogram without a corrupt note";
            EXPECT_EQ(doc.at("width").get<std::int64_t>(),
                      reference.at("width").get<std::int64_t>())
                << what;
            EXPECT_EQ(doc.at("height").get<std::int64_t>(),
                      reference.at("height").get<std::int64_t>())
                << what;
            EXPECT_EQ(doc.at("image_channels").get<std::int64_t>(),
                      reference.at("image_channels").get<std::int64_t>())
                << what;
            ++undetectable;
        }
    }
    std::cout << photo << ": " << kMutations << " mutations, " << refused << " refused, " << exact
              << " exact, " << marked << " marked corrupt, " << undetectable
              << " undetectable by the format\n";
    if (png) {
        EXPECT_EQ(undetectable, 0);
    }
}

INSTANTIATE_TEST_SUITE_P(BundledPhotos, CliFuzz,
                         ::testing::Values("fruits.jpg", "baboon.jpg", "starry_night.jpg",
                                           "HappyFish.jpg", "camera.png", "moon.png", "chelsea.png",
                                           "chessboard_GRAY_U16.tif"),
                         ParamName());
