// histoscope-cli reading photos and video that are not files: standard input ("-"; redirected
// from a file, it is that file), pipes named by /dev/fd/N (a shell's <(...)), named FIFOs fed by
// a slow writer. Each is read once, whole, and must give exactly what the same command gives on
// the file, refuse what the file would be refused for with the same message (naming the input
// as typed), and never hang: every command runs under `timeout`, and a hang shows as exit
// code 124.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "cli_helpers.hpp"
#include "damaged_media.hpp"
#include "pipe_writing.hpp"
#include "synthetic.hpp"

using namespace hs::test;
namespace fs = std::filesystem;

namespace {

// The CLI with `args`, stopped after two minutes: a hang fails the test with exit code 124.
std::string timed_cli(const std::string& args) {
    return "timeout 120 " + cli() + " " + args;
}

CommandResult run_timed(const std::string& args) {
    return run_command(timed_cli(args));
}

// What hist's JSON says about the pixels: everything but the input's name and the timing.
hs::cli::Json counted(const std::string& json) {
    hs::cli::Json j = parse_json(json);
    j.erase("input");
    j.erase("timing_ms");
    return j;
}

// `text` with every `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// Writes `bytes` into the FIFO at `path` from a thread, `piece` bytes at a time with a pause
// between them, as a slow producer does. It waits for a reader for at most a minute and stops
// when the reader goes away, so that a test never waits on it forever.
class FifoWriter {
  public:
    FifoWriter(fs::path path, std::string bytes, std::size_t piece = 4096)
        : path_(std::move(path)), bytes_(std::move(bytes)), piece_(piece) {
        ::signal(SIGPIPE, SIG_IGN);  // a reader that stops early is an EPIPE here, not a death
        thread_ = std::thread([this] { run(); });
    }
    ~FifoWriter() { thread_.join(); }
    FifoWriter(const FifoWriter&) = delete;
    FifoWriter& operator=(const FifoWriter&) = delete;

