// Raw frames: "WxHxC:u8", "WxHxC:u16", "WxHxC:u16:DEPTH" or "WxHxC:f32"; interleaved samples,
// rows tightly packed, 16-bit samples and 32-bit IEEE floats little-endian. Needs no OpenCV.

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <climits>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <thread>
#include <vector>

#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

constexpr int kMaxSide = 65536;

[[noreturn]] void malformed(const std::string& text, const std::string& why) {
    throw UsageError("malformed raw format '" + text + "' (" + why +
                     "): expected WxHxC:u8, WxHxC:u16, WxHxC:u16:DEPTH or WxHxC:f32, e.g. "
                     "640x480x3:u8 or 1920x1080x1:u16:12");
}

// A decimal number made of digits only (no sign, no spaces), within [lo, hi].
int parse_number(const std::string& text, std::string_view field, const char* what, int lo,
                 int hi) {
    if (field.empty()) malformed(text, std::string(what) + " is missing");
    for (char c : field)
        if (c < '0' || c > '9')
            malformed(text, std::string(what) + " '" + std::string(field) + "' is not a number");
    unsigned long long value = 0;
    const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
    if (ec != std::errc() || end != field.data() + field.size() ||
        value < static_cast<unsigned long long>(lo) || value > static_cast<unsigned long long>(hi))
        malformed(text,
                  std::string(what) + " must be " + std::to_string(lo) + ".." + std::to_string(hi));
    return static_cast<int>(value);
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        const std::size_t at = s.find(sep, start);
        parts.push_back(s.substr(start, at == std::string_view::npos ? s.npos : at - start));
        if (at == std::string_view::npos) return parts;
        start = at + 1;
    }
}

std::string describe_source(const std::string& path) {
    return path == "-" ? "on standard input" : detail::quoted(path);
}

// The size of a regular file (nullopt for standard input, pipes and devices).
std::optional<std::uint64_t> regular_file_size(const std::string& path) {
    if (path == "-") return std::nullopt;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return std::nullopt;
    return static_cast<std::uint64_t>(size);
}

}  // namespace

RawFrameCount raw_frame_count(std::uint64_t size, const RawFormat& format,
                              const std::string& what) {
    const std::uint64_t frame = format.frame_bytes();
    if (frame == 0)
        throw UsageError("raw format " + to_string(format) + " describes an empty frame");
    if (size == 0)
        throw InputError(what + " is empty (one " + to_string(format) + " frame is " +
                         std::to_string(frame) + " bytes)");
    if (size < frame)
        throw InputError(what + " has " + std::to_string(size) + " bytes, shorter than one " +
                         to_string(format) + " frame (" + std::to_string(frame) + " bytes)");
    return {static_cast<std::int64_t>(size / frame), size % frame};
}

std::string truncated_raw_frame(std::int64_t index, std::uint64_t got, const RawFormat& format,
                                const std::string& source) {
    return "frame " + std::to_string(index) + " is truncated: the " + source + " ends after " +
           std::to_string(got) + " of its " + std::to_string(format.frame_bytes()) + " bytes";
}

