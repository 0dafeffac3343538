// probe(): photo or video, decided from the file's first bytes and, failing that, by whether a
// video decoder reads a frame from it (a damaged video is reported with its reason).

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

MediaKind probe(const std::string& path) {
    const std::vector<std::uint8_t> head = detail::read_file_head(path, 64);
    const std::string name = detail::quoted(path);
    if (head.empty()) throw InputError(name + " is empty");
    // Every recognised image format counts, GIF included, so that read_image() explains what
    // it cannot decode.
    if (detail::sniff_image(head) != detail::ImageFormat::Unknown) return MediaKind::Image;
    if (!have_opencv())
        throw InputError(name + ": this build has no OpenCV: only --raw input is available");
    const std::optional<std::string> video = detail::video_problem(path);
    if (video && video->empty()) return MediaKind::Video;
    if (video) throw InputError(*video);
    throw InputError(name + " is not an image or video this build can read");
}

}  // namespace hs::media
