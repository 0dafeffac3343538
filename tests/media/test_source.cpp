// Stream inputs (pipes, FIFOs, character devices, standard input): read once, whole, into a
// media::Source, then probed and decoded from memory exactly as the file is, photos and video;
// refused when empty, when their first bytes are no photo or video, when a header declares too
// many pixels, and when they hold more than the limit.

#include <gtest/gtest.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <thread>
#include <vector>

#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "media_test_support.hpp"
#include "pipe_writing.hpp"
#include "synthetic.hpp"

using namespace hs;
using hs::test::message_of;
using hs::test::read_bytes;
using hs::test::sample;
using hs::test::ScratchDir;

namespace {

// A pipe fed by a thread: `path()` names its reading end as /dev/fd/N. The writer writes
// `bytes` `repeat` times in pieces, then closes its end; it stops at once when the reader goes
// away (EPIPE), so a reader that refuses early never leaves it blocked.
class PipeFeed {
  public:
    explicit PipeFeed(std::vector<std::uint8_t> bytes, int repeat = 1)
        : bytes_(std::move(bytes)), repeat_(repeat) {
        ::signal(SIGPIPE, SIG_IGN);
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
        read_ = fds[0];
        write_ = fds[1];
        thread_ = std::thread([this] { run(); });
    }
    ~PipeFeed() {
        ::close(read_);  // a writer still blocked gets EPIPE
        thread_.join();
    }
    PipeFeed(const PipeFeed&) = delete;
    PipeFeed& operator=(const PipeFeed&) = delete;
    std::string path() const { return "/dev/fd/" + std::to_string(read_); }

  private:
    void run() {
        for (int i = 0; i < repeat_; ++i)
            if (!test::write_in_pieces(write_, bytes_.data(), bytes_.size(), 65536)) break;
        ::close(write_);
    }

    std::vector<std::uint8_t> bytes_;
    int repeat_;
    int read_ = -1, write_ = -1;
    std::thread thread_;
};

// The same pixels at the same declared depth.
bool same_pixels(const ImageView& a, const ImageView& b) {
    return a.bit_depth == b.bit_depth && test::same_samples(a, b);
}

}  // namespace

TEST(StreamInput, PipesFifosAndDevicesAreStreamsFilesAreNot) {
    const ScratchDir dir;
    const std::string fifo = dir.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_TRUE(media::is_stream_input(fifo));
    EXPECT_TRUE(media::is_stream_input("/dev/null"));
    const PipeFeed feed({1, 2, 3});
    EXPECT_TRUE(media::is_stream_input(feed.path()));
    EXPECT_FALSE(media::is_stream_input(sample("fruits.jpg")));
    EXPECT_FALSE(media::is_stream_input(dir.path().string()));
    EXPECT_FALSE(media::is_stream_input(dir.file("missing.png")));
    // A file is named, not read.
    const media::Source file(sample("fruits.jpg"));
    EXPECT_EQ(file.bytes(), nullptr);
    EXPECT_EQ(file.name(), "'" + sample("fruits.jpg") + "'");
}

TEST(StreamInput, TheLimitIsEightBytesAPixelPlus64MiB) {
    media::DecodeOptions options;
    EXPECT_EQ(media::stream_input_limit(options), (std::uint64_t{1} << 33) + (64u << 20));
    options.max_pixels = 1024;
    EXPECT_EQ(media::stream_input_limit(options), 8192u + (64u << 20));
    options.max_pixels = ~std::uint64_t{0};  // no overflow
    EXPECT_GT(media::stream_input_limit(options), std::uint64_t{1} << 62);
}

