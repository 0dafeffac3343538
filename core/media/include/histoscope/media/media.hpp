#pragma once
// Reading and writing media. The only part of Histoscope that touches OpenCV; raw frames
// work without it (HS_WITH_OPENCV=OFF), so a GPU host without OpenCV still reads --raw input.
//
// Every failure throws hs::InputError with one line naming the file and the problem
// (unreadable, corrupt, truncated, unsupported format, empty, wrong raw size) or
// hs::UsageError for a malformed raw format string. Nothing here prints.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/image.hpp"

namespace hs::media {

// True when built with OpenCV (photo and video decoding available).
bool have_opencv();

// What decoding a photo or video may cost and tolerate. Sizes come from a file's header, which
// a hostile file can make anything: they are checked against max_pixels (and, where the
// format allows, against what the file's data can hold) before anything is decoded.
inline constexpr std::uint64_t kDefaultMaxPixels = std::uint64_t{1} << 30;  // 1 Gi pixels
struct DecodeOptions {
    std::uint64_t max_pixels = kDefaultMaxPixels;  // per image or video frame
    // Decoder warnings (corrupt JPEG data, a PNG that ends early, a video frame decoded with
    // errors) are errors unless this is set; then the partial image is returned, marked
    // corrupt, with a note saying what was wrong.
    bool allow_corrupt = false;
};

// --- raw frames: "WxHxC:u8" or "WxHxC:u16" with an optional declared depth "WxHxC:u16:12".
// 16-bit samples are little-endian. Interleaved, rows tightly packed.
using RawFormat = FrameFormat;                        // WIDTHxHEIGHTxCHANNELS:u8|u16[:DEPTH]
RawFormat parse_raw_format(const std::string& text);  // throws UsageError
std::string to_string(const RawFormat& format);

// Reads the whole file ("-" = standard input). Its size must be a positive multiple of the
// frame size; the result holds every frame.
struct RawFrames {
    RawFormat format;
    std::vector<Image> frames;
};
RawFrames read_raw(const std::string& path, const RawFormat& format);

// Raw frames read one at a time (streams of any length: a file or standard input, "-").
class RawStreamReader {
  public:
    RawStreamReader(const std::string& path, const RawFormat& format);  // throws InputError
    ~RawStreamReader();
    RawStreamReader(const RawStreamReader&) = delete;
    RawStreamReader& operator=(const RawStreamReader&) = delete;

    const RawFormat& format() const { return format_; }
    // Reads the next frame into `dst` (format().frame_bytes() bytes, 16-bit samples in host
    // order) and returns the bytes read: frame_bytes() for a whole frame, 0 at the end, or
    // fewer when the stream ends inside a frame (a truncated frame; the end follows). Throws
    // InputError when reading fails.
    std::size_t read_into(std::byte* dst);
    // Starts over at the first frame; false for standard input and other unseekable streams.
    bool rewind();

  private:
    std::FILE* file_ = nullptr;
    bool owned_ = false;
    std::string name_;
    RawFormat format_;
};

// --- photos
struct LoadedImage {
    Image image;
    std::string format;              // "JPEG", "PNG", "TIFF", "BMP", "WebP", ...
    std::vector<std::string> notes;  // e.g. "multi-page TIFF: using page 1 of 3"
    bool corrupt = false;            // only with DecodeOptions::allow_corrupt (see notes)
};
// Reads a photo keeping its depth (8/16-bit) and alpha, channels in RGB(A) order. JPEG and PNG
// are decoded by libjpeg and libpng directly, every other format by OpenCV; nothing is printed.
LoadedImage read_image(const std::string& path, const DecodeOptions& options = {});
// Writes 8/16-bit 1/3/4-channel images; the format follows the extension: .png and .tif/.tiff
// store everything; .jpg/.jpeg, .bmp and .webp store 8-bit gray or RGB; .ppm (RGB), .pgm (gray)
// and .pnm (either) store 8 or 16 bits. Another extension, or an image the format cannot hold
// without loss of depth or alpha, is an InputError naming the path.
void write_image(const std::string& path, const ImageView& image);

// --- video
class VideoReader {
  public:
    explicit VideoReader(const std::string& path);  // throws InputError
    ~VideoReader();
    VideoReader(const VideoReader&) = delete;
    VideoReader& operator=(const VideoReader&) = delete;

    int width() const;
    int height() const;
    // As the container reports it (may be an estimate where it stores none); for AVI, the
    // frames its index lists with data, since empty "dropped frame" entries decode to nothing.
    std::int64_t frame_count() const;
    double fps() const;
    std::string codec() const;      // FourCC, e.g. "FMP4", "avc1"
    void seek(std::int64_t frame);  // throws InputError when out of range
    // Next frame in RGB order (8-bit), or std::nullopt at the end; throws InputError for a
    // frame that fails to decode before the reported end.
    std::optional<Image> read();

    // For streams that go on past bad frames: the next frame into `out` (Ok), a frame that
    // failed to decode before the reported end (Failed: it is skipped and the next call tries
    // the next one), or the end (End). After 16 failures in a row the rest of the stream is
    // taken as missing and End follows. Never throws for a decode failure. `out` keeps its
    // storage when it already has the frame's shape (no allocation per frame).
    enum class FrameStatus { Ok, Failed, End };
    FrameStatus read_frame(Image& out);
    // Index of the frame the next read returns.
    std::int64_t position() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Writes 8-bit RGB frames of one size to a video file (OpenCV's VideoWriter): .mp4 (MPEG-4
// Part 2, "mp4v"), .avi (Motion JPEG), .mkv ("XVID"). Throws InputError when the file cannot be
// opened for the format or a frame does not match. The frames go to a temporary file
// (AtomicFile) that close() puts in place; a writer destroyed without close() leaves an
// existing file untouched.
class VideoWriter {
  public:
    VideoWriter(const std::string& path, int width, int height, double fps);
    ~VideoWriter();
    VideoWriter(const VideoWriter&) = delete;
    VideoWriter& operator=(const VideoWriter&) = delete;
    void write(const ImageView& rgb);
    void close();

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};
// True for the extensions VideoWriter writes.
bool is_video_path(const std::string& path);

// --- any input
enum class MediaKind { Image, Video, Raw };
// Decides from the file's first bytes (and, failing that, whether a video decoder opens it).
MediaKind probe(const std::string& path);

// Adds the engines that live in media (the "opencv" engine: cv::calcHist), when built with
// OpenCV.
void register_engines(EngineRegistry& registry);

}  // namespace hs::media
