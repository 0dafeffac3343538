// probe(): camera raw file, photo, raw frames or video, decided from the input's first bytes (a
// camera raw file also by its extension, raw frames by theirs) and, failing that, by whether a
// video decoder reads a frame from it (a damaged video is reported with its reason).

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <system_error>

#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

bool have_opencv() {
#ifdef HS_HAVE_OPENCV
    return true;
#else
    return false;
#endif
}

namespace detail {

void not_media(const std::string& name) {
    if (!have_opencv())
        throw InputError(name + ": this build has no OpenCV: only --raw input is available");
    throw InputError(name + " is not an image or video this build can read");
}

}  // namespace detail

namespace {

// A camera raw file's or a photo's by its first bytes, or nothing (no name is looked at).
std::optional<MediaKind> kind_of_head(detail::Bytes head, const std::string& path) {
    // Before photos: a DNG, NEF, ... is laid out as a TIFF whose first image is a preview.
    if (detail::camera_raw_format(head, path)) return MediaKind::CameraRaw;
    // Every recognised image format counts, GIF included, so that read_image() explains what
    // it cannot decode.
    if (detail::sniff_image(head) != detail::ImageFormat::Unknown) return MediaKind::Image;
    return std::nullopt;
}

}  // namespace

bool raw_frames_name(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext == ".raw" || ext == ".bin";
}

bool holds_raw_frames(const std::string& path) {
    if (!raw_frames_name(path)) return false;
    std::error_code error;
    const auto status = std::filesystem::status(path, error);
    if (error || !std::filesystem::exists(status)) return false;
    if (is_stream_input(path)) return true;
    // (Without a path, no extension counts: the bytes alone.)
    return !kind_of_head(detail::read_file_head(path, detail::kCameraRawHead), "");
}

void raw_format_needed(const std::string& name, const std::string& option) {
    throw UsageError(name + " holds raw frames, which carry no header: give their format with " +
                     option + " WxHxC:u8|u16[:DEPTH]|f32");
}

MediaKind probe(const Source& source, const DecodeOptions& options) {
    const std::vector<std::uint8_t> head = detail::source_head(source, detail::kCameraRawHead);
    const std::string& name = source.name();
    if (head.empty()) throw InputError(name + " is empty");
    if (const std::optional<MediaKind> kind = kind_of_head(head, source.path())) return *kind;
    // Frames of pixels carry no signature: they are not probed as a video either (FFmpeg may
    // take any bytes for some stream).
    if (raw_frames_name(source.path())) return MediaKind::Raw;
    if (!have_opencv()) detail::not_media(name);
    const std::optional<std::string> video = detail::video_problem(source, options);
    if (video && video->empty()) return MediaKind::Video;
    if (video) throw InputError(*video);
    detail::not_media(name);
}

MediaKind probe(const std::string& path) {
    return probe(Source(path));
}

}  // namespace hs::media
