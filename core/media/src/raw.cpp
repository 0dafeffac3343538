// Raw frames: "WxHxC:u8", "WxHxC:u16" or "WxHxC:u16:DEPTH"; interleaved samples, rows tightly
// packed, 16-bit samples little-endian. Needs no OpenCV.

#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

constexpr int kMaxSide = 65536;

[[noreturn]] void malformed(const std::string& text, const std::string& why) {
    throw UsageError("malformed raw format '" + text + "' (" + why +
                     "): expected WxHxC:u8, WxHxC:u16 or WxHxC:u16:DEPTH, e.g. 640x480x3:u8 or "
                     "1920x1080x1:u16:12");
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

std::vector<std::uint8_t> read_stdin() {
    std::vector<std::uint8_t> out;
    std::uint8_t buffer[1 << 16];
    for (;;) {
        const std::size_t got = std::fread(buffer, 1, sizeof buffer, stdin);
        out.insert(out.end(), buffer, buffer + got);
        if (got < sizeof buffer) {
            if (std::ferror(stdin)) throw InputError("cannot read standard input");
            return out;
        }
    }
}

}  // namespace

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
    } else {
        malformed(text, "sample type '" + std::string(parts[1]) + "' is not u8 or u16");
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

RawFrames read_raw(const std::string& path, const RawFormat& format) {
    const std::size_t frame = format.frame_bytes();
    if (frame == 0)
        throw UsageError("raw format " + to_string(format) + " describes an empty frame");
    const std::vector<std::uint8_t> bytes = path == "-" ? read_stdin() : detail::read_file(path);
    const std::string what = "raw input " + describe_source(path);
    if (bytes.empty())
        throw InputError(what + " is empty (one " + to_string(format) + " frame is " +
                         std::to_string(frame) + " bytes)");
    if (bytes.size() % frame != 0)
        throw InputError(what + " has " + std::to_string(bytes.size()) +
                         " bytes, not a multiple of the " + std::to_string(frame) + "-byte frame " +
                         to_string(format));

    RawFrames out;
    out.format = format;
    const std::size_t count = bytes.size() / frame;
    out.frames.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
        Image img(format.width, format.height, format.channels, format.type, format.bit_depth);
        std::memcpy(img.data(), bytes.data() + i * frame, frame);
        if constexpr (std::endian::native == std::endian::big) {
            if (format.type == SampleType::U16) {
                auto* p = reinterpret_cast<std::uint8_t*>(img.data());
                for (std::size_t k = 0; k + 1 < frame; k += 2) std::swap(p[k], p[k + 1]);
            }
        }
        out.frames.push_back(std::move(img));
    }
    return out;
}

RawStreamReader::RawStreamReader(const std::string& path, const RawFormat& format)
    : name_(describe_source(path)), format_(format) {
    if (format.frame_bytes() == 0)
        throw UsageError("raw format " + to_string(format) + " describes an empty frame");
    if (path == "-") {
        file_ = stdin;
        return;
    }
    file_ = std::fopen(path.c_str(), "rb");
    if (file_ == nullptr) {
        // The precise reason (missing, unreadable, a directory) as the other readers give it.
        static_cast<void>(detail::read_file_head(path, 1));
        throw InputError("cannot open " + name_);
    }
    owned_ = true;
}

RawStreamReader::~RawStreamReader() {
    if (owned_ && file_ != nullptr) static_cast<void>(std::fclose(file_));
}

std::size_t RawStreamReader::read_into(std::byte* dst) {
    const std::size_t frame = format_.frame_bytes();
    std::size_t got = 0;
    while (got < frame) {
        const std::size_t n = std::fread(dst + got, 1, frame - got, file_);
        if (n == 0) break;
        got += n;
    }
    if (got < frame && std::ferror(file_)) throw InputError("cannot read raw input " + name_);
    if constexpr (std::endian::native == std::endian::big) {
        if (format_.type == SampleType::U16) {
            auto* p = reinterpret_cast<std::uint8_t*>(dst);
            for (std::size_t k = 0; k + 1 < got; k += 2) std::swap(p[k], p[k + 1]);
        }
    }
    return got;
}

bool RawStreamReader::rewind() {
    if (!owned_) return false;
    std::clearerr(file_);
    return std::fseek(file_, 0, SEEK_SET) == 0;
}

}  // namespace hs::media