namespace {

// A character device (/dev/zero, a capture device) named as raw input: a stream with no end.
bool endless_device(const std::string& path) {
    struct stat st {};
    return path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

Image new_frame(const RawFormat& f) {
    return Image(f.width, f.height, f.channels, f.type, f.bit_depth);
}

}  // namespace

void raw_to_host_samples(std::byte* data, std::size_t bytes, const RawFormat& format) {
    if (format.type == SampleType::F32) {
        // Every float is data (NaNs and infinities are counted apart): only the byte order.
        if constexpr (std::endian::native == std::endian::big) {
            auto* p = reinterpret_cast<std::uint8_t*>(data);
            for (std::size_t k = 0; k + 3 < bytes; k += 4) {
                std::swap(p[k], p[k + 3]);
                std::swap(p[k + 1], p[k + 2]);
            }
        }
        return;
    }
    if (format.type != SampleType::U16) return;
    if constexpr (std::endian::native == std::endian::big) {
        auto* p = reinterpret_cast<std::uint8_t*>(data);
        for (std::size_t k = 0; k + 1 < bytes; k += 2) std::swap(p[k], p[k + 1]);
    }
    if (format.bit_depth >= 16) return;
    // Samples above the declared depth are not data of this format (12-bit frames holding
    // 5000): refused, as PNM samples above maxval are, rather than counted as out of range.
    // Every frame of a stream passes here: a branch-free maximum first (it vectorizes), the
    // offending sample looked for only when there is one.
    const std::uint32_t top = (1u << format.bit_depth) - 1;
    const auto sample = [&](std::size_t k) {
        std::uint16_t v = 0;
        std::memcpy(&v, data + k, sizeof v);
        return v;
    };
    std::uint16_t largest = 0;
    for (std::size_t k = 0; k + 1 < bytes; k += 2) largest = std::max(largest, sample(k));
    if (largest <= top) return;
    for (std::size_t k = 0; k + 1 < bytes; k += 2)
        if (sample(k) > top)
            throw InputError("sample value " + std::to_string(sample(k)) + " (sample " +
                             std::to_string(k / 2) + " of the frame) exceeds the " +
                             std::to_string(format.bit_depth) + "-bit depth of raw format " +
                             to_string(format) + " (is the format right?)");
}

RawFormat parse_raw_format(const std::string& text) {
    const auto parts = split(text, ':');
    if (parts.size() < 2 || parts.size() > 3) malformed(text, "expected one or two ':'");
    const auto dims = split(parts[0], 'x');
    if (dims.size() != 3) malformed(text, "the size must be WIDTHxHEIGHTxCHANNELS");
    RawFormat f;
    f.width = parse_number(text, dims[0], "width", 1, kMaxSide);
    f.height = parse_number(text, dims[1], "height", 1, kMaxSide);
    f.channels = parse_number(text, dims[2], "channel count", 1, 4);
    if (f.channels == 2) malformed(text, "channel count must be 1, 3 or 4");
    if (parts[1] == "u8") {
        f.type = SampleType::U8;
        f.bit_depth = 8;
        if (parts.size() == 3 && parse_number(text, parts[2], "depth", 1, 64) != 8)
            malformed(text, "u8 samples have depth 8");
    } else if (parts[1] == "u16") {
        f.type = SampleType::U16;
        f.bit_depth = parts.size() == 3 ? parse_number(text, parts[2], "u16 depth", 8, 16) : 16;
    } else if (parts[1] == "f32") {
        f.type = SampleType::F32;
        f.bit_depth = 32;
        if (parts.size() == 3 && parse_number(text, parts[2], "depth", 1, 64) != 32)
            malformed(text, "f32 samples have depth 32");
    } else {
        malformed(text, "sample type '" + std::string(parts[1]) + "' is not u8, u16 or f32");
    }
    return f;
}

std::string to_string(const RawFormat& f) {
    // Built by appending: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    std::string s = std::to_string(f.width);
    s.append("x").append(std::to_string(f.height));
    s.append("x").append(std::to_string(f.channels));
    s.append(":").append(hs::to_string(f.type));
    if (f.type == SampleType::U16 && f.bit_depth != 16)
        s.append(":").append(std::to_string(f.bit_depth));
    return s;
}

namespace {

// The note of an input that ends inside frame `count.frames`: its whole frames are read.
std::string truncated_note(const std::string& what, const RawFrameCount& count,
                           const RawFormat& format, const std::string& source) {
    if (count.extra_bytes == 0) return {};
    return what + " holds " + std::to_string(count.frames) + " whole frame" +
           (count.frames == 1 ? "" : "s") + "; " +
           truncated_raw_frame(count.frames, count.extra_bytes, format, source);
}

}  // namespace

RawFrame read_raw_frame(const std::string& path, const RawFormat& format, std::int64_t index,
                        RawCount count) {
    const std::size_t frame = format.frame_bytes();
    if (frame == 0)
        throw UsageError("raw format " + to_string(format) + " describes an empty frame");
    const std::string what = "raw input " + describe_source(path);
    const auto size = regular_file_size(path);
    const std::string source = size ? "file" : "input";
    RawFrame out;
    // Frame `index` of an input of `counted` frames: whole, or the one cut short (refused, as the
    // streams fail it), or past the end.
    const auto check_index = [&](const RawFrameCount& counted) {
        out.frames = counted.frames;
        out.extra_bytes = counted.extra_bytes;
        out.truncated = truncated_note(what, counted, format, source);
        if (index >= 0 && index < counted.frames) return;
        if (index == counted.frames && counted.extra_bytes > 0)
            throw InputError(what + ": " +
                             truncated_raw_frame(index, counted.extra_bytes, format, source));
        const std::int64_t last = counted.frames - 1;
        throw InputError(
            what + " has no frame " + std::to_string(index) + ": it holds " +
            std::to_string(counted.frames) + (counted.extra_bytes > 0 ? " whole" : "") + " frame" +
            (counted.frames == 1 ? "" : "s") + " (0.." + std::to_string(last) + ")" +
            (counted.extra_bytes > 0 ? " and a truncated frame " + std::to_string(counted.frames)
                                     : ""));
    };
    if (size) {
        // The size is known: checked before anything is allocated, then only the frame read.
        check_index(raw_frame_count(*size, format, what));
        std::ifstream in(path, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(static_cast<std::uint64_t>(index) * frame));
        out.image = new_frame(format);
        in.read(reinterpret_cast<char*>(out.image.data()), static_cast<std::streamsize>(frame));
        if (!in) throw InputError("cannot read " + what);
        raw_to_host_samples(out.image.data(), frame, format);
        return out;
    }
    // A pipe: the data is counted as it arrives, and memory follows it (a frame declared huge
    // on an empty or short input costs nothing); only frame `index` is kept, and nothing after
    // it is read unless the frames are counted.
    if (count == RawCount::All && endless_device(path))
        throw InputError(what + " is a device: it has no end, so its frames cannot be counted");
    if (index < 0) throw InputError(what + " has no frame " + std::to_string(index));
    RawStreamReader reader(path, format);
    std::vector<std::byte> kept;
    std::vector<std::byte> chunk(std::min<std::size_t>(frame, std::size_t{1} << 20));
    const std::uint64_t wanted = (static_cast<std::uint64_t>(index) + 1) * frame;
    std::uint64_t total = 0;
    for (;;) {
        std::size_t want = chunk.size();
        if (count == RawCount::UpToFrame) {
            if (total >= wanted) break;
            want = static_cast<std::size_t>(std::min<std::uint64_t>(want, wanted - total));
        }
        const std::size_t got = reader.read_some(chunk.data(), want);
        if (got == 0) break;
        total += got;
        // The part of the chunk in each frame it touches (at most two: it is at most a frame).
        for (std::size_t i = 0; i < got;) {
            const std::uint64_t at = total - got + i;
            const std::uint64_t f = at / frame;
            const std::size_t run =
                static_cast<std::size_t>(std::min<std::uint64_t>(got - i, (f + 1) * frame - at));
            if (static_cast<std::int64_t>(f) == index)
                kept.insert(kept.end(), chunk.begin() + static_cast<std::ptrdiff_t>(i),
                            chunk.begin() + static_cast<std::ptrdiff_t>(i + run));
            i += run;
        }
    }
    check_index(raw_frame_count(total, format, what));
    out.image = new_frame(format);
    std::memcpy(out.image.data(), kept.data(), frame);
    raw_to_host_samples(out.image.data(), frame, format);
    return out;
}

RawFrames read_raw(const std::string& path, const RawFormat& format) {
    RawFrames out;
    out.format = format;
    const std::string what = "raw input " + describe_source(path);
    const std::size_t frame = format.frame_bytes();
    if (const auto size = regular_file_size(path)) {
        const RawFrameCount count = raw_frame_count(*size, format, what);
        out.extra_bytes = count.extra_bytes;
        out.truncated = truncated_note(what, count, format, "file");
        RawStreamReader reader(path, format);
        for (std::int64_t i = 0; i < count.frames; ++i) {
            out.frames.push_back(new_frame(format));
            if (reader.read_into(out.frames.back().data()) != frame)
                throw InputError("cannot read " + what);
        }
        return out;
    }
    // A pipe: memory grows with the data that arrives.
    if (endless_device(path))
        throw InputError(what + " is a device: it has no end, so its frames cannot all be read");
    RawStreamReader reader(path, format);
    std::vector<std::byte> bytes;
    for (std::size_t got = 1; got > 0;) {
        const std::size_t at = bytes.size();
        bytes.resize(at + (std::size_t{1} << 20));
        got = reader.read_some(bytes.data() + at, std::size_t{1} << 20);
        bytes.resize(at + got);
    }
    const RawFrameCount count = raw_frame_count(bytes.size(), format, what);
    out.extra_bytes = count.extra_bytes;
    out.truncated = truncated_note(what, count, format, "input");
    for (std::int64_t i = 0; i < count.frames; ++i) {
        const std::size_t at = static_cast<std::size_t>(i) * frame;
        out.frames.push_back(new_frame(format));
        std::memcpy(out.frames.back().data(), bytes.data() + at, frame);
        raw_to_host_samples(out.frames.back().data(), frame, format);
    }
    return out;
}

RawStreamReader::RawStreamReader(const std::string& path, const RawFormat& format)
    : name_(describe_source(path)), format_(format) {
    if (format.frame_bytes() == 0)
        throw UsageError("raw format " + to_string(format) + " describes an empty frame");
    if (path == "-") {
        file_ = stdin;
    } else {
        // The precise reason (missing, unreadable, a directory) as the other readers give it;
        // a FIFO without a writer is not waited on forever.
        file_ = detail::open_file(path).release();
        owned_ = true;
    }
    struct stat st {};
    const int fd = ::fileno(file_);
    regular_ = fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

RawStreamReader::~RawStreamReader() {
    if (owned_ && file_ != nullptr) static_cast<void>(std::fclose(file_));
}

std::size_t RawStreamReader::read_some(std::byte* dst, std::size_t bytes) {
    std::size_t got = 0;
    while (got < bytes) {
        const std::size_t n = std::fread(dst + got, 1, bytes - got, file_);
        if (n == 0) break;
        got += n;
    }
    if (got < bytes && std::ferror(file_)) throw InputError("cannot read raw input " + name_);
    return got;
}

std::size_t RawStreamReader::read_into(std::byte* dst) {
    const std::size_t want = format_.frame_bytes();
    const std::size_t got = large_from_file(want) ? read_parts(dst, want) : read_some(dst, want);
    raw_to_host_samples(dst, got - got % 2, format_);
    return got;
}

bool RawStreamReader::large_from_file(std::size_t bytes) const {
    // One thread copies a file's cached pages at a few GB/s: a 4K or 8K frame at 60 fps needs
    // more, and its parts are read at once.
    constexpr std::size_t kLarge = std::size_t{16} << 20;
    return owned_ && regular_ && bytes >= kLarge;
}

std::size_t RawStreamReader::read_parts(std::byte* dst, std::size_t bytes) {
    const off_t start = ::ftello(file_);
    if (start < 0) return read_some(dst, bytes);
    const int fd = ::fileno(file_);
    constexpr std::size_t kParts = 4;
    const std::size_t part = (bytes + kParts - 1) / kParts;
    std::array<std::size_t, kParts> got{};
    std::array<bool, kParts> failed{};
    {
        std::vector<std::jthread> readers;
        for (std::size_t i = 0; i < kParts; ++i)
            readers.emplace_back([&, i] {
                const std::size_t begin = std::min(bytes, i * part);
                const std::size_t end = std::min(bytes, begin + part);
                while (got[i] < end - begin) {
                    const ssize_t n = ::pread(fd, dst + begin + got[i], end - begin - got[i],
                                              start + static_cast<off_t>(begin + got[i]));
                    if (n < 0 && errno == EINTR) continue;
                    if (n <= 0) {
                        failed[i] = n < 0;
                        break;
                    }
                    got[i] += static_cast<std::size_t>(n);
                }
            });
    }
    // What was read without a gap from the start (the file may end inside the frame).
    std::size_t total = 0;
    for (std::size_t i = 0; i < kParts; ++i) {
        if (failed[i]) throw InputError("cannot read raw input " + name_);
        total += got[i];
        if (got[i] < std::min(bytes, (i + 1) * part) - std::min(bytes, i * part)) break;
    }
    if (::fseeko(file_, start + static_cast<off_t>(total), SEEK_SET) != 0)
        throw InputError("cannot read raw input " + name_);
    return total;
}

bool RawStreamReader::ready() const {
    if (regular_) return true;
    pollfd p{::fileno(file_), POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
}

bool RawStreamReader::rewind() {
    return seek(0);
}

bool RawStreamReader::seek(std::int64_t index) {
    if (!owned_ || index < 0) return false;
    const auto frame = static_cast<std::uint64_t>(format_.frame_bytes());
    if (static_cast<std::uint64_t>(index) > std::uint64_t{LONG_MAX} / frame) return false;
    std::clearerr(file_);
    return std::fseek(file_, static_cast<long>(static_cast<std::uint64_t>(index) * frame),
                      SEEK_SET) == 0;
}

}  // namespace hs::media
