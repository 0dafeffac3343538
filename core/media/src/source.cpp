// Sources of photos and video: files, and stream inputs (standard input, pipes, FIFOs,
// character devices) read once, whole, into memory. Probing a file and then decoding it reads
// the file twice; a pipe can be read only once, and a FIFO opened a second time waits for a
// writer that never comes, so a stream input is read here, once, and everything after works on
// its bytes. Needs no OpenCV.

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <limits>
#include <memory>
#include <system_error>

#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

// Headers, metadata (EXIF, ICC profiles, embedded previews) and container around the pixels.
constexpr std::uint64_t kOverheadBytes = std::uint64_t{64} << 20;
// The most bytes a pixel takes uncompressed: four 16-bit samples.
constexpr std::uint64_t kMaxBytesPerPixel = 8;
// Memory grows by this much at a time as the data arrives; the first chunk is also what the
// input's format and header are checked on before the rest is read.
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;

std::string reason(int error) {
    return std::error_code(error, std::generic_category()).message();
}

// An open descriptor of the input, closed at scope exit unless it is standard input.
class Descriptor {
  public:
    explicit Descriptor(const std::string& path) {
        if (path == "-") return;
        fd_ = detail::open_for_reading(path);  // a FIFO without a writer is not waited on forever
    }
    ~Descriptor() {
        if (fd_ != STDIN_FILENO) static_cast<void>(::close(fd_));
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return fd_; }

  private:
    int fd_ = STDIN_FILENO;
};

// Up to `size` bytes into `dst`, fewer only at the end of the input.
std::size_t fill(int fd, std::uint8_t* dst, std::size_t size, const std::string& name) {
    std::size_t got = 0;
    while (got < size) {
        const ssize_t n = ::read(fd, dst + got, size - got);
        if (n > 0) {
            got += static_cast<std::size_t>(n);
            continue;
        }
        if (n == 0) break;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            // A descriptor left non-blocking by whoever started us: wait for data as a blocking
            // one would.
            pollfd ready{fd, POLLIN, 0};
            static_cast<void>(::poll(&ready, 1, -1));
            continue;
        }
        throw InputError("cannot read " + name + ": " + reason(errno));
    }
    return got;
}

// What the first chunk of an input that goes on tells: data that is neither an image nor a
// container FFmpeg knows (/dev/zero, text) is refused before the rest is read, and so is an
// image whose header declares more pixels than allowed.
void check_start(detail::Bytes head, const std::string& path, const std::string& name,
                 const DecodeOptions& options) {
    const detail::ImageFormat format = detail::sniff_image(head);
    if (format == detail::ImageFormat::Unknown) {
        const bool camera_raw = detail::camera_raw_format(head, "").has_value();
        // Raw frames of no format given: their stream may have no end to wait for.
        if (!camera_raw && raw_frames_name(path)) raw_format_needed(name);
        if (!detail::may_be_video(head) && !camera_raw) detail::not_media(name);
        return;
    }
    // Only the size counts here: what the header says about the data is judged once all of it
    // is there.
    if (const auto header = detail::image_header(format, head))
        detail::check_pixel_limit(name,
                                  "its " + std::string(detail::format_name(format)) + " header",
                                  header->width, header->height, options.max_pixels);
}

std::vector<std::uint8_t> read_stream(const std::string& path, const std::string& name,
                                      const DecodeOptions& options) {
    const Descriptor input(path);
    if (::isatty(input.get()) == 1)
        throw InputError(name + " is a terminal: pipe a photo or video into it, or name a file");
    const std::uint64_t limit = stream_input_limit(options);
    // Chunks as they arrive (not zeroed first: read() fills them), joined at the end.
    struct Chunk {
        std::unique_ptr<std::uint8_t[]> data;
        std::size_t size = 0;
    };
    std::vector<Chunk> chunks;
    std::uint64_t total = 0;
    for (bool more = true; more;) {
        // At most one byte past the limit is ever held: enough to know it is exceeded.
        const auto want =
            static_cast<std::size_t>(std::min<std::uint64_t>(kChunkBytes, limit + 1 - total));
        Chunk chunk{std::unique_ptr<std::uint8_t[]>(new std::uint8_t[want]), 0};
        const std::size_t got = fill(input.get(), chunk.data.get(), want, name);
        chunk.size = got;
        more = got == want;
        total += got;
        if (total > limit)
            throw InputError(name + " holds more than " + std::to_string(limit) +
                             " bytes, more than any image of at most " +
                             std::to_string(options.max_pixels) +
                             " pixels takes (8 bytes a pixel, plus 64 MiB): a pipe is held in "
                             "memory; give it as a file");
        if (chunks.empty() && more) check_start({chunk.data.get(), got}, path, name, options);
        if (got > 0) chunks.push_back(std::move(chunk));
    }
    if (total == 0) throw InputError(name + " is empty");
    // Reserved, not zeroed: its pages are touched as the chunks are copied and given back, so
    // the input is not held twice.
    std::vector<std::uint8_t> bytes;
    bytes.reserve(static_cast<std::size_t>(total));
    for (Chunk& chunk : chunks) {
        bytes.insert(bytes.end(), chunk.data.get(), chunk.data.get() + chunk.size);
        chunk.data.reset();
    }
    return bytes;
}

// Standard input redirected from a regular file (`hist - < photo.png`) is that file, read
// through /dev/stdin where it lies like any file, unless something before us already read part
// of it (then only the rest is standard input's).
bool stdin_is_a_whole_file() {
    struct stat in {
    }, named{};
    return ::fstat(STDIN_FILENO, &in) == 0 && S_ISREG(in.st_mode) &&
           ::lseek(STDIN_FILENO, 0, SEEK_CUR) == 0 && ::stat("/dev/stdin", &named) == 0 &&
           named.st_dev == in.st_dev && named.st_ino == in.st_ino;
}

}  // namespace

bool is_stream_input(const std::string& path) {
    if (path == "-") return !stdin_is_a_whole_file();
    struct stat st {};
    // A path that cannot be examined is left to the file readers, which say why.
    if (::stat(path.c_str(), &st) != 0) return false;
    return S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode) || S_ISSOCK(st.st_mode);
}

std::uint64_t stream_input_limit(const DecodeOptions& options) {
    constexpr std::uint64_t most_pixels =
        (std::numeric_limits<std::uint64_t>::max() - kOverheadBytes) / kMaxBytesPerPixel;
    return std::min(options.max_pixels, most_pixels) * kMaxBytesPerPixel + kOverheadBytes;
}

Source::Source(const std::string& path, const DecodeOptions& options)
    : path_(path), name_(path == "-" ? "standard input" : detail::quoted(path)) {
    if (is_stream_input(path))
        bytes_ =
            std::make_shared<const std::vector<std::uint8_t>>(read_stream(path, name_, options));
    else if (path == "-")
        path_ = "/dev/stdin";
}

namespace detail {

std::vector<std::uint8_t> source_head(const Source& source, std::size_t max_bytes) {
    if (const std::vector<std::uint8_t>* bytes = source.bytes())
        return {bytes->begin(),
                bytes->begin() + static_cast<std::ptrdiff_t>(std::min(max_bytes, bytes->size()))};
    return read_file_head(source.path(), max_bytes);
}

}  // namespace detail

}  // namespace hs::media