  private:
    void run() const {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
        int fd = -1;
        // Non-blocking: fails with ENXIO until a reader has the FIFO open.
        while ((fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO &&
               std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (fd < 0) return;
        ::fcntl(fd, F_SETFL, 0);  // blocking writes from here on
        write_in_pieces(fd, bytes_.data(), bytes_.size(), piece_, std::chrono::microseconds(200));
        ::close(fd);
    }

    fs::path path_;
    std::string bytes_;
    std::size_t piece_;
    std::thread thread_;
};

fs::path make_fifo(const fs::path& dir, const std::string& name) {
    const fs::path p = dir / name;
    if (::mkfifo(p.c_str(), 0600) != 0) ADD_FAILURE() << "mkfifo " << p << " failed";
    return p;
}

}  // namespace

// --- photos on standard input and through pipes give the counts of the file

TEST(CliPipes, StandardInputGivesTheCountsOfTheFile) {
    for (const std::string name :
         {"fruits.jpg", "chelsea.png", "moon_4k_16bit.png", "chessboard_GRAY_U16.tif"}) {
        const std::string path = sample(name);
        const auto file = run_timed("hist " + quote(path) + " --format json --stats");
        ASSERT_EQ(file.exit_code, 0) << name << "\n" << file.err;
        const auto redirected = run_timed("hist - --format json --stats < " + quote(path));
        ASSERT_EQ(redirected.exit_code, 0) << name << "\n" << redirected.err;
        EXPECT_EQ(redirected.err, "") << name;
        EXPECT_EQ(parse_json(redirected.out).at("input"), "-");
        EXPECT_EQ(counted(redirected.out), counted(file.out)) << name;
        const auto piped =
            run_command("cat " + quote(path) + " | " + timed_cli("hist - --format json --stats"));
        ASSERT_EQ(piped.exit_code, 0) << name << "\n" << piped.err;
        EXPECT_EQ(counted(piped.out), counted(file.out)) << name;
    }
}

TEST(CliPipes, PipePathsAndProcessSubstitutionGiveTheCountsOfTheFile) {
    for (const std::string name : {"baboon.jpg", "moon.png"}) {
        const std::string path = sample(name);
        const auto file = run_timed("hist " + quote(path) + " --format json");
        ASSERT_EQ(file.exit_code, 0) << file.err;
        // A pipe on descriptor 5, named as a path.
        const auto fd = run_command("cat " + quote(path) + " | " +
                                    timed_cli("hist /dev/fd/5 --format json") + " 5<&0");
        ASSERT_EQ(fd.exit_code, 0) << name << "\n" << fd.err;
        EXPECT_EQ(parse_json(fd.out).at("input"), "/dev/fd/5");
        EXPECT_EQ(counted(fd.out), counted(file.out)) << name;
        // What an interactive shell does with <(...).
        const auto substituted = run_command(
            "bash -c \"" + timed_cli("hist <(cat " + quote(path) + ") --format json") + "\"");
        ASSERT_EQ(substituted.exit_code, 0) << name << "\n" << substituted.err;
        EXPECT_EQ(counted(substituted.out), counted(file.out)) << name;
    }
    expect_refused(run_command("bash -c \"" + timed_cli("hist <(true)") + "\""), "empty <(...)",
                   "' is empty");
}

TEST(CliPipes, NamedFifoFedSlowlyGivesTheCountsOfTheFile) {
    const Scratch scratch("fifo");
    for (const std::string name : {"fruits.jpg", "moon_4k_16bit.png"}) {
        const std::string path = sample(name);
        const auto file = run_timed("hist " + quote(path) + " --format json");
        ASSERT_EQ(file.exit_code, 0) << file.err;
        const fs::path fifo = make_fifo(scratch.path, "in-" + name);
        CommandResult r;
        {
            const FifoWriter writer(fifo, slurp(path), name == "fruits.jpg" ? 4096 : 1 << 16);
            r = run_timed("hist " + quote(fifo) + " --format json");
        }
        ASSERT_EQ(r.exit_code, 0) << name << "\n" << r.err;
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(counted(r.out), counted(file.out)) << name;
    }
    // info of a FIFO, and a FIFO whose writer sends nothing.
    const fs::path fifo = make_fifo(scratch.path, "info.png");
    CommandResult info;
    {
        const FifoWriter writer(fifo, slurp(sample("moon_4k_16bit.png")), 1 << 16);
        info = run_timed("info " + quote(fifo) + " --format json");
    }
    ASSERT_EQ(info.exit_code, 0) << info.err;
    const auto j = parse_json(info.out);
    EXPECT_EQ(j.at("format"), "PNG");
    EXPECT_EQ(j.at("depth"), 16);
    EXPECT_EQ(j.at("width"), 3840);
    const fs::path empty = make_fifo(scratch.path, "empty");
    CommandResult nothing;
    {
        const FifoWriter writer(empty, "");
        nothing = run_timed("hist " + quote(empty));
    }
    expect_refused(nothing, "empty FIFO", "error: " + quote(empty) + " is empty");
}

// An endless device gives the frame asked for and no more is read; a FIFO that nobody opens at
// its other end is refused after a wait (a blocking open() would wait forever). The three FIFOs
// wait at the same time; `timeout` turns a hang into exit code 124.
TEST(CliPipes, EndlessDevicesAndFifosWithNobodyAtTheOtherEndDoNotHang) {
    for (const std::string frame : {"", " --frame 2"}) {
        const auto zero = run_command("timeout 60 " + cli() + " hist --raw 64x64x1:u8 /dev/zero" +
                                      frame + " --format json");
        ASSERT_EQ(zero.exit_code, 0) << frame << "\n" << zero.err;
        EXPECT_EQ(counts_of(parse_json(zero.out).at("channels")[0])[0], 4096u) << frame;
    }
    // Counting the frames of a device would never end.
    expect_refused(run_command("timeout 60 " + cli() + " info --raw 64x64x1:u8 /dev/zero"),
                   "info of /dev/zero", "'/dev/zero' is a device: it has no end");

    const Scratch scratch("fifo-alone");
    const fs::path photo = make_fifo(scratch.path, "photo.png");
    const fs::path raw = make_fifo(scratch.path, "frames.raw");
    const fs::path out = make_fifo(scratch.path, "out.csv");
    const auto started = std::chrono::steady_clock::now();
    auto no_writer = std::async(std::launch::async, [&] {
        return run_command("timeout 60 " + cli() + " hist " + quote(photo));
    });
    auto no_raw_writer = std::async(std::launch::async, [&] {
        return run_command("timeout 60 " + cli() + " hist --raw 4x4x1:u8 " + quote(raw));
    });
    auto no_reader = std::async(std::launch::async, [&] {
        return run_command("timeout 60 " + cli() + " hist " + quote(sample("camera.png")) +
                           " --format csv -o " + quote(out));
    });
    expect_refused(no_writer.get(), "FIFO input", "no program opened the FIFO for writing");
    expect_refused(no_raw_writer.get(), "raw FIFO input", "no program opened the FIFO for writing");
    expect_refused(no_reader.get(), "FIFO output", "no program opened the FIFO for reading");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(45));
    // Nothing was created beside them.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(scratch.path)) ++entries;
    EXPECT_EQ(entries, 3u);
}

TEST(CliPipes, InfoOfStandardInput) {
    const auto r = run_timed("info - --format json < " + quote(sample("chelsea.png")));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto j = parse_json(r.out);
    EXPECT_EQ(j.at("input"), "-");
    EXPECT_EQ(j.at("kind"), "image");
    EXPECT_EQ(j.at("format"), "PNG");
    const auto file = run_timed("info " + quote(sample("chelsea.png")) + " --format json");
    ASSERT_EQ(file.exit_code, 0) << file.err;
    EXPECT_EQ(counted(r.out), counted(file.out));
    const auto text = run_timed("info - < " + quote(sample("fruits.jpg")));
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_EQ(text.out.rfind("-: image (JPEG)\n", 0), 0u) << text.out;
}

// --- errors: an empty pipe, damaged data, what is not a photo

TEST(CliPipes, AnEmptyPipeIsAnError) {
    for (const std::string command :
         {"hist -", "info -", "bench - --runs 20 --warmup 0", "equalize - -o /dev/null"}) {
        expect_refused(run_timed(command + " < /dev/null"), command,
                       "error: standard input is empty\n");
        expect_refused(run_command("true | " + timed_cli(command)), "true | " + command,
                       "error: standard input is empty\n");
    }
}

TEST(CliPipes, DamagedJpegThroughAPipeIsRefusedAsTheFileIs) {
    const Scratch scratch("damaged");
    const std::string clean = slurp(sample("fruits.jpg"));
    const fs::path cut = scratch.path / "cut.jpg", damaged = scratch.path / "damaged.jpg";
    std::ofstream(cut, std::ios::binary) << clean.substr(0, clean.size() * 2 / 3);
    write_damaged_copy(sample("fruits.jpg"), damaged.string(), 2000);
    for (const fs::path& p : {cut, damaged}) {
        const auto file = run_timed("hist " + quote(p));
        expect_refused(file, p.string(), quote(p));
        const auto piped = run_command("cat " + quote(p) + " | " + timed_cli("hist -"));
        expect_refused(piped, "piped " + p.string(), "standard input");
        EXPECT_EQ(piped.err, replaced(file.err, quote(p), "standard input"));
        // With --allow-corrupt, the partial image of the pipe is the file's.
        const auto file_kept = run_timed("hist " + quote(p) + " --allow-corrupt --format json");
        const auto pipe_kept = run_timed("hist - --allow-corrupt --format json < " + quote(p));
        ASSERT_EQ(file_kept.exit_code, 0) << file_kept.err;
        ASSERT_EQ(pipe_kept.exit_code, 0) << pipe_kept.err;
        EXPECT_TRUE(parse_json(pipe_kept.out).at("corrupt").get<bool>());
        EXPECT_EQ(counted(pipe_kept.out), counted(file_kept.out));
        EXPECT_EQ(pipe_kept.err, replaced(file_kept.err, quote(p), "standard input"));
    }
}

TEST(CliPipes, DataThatIsNoPhotoIsRefusedWithoutReadingItAll) {
    // /dev/zero never ends: refused from its first bytes, never read into memory whole.
    expect_refused(run_timed("hist /dev/zero"), "/dev/zero",
                   "error: '/dev/zero' is not an image or video this build can read\n");
    expect_refused(run_command("head -c 3000000 /dev/urandom 2>/dev/null | " + timed_cli("info -")),
                   "noise", "error: standard input is not an image or video this build can read\n");
    // A header declaring more than --max-pixels, followed by endless data.
    expect_refused(run_command("cat " + quote(sample("fruits_4k.jpg")) +
                               " /dev/zero 2>/dev/null | " + timed_cli("hist - --max-pixels 1M")),
                   "4K JPEG then zeros",
                   "standard input: its JPEG header declares 3840x2160 pixels, more than the limit "
                   "of 1048576 pixels");
}

TEST(CliPipes, PipedDataLargerThanAnyAllowedImageIsRefused) {
    const Scratch scratch("limit");
    const fs::path small = scratch.path / "small.png";
    ASSERT_TRUE(cv::imwrite(small.string(), cv::Mat(8, 8, CV_8UC3, cv::Scalar(10, 20, 30))));
    // --max-pixels 1K allows 1024 * 8 bytes plus 64 MiB; a valid PNG followed by 70 MB is more.
    const std::string limit = std::to_string(1024 * 8 + (64 << 20));
    expect_refused(
        run_command("(cat " + quote(small) + "; head -c 70000000 /dev/zero) 2>/dev/null | " +
                    timed_cli("hist - --max-pixels 1K")),
        "70 MB", "error: standard input holds more than " + limit + " bytes");
    // Within the limit, the data after the PNG's end is ignored as it is in a file.
    const auto within = run_command("(cat " + quote(small) + "; head -c 1000000 /dev/zero) | " +
                                    timed_cli("hist - --max-pixels 1K --format json"));
    ASSERT_EQ(within.exit_code, 0) << within.err;
    EXPECT_EQ(parse_json(within.out).at("width"), 8);
    // Standard input redirected from a file is that file, read where it lies: no such limit.
    const fs::path padded = scratch.path / "padded.png";
    std::ofstream(padded, std::ios::binary) << slurp(small) << std::string(70000000, '\0');
    const auto file = run_timed("hist - --max-pixels 1K --format json < " + quote(padded));
    ASSERT_EQ(file.exit_code, 0) << file.err;
    EXPECT_EQ(parse_json(file.out).at("width"), 8);
}

// --- equalize, its reference, bench

TEST(CliPipes, EqualizeReadsItsInputAndItsReferenceFromPipes) {
    const Scratch scratch("equalize");
    const fs::path& dir = scratch.path;
    for (const std::string name : {"fruits.jpg", "moon_4k_16bit.png"}) {
        const auto file =
            run_timed("equalize " + quote(sample(name)) + " -o " + quote(dir / "file.png"));
        ASSERT_EQ(file.exit_code, 0) << file.err;
        const auto piped =
            run_timed("equalize - -o " + quote(dir / "piped.png") + " < " + quote(sample(name)));
        ASSERT_EQ(piped.exit_code, 0) << piped.err;
        EXPECT_EQ(piped.err, "");
        EXPECT_EQ(slurp(dir / "piped.png"), slurp(dir / "file.png")) << name;
    }
    const std::string match =
        "equalize " + quote(sample("fruits.jpg")) + " --mode match --reference ";
    const auto file =
        run_timed(match + quote(sample("baboon.jpg")) + " -o " + quote(dir / "m-file.png"));
    ASSERT_EQ(file.exit_code, 0) << file.err;
    const auto piped = run_command("cat " + quote(sample("baboon.jpg")) + " | " +
                                   timed_cli(match + "- -o " + quote(dir / "m-piped.png")));
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_EQ(slurp(dir / "m-piped.png"), slurp(dir / "m-file.png"));
}

TEST(CliPipes, BenchTakesStandardInputAmongItsFiles) {
    const auto r = run_command("cat " + quote(sample("fruits.jpg")) + " | " +
                               timed_cli("bench " + quote(sample("baboon.jpg")) +
                                         " - --kernels cpu --runs 20 --warmup 0 --format json"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto results = parse_json(r.out).at("results");
    ASSERT_EQ(results.size(), 2u);
    EXPECT_EQ(results[1].at("input"), "-");
    EXPECT_EQ(results[1].at("width"), 512);
    EXPECT_TRUE(results[1].at("verified").get<bool>());
}

// --- an output never replaces an input, and a pipe is never the output's file

TEST(CliPipes, OutputOntoTheFileStandardInputComesFromIsRefused) {
    const Scratch scratch("onto");
    const fs::path copy = scratch.path / "copy.png";
    fs::copy_file(sample("chelsea.png"), copy);
    const std::string before = slurp(copy);
    for (const std::string command : {"hist - -o ", "info - -o ", "equalize - -o "})
        expect_refused(run_timed(command + quote(copy) + " < " + quote(copy)), command,
                       "an output never replaces its input", 2);
    EXPECT_EQ(slurp(copy), before);
    const fs::path out = scratch.path / "counts.txt";
    const auto piped =
        run_command("cat " + quote(copy) + " | " + timed_cli("hist - -o " + quote(out)));
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_NE(slurp(out).find("bin\tlower\tupper"), std::string::npos);
}

// --- video through a pipe: held in memory, read as the file is

TEST(CliPipes, VideoThroughAPipeIsReadAsTheFile) {
    const std::string clip = sample("tree.avi");
    const auto file = run_timed("hist " + quote(clip) + " --frame 5 --format json");
    ASSERT_EQ(file.exit_code, 0) << file.err;
    const auto piped =
        run_command("cat " + quote(clip) + " | " + timed_cli("hist - --frame 5 --format json"));
    ASSERT_EQ(piped.exit_code, 0) << piped.err;
    EXPECT_EQ(counted(piped.out), counted(file.out));

    const auto file_info = run_timed("info " + quote(clip) + " --format json");
    const auto pipe_info = run_timed("info - --format json < " + quote(clip));
    ASSERT_EQ(pipe_info.exit_code, 0) << pipe_info.err;
    for (const char* key : {"kind", "format", "frames", "frames_in_file", "fps", "width"})
        EXPECT_EQ(parse_json(pipe_info.out).at(key), parse_json(file_info.out).at(key)) << key;

    const std::string per_frame = " --per-frame --frames 6 --format csv";
    const auto file_frames = run_timed("hist " + quote(clip) + per_frame);
    const auto pipe_frames = run_timed("hist -" + per_frame + " < " + quote(clip));
    ASSERT_EQ(pipe_frames.exit_code, 0) << pipe_frames.err;
    EXPECT_EQ(pipe_frames.out, file_frames.out);

    // A cut MP4 (its index lost) is refused as the file is.
    const Scratch scratch("video");
    const fs::path cut = scratch.path / "cut.mp4";
    std::ofstream(cut, std::ios::binary) << slurp(sample("starry_pan_4k.mp4")).substr(0, 300000);
    const auto cut_file = run_timed("info " + quote(cut));
    expect_refused(cut_file, "cut mp4", "as a video");
    const auto cut_pipe = run_command("cat " + quote(cut) + " | " + timed_cli("info -"));
    EXPECT_EQ(cut_pipe.exit_code, 3);
    EXPECT_EQ(cut_pipe.err, replaced(cut_file.err, quote(cut), "standard input"));
}
