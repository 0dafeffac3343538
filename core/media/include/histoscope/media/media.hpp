#pragma once
// Reading and writing media. The only part of Histoscope that touches OpenCV; raw frames
// work without it (HS_WITH_OPENCV=OFF), so a GPU host without OpenCV still reads --raw input.
//
// Every failure throws hs::InputError with one line naming the file and the problem
// (unreadable, corrupt, truncated, unsupported format, empty, wrong raw size) or
// hs::UsageError for a malformed raw format string. Nothing here prints.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "histoscope/core/engine.hpp"
#include "histoscope/core/image.hpp"

namespace hs::media {

// True when built with OpenCV (photo and video decoding available).
bool have_opencv();

// --- raw frames: "WxHxC:u8" or "WxHxC:u16" with an optional declared depth "WxHxC:u16:12".
// 16-bit samples are little-endian. Interleaved, rows tightly packed.
struct RawFormat {
    int width = 0, height = 0, channels = 0;
    SampleType type = SampleType::U8;
    int bit_depth = 8;
    std::size_t frame_bytes() const;
};
RawFormat parse_raw_format(const std::string& text);  // throws UsageError
std::string to_string(const RawFormat& format);

// Reads the whole file ("-" = standard input). Its size must be a positive multiple of the
// frame size; the result holds every frame.
struct RawFrames {
    RawFormat format;
    std::vector<Image> frames;
};
RawFrames read_raw(const std::string& path, const RawFormat& format);

// --- photos
struct LoadedImage {
    Image image;
    std::string format;              // "JPEG", "PNG", "TIFF", "BMP", "WebP", ...
    std::vector<std::string> notes;  // e.g. "multi-page TIFF: using page 1 of 3"
};
// Reads a photo keeping its depth (8/16-bit) and alpha, channels in RGB(A) order.
LoadedImage read_image(const std::string& path);
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

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// --- any input
enum class MediaKind { Image, Video, Raw };
// Decides from the file's first bytes (and, failing that, whether a video decoder opens it).
MediaKind probe(const std::string& path);

// Adds the engines that live in media (the "opencv" engine: cv::calcHist), when built with
// OpenCV.
void register_engines(EngineRegistry& registry);

}  // namespace hs::media
