// probe(): camera raw file, photo or video, decided from the input's first bytes (a camera raw
// file also by its extension) and, failing that, by whether a video decoder reads a frame from
// it (a damaged video is reported with its reason).

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

MediaKind probe(const Source& source, const DecodeOptions& options) {
    const std::vector<std::uint8_t> head = detail::source_head(source, detail::kCameraRawHead);
    const std::string& name = source.name();
    if (head.empty()) throw InputError(name + " is empty");
    // Before photos: a DNG, NEF, ... is laid out as a TIFF whose first image is a preview.
    if (detail::camera_raw_format(head, source.path())) return MediaKind::CameraRaw;
    // Every recognised image format counts, GIF included, so that read_image() explains what
    // it cannot decode.
    if (detail::sniff_image(head) != detail::ImageFormat::Unknown) return MediaKind::Image;
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