TEST(StreamInput, PhotosFromAPipeDecodeAsTheirFiles) {
    for (const std::string name : {"fruits.jpg", "camera.png", "moon_4k_16bit.png",
                                   "chessboard_GRAY_U16.tif", "chelsea.png"}) {
        const std::vector<std::uint8_t> bytes = read_bytes(sample(name));
        const PipeFeed feed(bytes);
        const media::Source source(feed.path());
        ASSERT_NE(source.bytes(), nullptr) << name;
        EXPECT_EQ(*source.bytes(), bytes) << name;
        EXPECT_EQ(source.name(), "'" + feed.path() + "'");
        EXPECT_EQ(media::probe(source), media::MediaKind::Image) << name;
        // Probing left the bytes for decoding: the pipe was read once.
        const media::LoadedImage piped = media::read_image(source);
        const media::LoadedImage file = media::read_image(sample(name));
        EXPECT_EQ(piped.format, file.format) << name;
        EXPECT_TRUE(same_pixels(piped.image.view(), file.image.view())) << name;
    }
}

TEST(StreamInput, VideoFromAPipeDecodesAsItsFile) {
    const std::string clip = sample("tree.avi");
    const PipeFeed feed(read_bytes(clip));
    const media::Source source(feed.path());
    ASSERT_EQ(media::probe(source), media::MediaKind::Video);
    media::VideoReader piped(source), file(clip);
    EXPECT_EQ(piped.frame_count(), file.frame_count());
    EXPECT_EQ(piped.frames_in_file(), file.frames_in_file());
    EXPECT_EQ(piped.codec(), file.codec());
    EXPECT_DOUBLE_EQ(piped.fps(), file.fps());
    Image a, b;
    for (int i = 0; i < 8; ++i) {
        ASSERT_EQ(piped.read_frame(a), media::VideoReader::FrameStatus::Ok) << i;
        ASSERT_EQ(file.read_frame(b), media::VideoReader::FrameStatus::Ok) << i;
        EXPECT_TRUE(same_pixels(a.view(), b.view())) << "frame " << i;
    }
    // Memory is seekable as a file is.
    piped.seek(30);
    file.seek(30);
    ASSERT_EQ(piped.read_frame(a), media::VideoReader::FrameStatus::Ok);
    ASSERT_EQ(file.read_frame(b), media::VideoReader::FrameStatus::Ok);
    EXPECT_TRUE(same_pixels(a.view(), b.view()));
}

TEST(StreamInput, EmptyNoMediaHugeHeadersAndTooMuchDataAreRefused) {
    {
        const PipeFeed feed({});
        EXPECT_EQ(message_of<InputError>([&] { media::Source s(feed.path()); }),
                  "'" + feed.path() + "' is empty");
    }
    EXPECT_EQ(message_of<InputError>([] { media::Source s("/dev/null"); }), "'/dev/null' is empty");
    {
        // 64 MiB of zeros: refused from the first chunk, not read whole.
        const PipeFeed feed(std::vector<std::uint8_t>(1 << 20, 0), 64);
        EXPECT_EQ(message_of<InputError>([&] { media::Source s(feed.path()); }),
                  "'" + feed.path() + "' is not an image or video this build can read");
    }
    {
        // A 3840x2160 header with a limit of 1M pixels, followed by more data.
        std::vector<std::uint8_t> jpeg = read_bytes(sample("fruits_4k.jpg"));
        jpeg.resize(jpeg.size() + (2 << 20), 0);
        const PipeFeed feed(jpeg);
        media::DecodeOptions options;
        options.max_pixels = 1 << 20;
        EXPECT_NE(message_of<InputError>([&] {
                      media::Source s(feed.path(), options);
                  }).find("its JPEG header declares 3840x2160 pixels, more than the limit"),
                  std::string::npos);
    }
    {
        // A valid photo of 64 pixels, then more bytes than any image of 1K pixels needs.
        std::vector<std::uint8_t> png;
        ASSERT_TRUE(cv::imencode(".png", cv::Mat(8, 8, CV_8UC3, cv::Scalar(1, 2, 3)), png));
        png.resize((64u << 20) + 9000, 0);
        const PipeFeed feed(png);
        media::DecodeOptions options;
        options.max_pixels = 1024;
        const std::string why =
            message_of<InputError>([&] { media::Source s(feed.path(), options); });
        EXPECT_EQ(why.rfind("'" + feed.path() + "' holds more than 67117056 bytes", 0), 0u) << why;
    }
}
