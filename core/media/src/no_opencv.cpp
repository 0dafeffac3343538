// The entry points of media.hpp that need OpenCV, in a build without it
// (HS_WITH_OPENCV=OFF): each reports that only raw input is available. Raw frames and
// probe() by magic bytes work in both builds.

#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

[[noreturn]] void no_opencv(const std::string& path) {
    throw InputError(detail::quoted(path) +
                     ": this build has no OpenCV: only --raw input is available");
}

// A missing, unreadable or empty input is reported as such first.
[[noreturn]] void no_opencv(const Source& source) {
    if (detail::source_head(source, 1).empty()) throw InputError(source.name() + " is empty");
    detail::not_media(source.name());
}

[[noreturn]] void no_video() {
    throw InputError("video: this build has no OpenCV: only --raw input is available");
}

[[noreturn]] void no_libraw() {
    throw InputError("camera raw: this build has no LibRaw: only --raw input is available");
}

}  // namespace

LoadedImage read_image(const Source& source, const DecodeOptions&) {
    no_opencv(source);
}

LoadedImage read_image(const std::string& path, const DecodeOptions& options) {
    no_opencv(Source(path, options));
}

void write_image(const std::string& path, const ImageView&) {
    no_opencv(path);
}

const std::vector<std::string>& image_output_extensions() {
    static const std::vector<std::string> none;
    return none;
}

void check_image_output(const std::string& path, const std::vector<std::string>&) {
    no_opencv(path);
}

void check_image_output(const std::string& path, SampleType, int) {
    no_opencv(path);
}

struct VideoReader::Impl {};

VideoReader::VideoReader(const Source& source, const DecodeOptions&) {
    no_opencv(source);
}
VideoReader::VideoReader(const std::string& path, const DecodeOptions& options) {
    no_opencv(Source(path, options));
}
VideoReader::~VideoReader() = default;
// No VideoReader can exist in this build (the constructor always throws); the members only
// complete the class, and say the same if ever reached.
int VideoReader::width() const {
    no_video();
}
int VideoReader::height() const {
    no_video();
}
std::int64_t VideoReader::frame_count() const {
    no_video();
}
double VideoReader::fps() const {
    no_video();
}
bool VideoReader::fps_nominal() const {
    no_video();
}
std::string VideoReader::codec() const {
    no_video();
}
VideoReader::FrameStatus VideoReader::read_frame(Image&) {
    no_video();
}
VideoReader::FrameStatus VideoReader::read_frame_into(std::byte*) {
    no_video();
}
VideoReader::FrameStatus VideoReader::read_first_good(Image&, std::vector<std::string>&) {
    no_video();
}
std::int64_t VideoReader::position() const {
    no_video();
}
double VideoReader::frame_time(std::int64_t) const {
    no_video();
}
std::int64_t VideoReader::frames_in_file() const {
    no_video();
}
bool VideoReader::corrupt() const {
    no_video();
}
bool VideoReader::frames_counted() const {
    no_video();
}
std::string VideoReader::missing_frames() const {
    no_video();
}
const VideoCoding& VideoReader::coding() const {
    no_video();
}
FrameFormat VideoReader::frame_format() const {
    no_video();
}
void VideoReader::set_rgb(bool) {
    no_video();
}
void VideoReader::set_planes(bool) {
    no_video();
}
VideoPlanes VideoReader::planes() const {
    no_video();
}
const std::string& VideoReader::failure() const {
    no_video();
}
struct VideoWriter::Impl {};
VideoWriter::VideoWriter(const std::string& path, const FrameFormat&, double, const Colour&) {
    no_opencv(path);
}
VideoWriter::VideoWriter(const std::string& path, int, int, double) {
    no_opencv(path);
}
VideoWriter::~VideoWriter() = default;
void VideoWriter::write(const ImageView&) {
    no_video();
}
void VideoWriter::write(const ImageView&, double) {
    no_video();
}
void VideoWriter::close() {}
std::string video_output_problem(const std::string&, const FrameFormat&) {
    return "";  // the writer refuses every video in this build
}
bool is_video_path(const std::string& path) {
    const std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : std::string();
    return ext == ".mp4" || ext == ".avi" || ext == ".mkv";
}

void VideoReader::seek(std::int64_t) {
    no_video();
}
std::optional<Image> VideoReader::read() {
    no_video();
}

// Camera raw files are recognised (probe() says CameraRaw) but not read: LibRaw comes with the
// photo decoders. No reader can exist (the constructor always throws); the members only
// complete the class.
struct CameraRawReader::Impl {};
CameraRawReader::CameraRawReader(const Source& source, const DecodeOptions&) {
    if (detail::source_head(source, 1).empty()) throw InputError(source.name() + " is empty");
    throw InputError(source.name() +
                     " is a camera raw file: this build has no LibRaw (nor OpenCV): only --raw "
                     "input is available");
}
CameraRawReader::~CameraRawReader() = default;
const CameraRawInfo& CameraRawReader::info() const {
    no_libraw();
}
Image CameraRawReader::mosaic() const {
    no_libraw();
}
Image CameraRawReader::demosaiced() {
    no_libraw();
}
Image CameraRawReader::view(CameraRawView) {
    no_libraw();
}
const std::vector<std::string>& CameraRawReader::notes() const {
    no_libraw();
}
bool CameraRawReader::corrupt() const {
    no_libraw();
}

void register_engines(EngineRegistry&) {}

namespace detail {
std::optional<std::string> video_problem(const Source&, const DecodeOptions&) {
    return std::nullopt;
}
bool may_be_video(Bytes) {
    return false;
}
}  // namespace detail

}  // namespace hs::media
