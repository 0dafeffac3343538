#include "formats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>

#include "histoscope/core/error.hpp"

namespace hs::media::detail {

namespace {

// Products of header fields, which a hostile header can make overflow 64 bits.
__extension__ typedef unsigned __int128 U128;

bool starts_with(Bytes b, std::initializer_list<std::uint8_t> magic, std::size_t at = 0) {
    if (b.size() < at + magic.size()) return false;
    return std::equal(magic.begin(), magic.end(), b.begin() + static_cast<std::ptrdiff_t>(at));
}

bool starts_with(Bytes b, std::string_view magic, std::size_t at = 0) {
    if (b.size() < at + magic.size()) return false;
    return std::memcmp(b.data() + at, magic.data(), magic.size()) == 0;
}

bool is_pnm_space(std::uint8_t c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

std::uint32_t le16(Bytes b, std::size_t at) {
    return static_cast<std::uint32_t>(b[at] | b[at + 1] << 8);
}
std::uint32_t le32(Bytes b, std::size_t at) {
    return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
           static_cast<std::uint32_t>(b[at + 2]) << 16 |
           static_cast<std::uint32_t>(b[at + 3]) << 24;
}
std::uint32_t be32(Bytes b, std::size_t at) {
    return static_cast<std::uint32_t>(b[at]) << 24 | static_cast<std::uint32_t>(b[at + 1]) << 16 |
           static_cast<std::uint32_t>(b[at + 2]) << 8 | static_cast<std::uint32_t>(b[at + 3]);
}

bool is_rst(std::uint8_t marker) {
    return marker >= 0xD0 && marker <= 0xD7;
}

// Reads TIFF integers of either byte order; every read is bounds-checked by the caller.
struct TiffReader {
    Bytes b;
    bool little;
    std::uint64_t get(std::uint64_t at, int bytes) const {
        std::uint64_t v = 0;
        for (int i = 0; i < bytes; ++i) {
            const std::uint64_t byte =
                b[static_cast<std::size_t>(at) + static_cast<std::size_t>(i)];
            v |= little ? byte << (8 * i) : byte << (8 * (bytes - 1 - i));
        }
        return v;
    }
};

// Guards the directory walk against crafted files whose chain visits every byte offset.
constexpr int kMaxTiffPages = 1 << 16;

// Bytes per value of a TIFF field type (0 for types a reader does not know).
std::uint64_t tiff_type_size(std::uint64_t type) {
    switch (type) {
        case 1:  // BYTE
        case 2:  // ASCII
        case 6:  // SBYTE
        case 7:  // UNDEFINED
            return 1;
        case 3:  // SHORT
        case 8:  // SSHORT
            return 2;
        case 4:   // LONG
        case 9:   // SLONG
        case 11:  // FLOAT
        case 13:  // IFD
            return 4;
        case 5:   // RATIONAL
        case 10:  // SRATIONAL
        case 12:  // DOUBLE
        case 16:  // LONG8
        case 17:  // SLONG8
        case 18:  // IFD8
            return 8;
        default:
            return 0;
    }
}

}  // namespace

ImageFormat sniff_image(Bytes h) {
    if (starts_with(h, {0xFF, 0xD8, 0xFF})) return ImageFormat::Jpeg;
    if (starts_with(h, {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A})) return ImageFormat::Png;
    if (starts_with(h, {'I', 'I', 42, 0}) || starts_with(h, {'M', 'M', 0, 42}) ||
        starts_with(h, {'I', 'I', 43, 0}) || starts_with(h, {'M', 'M', 0, 43}))
        return ImageFormat::Tiff;
    if (starts_with(h, "BM") && h.size() >= 18) {
        // "BM" alone is too weak a signature: also require a known DIB header size.
        const std::uint32_t dib = le32(h, 14);
        if (dib == 12 || dib == 40 || dib == 52 || dib == 56 || dib == 64 || dib == 108 ||
            dib == 124)
            return ImageFormat::Bmp;
    }
    if (starts_with(h, "RIFF") && starts_with(h, "WEBP", 8)) return ImageFormat::WebP;
    if (starts_with(h, "GIF87a") || starts_with(h, "GIF89a")) return ImageFormat::Gif;
    if (h.size() >= 3 && h[0] == 'P' && is_pnm_space(h[2])) {
        if (h[1] >= '1' && h[1] <= '6') return ImageFormat::Pnm;
        if (h[1] == '7') return ImageFormat::Pam;
        if (h[1] == 'F' || h[1] == 'f') return ImageFormat::Pfm;
    }
    if (starts_with(h, {0xFF, 0x4F, 0xFF, 0x51}) ||
        starts_with(h, {0, 0, 0, 0x0C, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A}))
        return ImageFormat::Jpeg2000;
    if (starts_with(h, {0x76, 0x2F, 0x31, 0x01})) return ImageFormat::OpenExr;
    if (starts_with(h, "#?RADIANCE") || starts_with(h, "#?RGBE")) return ImageFormat::Hdr;
    if (starts_with(h, {0x59, 0xA6, 0x6A, 0x95})) return ImageFormat::SunRaster;
    return ImageFormat::Unknown;
}

std::string_view format_name(ImageFormat f) {
    switch (f) {
        case ImageFormat::Jpeg:
            return "JPEG";
        case ImageFormat::Png:
            return "PNG";
        case ImageFormat::Tiff:
            return "TIFF";
        case ImageFormat::Bmp:
            return "BMP";
        case ImageFormat::WebP:
            return "WebP";
        case ImageFormat::Gif:
            return "GIF";
        case ImageFormat::Pnm:
            return "PNM";
        case ImageFormat::Pam:
            return "PAM";
        case ImageFormat::Pfm:
            return "PFM";
        case ImageFormat::Jpeg2000:
            return "JPEG 2000";
        case ImageFormat::OpenExr:
            return "OpenEXR";
        case ImageFormat::Hdr:
            return "Radiance HDR";
        case ImageFormat::SunRaster:
            return "Sun raster";
        case ImageFormat::Unknown:
            break;
    }
    return "";
}

// JPEG: SOI, then marker segments (FF xx + 16-bit length) up to EOI. Each SOS segment is
// followed by entropy-coded data in which FF is escaped as FF 00 and restart markers FF D0..D7
// appear in sequence; the scan ends at the first other marker, which can only be EOI, another
// SOS or a table/comment/application segment (progressive and multi-scan files repeat SOS).
// Like libjpeg, fill bytes (FF FF ...) and stray bytes between segments are skipped. The stream
// is complete only if EOI is reached with every segment inside the file. Corrupt bytes inside
// the scan data usually contain a marker that cannot be there (FF followed by a reserved code,
// or a restart marker out of sequence); libjpeg would stop decoding at it, print a warning and
// return a partly grey image, so these count as corrupt too. Corruption that forms no marker
// (e.g. zeroed bytes) is invisible to a structural check and decodes as libjpeg decodes it.
std::string jpeg_problem(Bytes f) {
    const std::string truncated = "JPEG stream ends before its EOI marker";
    const std::size_t n = f.size();
    if (!starts_with(f, {0xFF, 0xD8})) return "JPEG stream does not start with an SOI marker";
    const std::uint8_t* const data = f.data();
    auto next_ff = [&](std::size_t from) {
        const void* hit = from < n ? std::memchr(data + from, 0xFF, n - from) : nullptr;
        return hit != nullptr
                   ? static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - data)
                   : n;
    };
    auto hex = [](std::uint8_t v) {
        const char* digits = "0123456789abcdef";
        return std::string("0x") + digits[v >> 4] + digits[v & 15];
    };
    // Markers that may follow a scan: EOI, SOS, DHT, DAC, DQT, DRI, DNL, COM, APPn.
    auto may_follow_scan = [](std::uint8_t m) {
        return m == 0xD9 || m == 0xDA || m == 0xC4 || m == 0xCC || m == 0xDB || m == 0xDD ||
               m == 0xDC || m == 0xFE || (m >= 0xE0 && m <= 0xEF);
    };
    std::size_t p = 2;
    bool after_scan = false;
    for (;;) {
        p = next_ff(p);
        while (p < n && f[p] == 0xFF) ++p;
        if (p >= n) return truncated;
        const std::uint8_t marker = f[p++];
        if (marker == 0x00) continue;  // an escaped FF among stray bytes: not a marker
        if (after_scan && !may_follow_scan(marker))
            return "JPEG scan data is corrupt: marker " + hex(marker) + " at offset " +
                   std::to_string(p - 2);
        after_scan = false;
        if (marker == 0xD9) return {};
        if (marker == 0xF7 || marker == 0xF8) return {};  // JPEG-LS: other escaping, not checked
        if (marker >= 0x02 && marker <= 0xBF)
            return "JPEG stream is corrupt: reserved marker " + hex(marker) + " at offset " +
                   std::to_string(p - 2);
        if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD8)) continue;  // no length
        if (p + 2 > n) return truncated;
        const std::size_t length = static_cast<std::size_t>(f[p] << 8 | f[p + 1]);
        if (length < 2)
            return "JPEG segment at offset " + std::to_string(p - 2) + " has an invalid length";
        if (p + length > n) return truncated;
        p += length;
        if (marker != 0xDA) continue;
        // Entropy-coded data of the scan.
        std::uint8_t next_rst = 0xD0;
        for (;;) {
            p = next_ff(p);
            std::size_t q = p + 1;
            while (q < n && f[q] == 0xFF) ++q;
            if (q >= n) return truncated;
            if (f[q] == 0x00) {
                p = q + 1;
                continue;
            }
            if (is_rst(f[q])) {
                if (f[q] != next_rst)
                    return "JPEG scan data is corrupt: restart marker " + hex(f[q]) +
                           " out of sequence at offset " + std::to_string(q - 1);
                next_rst = next_rst == 0xD7 ? 0xD0 : static_cast<std::uint8_t>(next_rst + 1);
                p = q + 1;
                continue;
            }
            p = q - 1;  // the FF in front of the marker that ends the scan
            after_scan = true;
            break;
        }
    }
}

// PNG: the signature, then chunks (32-bit big-endian length, type, data, CRC) up to IEND.
// CRCs are left to libpng, which rejects a bad CRC in a critical chunk.
std::string png_problem(Bytes f) {
    const std::string truncated = "PNG stream ends before its IEND chunk";
    const std::uint64_t n = f.size();
    // PNG starts with IHDR, which says what the image is: without it nothing can be decoded.
    if (n >= 16 && !starts_with(f, "IHDR", 12)) {
        const bool letters = std::all_of(f.begin() + 12, f.begin() + 16,
                                         [](std::uint8_t c) { return c > 0x20 && c < 0x7F; });
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%08x", be32(f, 12));
        const std::string type =
            letters ? "'" + std::string(f.begin() + 12, f.begin() + 16) + "'" : std::string(hex);
        return "PNG starts with a chunk " + type + " where its IHDR header must be";
    }
    std::uint64_t p = 8;
    for (;;) {
        if (p + 8 > n) return truncated;
        const std::uint64_t length = be32(f, static_cast<std::size_t>(p));
        if (length > 0x7FFFFFFFu)
            return "PNG chunk at offset " + std::to_string(p) + " has an invalid length";
        if (p + 12 + length > n) return truncated;
        if (starts_with(f, "IEND", static_cast<std::size_t>(p + 4))) return {};
        p += 12 + length;
    }
}

// BMP: the pixel array starts at bfOffBits; uncompressed rows are padded to 4 bytes.
std::string bmp_problem(Bytes f) {
    const std::uint64_t n = f.size();
    if (n < 26) return "BMP header is incomplete";
    const std::uint64_t offset = le32(f, 10);
    const std::uint32_t dib = le32(f, 14);
    std::int64_t width = 0, height = 0;
    std::uint32_t bpp = 0, compression = 0, image_size = 0;
    if (dib == 12) {
        width = le16(f, 18);
        height = le16(f, 20);
        bpp = le16(f, 24);
    } else {
        if (n < 14 + 40) return "BMP header is incomplete";
        width = static_cast<std::int32_t>(le32(f, 18));
        height = static_cast<std::int32_t>(le32(f, 22));
        bpp = le16(f, 28);
        compression = le32(f, 30);
        image_size = le32(f, 34);
    }
    width = std::abs(width);
    height = std::abs(height);
    if (width > (1 << 24) || height > (1 << 24) || bpp > 64) return {};  // left to the decoder
    std::uint64_t needed = offset;
    if (compression == 0 || compression == 3 || compression == 6) {
        const std::uint64_t row = (static_cast<std::uint64_t>(width) * bpp + 31) / 32 * 4;
        needed += row * static_cast<std::uint64_t>(height);
    } else {
        needed += image_size;
    }
    if (needed > n)
        return "BMP pixel data needs " + std::to_string(needed) + " bytes, the file has " +
               std::to_string(n);
    return {};
}

// WebP: a RIFF container whose header states the size of everything that follows it.
std::string webp_problem(Bytes f) {
    if (f.size() < 12) return "WebP header is incomplete";
    const std::uint64_t needed = 8 + static_cast<std::uint64_t>(le32(f, 4));
    if (needed > f.size())
        return "WebP RIFF header declares " + std::to_string(needed) + " bytes, the file has " +
               std::to_string(f.size());
    return {};
}

// TIFF: a chain of image file directories (IFDs), one per page. Classic TIFF uses 32-bit
// offsets and 12-byte entries, BigTIFF 64-bit offsets and 20-byte entries. Every directory
// and every strip or tile it points to must lie inside the file; a repeated directory offset
// would loop forever and is reported as corruption. With `sub_directories`, so must the
// directories the pages point to (SubIFDs, EXIF, GPS, interoperability) and what they hold.
TiffLayout tiff_layout(Bytes f, bool sub_directories) {
    TiffLayout out;
    const std::uint64_t n = f.size();
    if (n < 8) {
        out.problem = "TIFF header is incomplete";
        return out;
    }
    const TiffReader r{f, f[0] == 'I'};
    const bool big = r.get(2, 2) == 43;
    if (big && (n < 16 || r.get(4, 2) != 8)) {
        out.problem = "BigTIFF header is incomplete or invalid";
        return out;
    }
    const int offset_size = big ? 8 : 4;
    const std::uint64_t entry_size = big ? 20 : 12;
    const int count_size = big ? 8 : 2;
    std::uint64_t ifd = big ? r.get(8, 8) : r.get(4, 4);
    if (ifd == 0) {
        out.problem = "TIFF file has no image directory";
        return out;
    }
    std::set<std::uint64_t> seen;
    std::vector<std::uint64_t> subs;  // the sub-directories found, when they are walked
    // Checks the directory at `ifd` (named `where` in problems) and returns the next one of its
    // chain (0 at the end), or nothing with out.problem set.
    const auto directory = [&](const std::string& where,
                               bool page) -> std::optional<std::uint64_t> {
        if (!seen.insert(ifd).second) {
            out.problem = "TIFF directory chain loops back to offset " + std::to_string(ifd);
            return std::nullopt;
        }
        if (ifd + static_cast<std::uint64_t>(count_size) > n) {
            out.problem = "TIFF directory of " + where + " lies past the end of the file";
            return std::nullopt;
        }
        const std::uint64_t entries = r.get(ifd, count_size);
        const std::uint64_t entries_at = ifd + static_cast<std::uint64_t>(count_size);
        if (entries > n / entry_size ||
            entries_at + entries * entry_size + static_cast<std::uint64_t>(offset_size) > n) {
            out.problem = "TIFF directory of " + where + " lies past the end of the file";
            return std::nullopt;
        }
        if (page) ++out.pages;
        // Every value array stored outside the directory must lie inside the file; the
        // strip/tile offsets and byte counts (tags 273/279 and 324/325) are kept.
        TiffDirectory d;
        std::vector<std::uint64_t>& offsets = d.offsets;
        std::vector<std::uint64_t>& counts = d.counts;
        for (std::uint64_t e = 0; e < entries; ++e) {
            const std::uint64_t at = entries_at + e * entry_size;
            const std::uint64_t tag = r.get(at, 2);
            const std::uint64_t size = tiff_type_size(r.get(at + 2, 2));
            if (size == 0) continue;  // unknown type: readers skip the entry
            const std::uint64_t count = r.get(at + 4, big ? 8 : 4);
            const std::uint64_t field = at + 4 + static_cast<std::uint64_t>(offset_size);
            if (count > n) {
                out.problem = "TIFF directory of " + where + " is corrupt";
                return std::nullopt;
            }
            std::uint64_t values = field;
            if (count * size > static_cast<std::uint64_t>(offset_size)) {
                values = r.get(field, offset_size);
                if (values > n || count * size > n - values) {
                    out.problem = "TIFF directory of " + where + " points past the end of the file";
                    return std::nullopt;
                }
            }
            if (page && out.pages == 1 && (tag == 256 || tag == 257) && count == 1 &&
                (size == 2 || size == 4))
                (tag == 256 ? out.width : out.height) = r.get(values, static_cast<int>(size));
            // BYTE, SHORT, LONG, UNDEFINED (EXIF's CFAPattern), IFD, LONG8, IFD8.
            const std::uint64_t type = r.get(at + 2, 2);
            const bool integer = type == 1 || type == 3 || type == 4 || type == 7 || type == 13 ||
                                 type == 16 || type == 18;
            if (integer && count >= 1) {
                const auto first = [&] { return r.get(values, static_cast<int>(size)); };
                const auto all = [&](std::vector<std::uint64_t>& list) {
                    list.clear();
                    for (std::uint64_t i = 0; i < count && i < kMaxTiffValues; ++i)
                        list.push_back(r.get(values + i * size, static_cast<int>(size)));
                };
                switch (tag) {
                    case 254:
                        d.subfile_type = first();
                        break;
                    case 256:
                        d.width = first();
                        break;
                    case 257:
                        d.height = first();
                        break;
                    case 258:
                        d.bits = first();
                        break;
                    case 259:
                        d.compression = first();
                        break;
                    case 262:
                        d.photometric = first();
                        break;
                    case 277:
                        d.samples = first();
                        break;
                    case 339:
                        d.sample_format = first();
                        break;
                    case 278:
                        d.rows_per_strip = first();
                        break;
                    case 322:
                        d.tile_width = first();
                        break;
                    case 323:
                        d.tile_length = first();
                        break;
                    case 33421:
                        all(d.cfa_dims);
                        break;
                    case 33422:
                        all(d.cfa_pattern);
                        break;
                    case 50710:
                        all(d.cfa_planes);
                        break;
                    case 50717:
                        all(d.white_levels);
                        break;
                    case 50829:
                        all(d.active_area);
                        break;
                    default:
                        break;
                }
            }
            const bool is_sub = tag == 330 || tag == 34665 || tag == 34853 || tag == 40965;
            if (sub_directories && is_sub && (size == 4 || size == 8))
                for (std::uint64_t i = 0; i < count; ++i)
                    subs.push_back(r.get(values + i * size, static_cast<int>(size)));
            const bool is_offsets = tag == 273 || tag == 324;
            const bool is_counts = tag == 279 || tag == 325;
            if ((!is_offsets && !is_counts) || (size != 2 && size != 4 && size != 8)) continue;
            auto& list = is_offsets ? offsets : counts;
            list.clear();
            for (std::uint64_t i = 0; i < count; ++i)
                list.push_back(r.get(values + i * size, static_cast<int>(size)));
        }
        if (offsets.size() == counts.size()) {
            for (std::size_t i = 0; i < offsets.size(); ++i)
                if (offsets[i] > n || counts[i] > n - offsets[i]) {
                    out.problem = "TIFF image data of " + where + " lies past the end of the file";
                    return std::nullopt;
                }
            if (page && out.pages == 1)
                for (std::uint64_t c : counts) out.data_bytes += c;
        }
        out.directories.push_back(std::move(d));
        return r.get(entries_at + entries * entry_size, offset_size);
    };
    while (ifd != 0) {
        if (out.pages == kMaxTiffPages) {
            out.problem = "TIFF file has more than " + std::to_string(kMaxTiffPages) + " pages";
            return out;
        }
        const auto next = directory("page " + std::to_string(out.pages + 1), true);
        if (!next) return out;
        ifd = *next;
    }
    // The sub-directories and their chains, each directory once (seen guards against loops).
    while (!subs.empty()) {
        ifd = subs.back();
        subs.pop_back();
        while (ifd != 0 && !seen.count(ifd)) {
            if (seen.size() > static_cast<std::size_t>(kMaxTiffPages)) {
                out.problem =
                    "TIFF file has more than " + std::to_string(kMaxTiffPages) + " directories";
                return out;
            }
            const auto next = directory("a sub-directory", false);
            if (!next) return out;
            ifd = *next;
        }
    }
    return out;
}

namespace {

// The header of a PNM (P1..P6) or PAM (P7) file: whitespace-separated decimal fields, '#'
// comments to the end of a line; raw rasters start after exactly one whitespace byte.
struct PnmHeader {
    char kind = 0;  // '1'..'7'
    std::uint64_t width = 0, height = 0, depth = 1, maxval = 1;
    std::size_t data = 0;  // offset of the raster
    std::string problem;
};

class PnmTokens {
  public:
    PnmTokens(Bytes b, std::size_t at) : b_(b), p_(at) {}
    // Skips whitespace and comments; false at the end of the file.
    bool skip() {
        while (p_ < b_.size()) {
            if (b_[p_] == '#') {
                while (p_ < b_.size() && b_[p_] != '\n' && b_[p_] != '\r') ++p_;
            } else if (is_pnm_space(b_[p_]) || b_[p_] == '\v' || b_[p_] == '\f') {
                ++p_;
            } else {
                return true;
            }
        }
        return false;
    }
    // The next decimal number (at most 10 digits), or std::nullopt.
    std::optional<std::uint64_t> number() {
        if (!skip() || b_[p_] < '0' || b_[p_] > '9') return std::nullopt;
        std::uint64_t v = 0;
        int digits = 0;
        while (p_ < b_.size() && b_[p_] >= '0' && b_[p_] <= '9') {
            if (++digits > 10) return std::nullopt;
            v = v * 10 + (b_[p_++] - '0');
        }
        return v;
    }
    std::string word() {
        std::string w;
        if (!skip()) return w;
        while (p_ < b_.size() && !is_pnm_space(b_[p_])) w += static_cast<char>(b_[p_++]);
        return w;
    }
    std::size_t position() const { return p_; }
    void set_position(std::size_t p) { p_ = p; }
    bool at_end() const { return p_ >= b_.size(); }

  private:
    Bytes b_;
    std::size_t p_;
};

PnmHeader pnm_header(Bytes f) {
    PnmHeader h;
    h.kind = static_cast<char>(f[1]);
    PnmTokens t(f, 2);
    const auto fail = [&](const std::string& why) {
        h.problem = "PNM header " + why;
        return h;
    };
    if (h.kind == '7') {
        // PAM: "WIDTH n", "HEIGHT n", "DEPTH n", "MAXVAL n", "TUPLTYPE ...", then "ENDHDR".
        for (;;) {
            const std::string key = t.word();
            if (key.empty()) return fail("ends before ENDHDR");
            if (key == "ENDHDR") break;
            if (key == "TUPLTYPE") {
                static_cast<void>(t.word());
                continue;
            }
            const auto v = t.number();
            if (!v) return fail("has no number after " + key);
            if (key == "WIDTH")
                h.width = *v;
            else if (key == "HEIGHT")
                h.height = *v;
            else if (key == "DEPTH")
                h.depth = *v;
            else if (key == "MAXVAL")
                h.maxval = *v;
        }
    } else {
        const auto w = t.number(), hh = t.number();
        if (!w || !hh) return fail("lacks its width or height");
        h.width = *w;
        h.height = *hh;
        h.depth = h.kind == '3' || h.kind == '6' ? 3 : 1;
        if (h.kind != '1' && h.kind != '4') {
            const auto m = t.number();
            if (!m) return fail("lacks its maxval");
            h.maxval = *m;
        }
    }
    if (h.width == 0 || h.height == 0) return fail("declares an empty image");
    if (h.maxval == 0 || h.maxval > 65535) return fail("has a maxval outside 1..65535");
    if (h.depth == 0 || h.depth > 4) return fail("declares a depth outside 1..4");
    h.data = t.position() + 1;  // one whitespace byte ends the header
    return h;
}

}  // namespace

std::string pnm_problem(Bytes f) {
    const PnmHeader h = pnm_header(f);
    if (!h.problem.empty()) return h.problem;
    const std::uint64_t samples = h.width * h.height * h.depth;
    const auto too_big = [&](std::uint64_t v, std::uint64_t index) {
        const std::uint64_t pixel = index / h.depth;
        return "PNM sample " + std::to_string(v) + " at pixel (" + std::to_string(pixel % h.width) +
               ", " + std::to_string(pixel / h.width) + ") exceeds the header's maxval " +
               std::to_string(h.maxval);
    };
    const std::string truncated =
        "PNM raster ends before its " + std::to_string(samples) + " samples";
    if (h.kind == '4') {  // packed bits, rows padded to bytes
        const std::uint64_t needed = (h.width + 7) / 8 * h.height;
        return h.data + needed > f.size() ? truncated : std::string();
    }
    if (h.kind == '1') {  // '0' and '1' characters, whitespace optional
        std::uint64_t seen = 0;
        for (std::size_t p = h.data - 1; p < f.size() && seen < samples; ++p) {
            if (f[p] == '#') {
                while (p < f.size() && f[p] != '\n') ++p;
            } else if (f[p] == '0' || f[p] == '1') {
                ++seen;
            } else if (!is_pnm_space(f[p])) {
                return "PNM bitmap holds a character other than 0 and 1 at offset " +
                       std::to_string(p);
            }
        }
        return seen < samples ? truncated : std::string();
    }
    if (h.kind == '2' || h.kind == '3') {  // decimal samples
        PnmTokens t(f, h.data - 1);
        for (std::uint64_t i = 0; i < samples; ++i) {
            const auto v = t.number();
            if (!v)
                return t.at_end() ? truncated : "PNM raster holds something other than a number";
            if (*v > h.maxval) return too_big(*v, i);
        }
        return {};
    }
    const std::uint64_t bytes = h.maxval > 255 ? 2 : 1;
    if (samples > (f.size() - std::min<std::uint64_t>(h.data, f.size())) / bytes) return truncated;
    if (h.maxval == 255 || h.maxval == 65535) return {};
    for (std::uint64_t i = 0; i < samples; ++i) {
        const std::size_t at = static_cast<std::size_t>(h.data + i * bytes);
        const std::uint64_t v =
            bytes == 1 ? f[at] : (static_cast<std::uint64_t>(f[at]) << 8 | f[at + 1]);
        if (v > h.maxval) return too_big(v, i);
    }
    return {};
}

PfmHeader pfm_header(Bytes f) {
    PfmHeader h;
    const auto bad = [&](const std::string& why) {
        h.problem = "PFM header " + why;
        return h;
    };
    if (f.size() < 3 || f[0] != 'P' || (f[1] != 'F' && f[1] != 'f') || !is_pnm_space(f[2]))
        return bad("is incomplete");
    h.channels = f[1] == 'F' ? 3 : 1;
    std::size_t at = 2;
    // Three whitespace-separated fields; the one byte after the third starts the raster.
    std::string fields[3];
    for (std::string& field : fields) {
        while (at < f.size() && is_pnm_space(f[at])) ++at;
        while (at < f.size() && !is_pnm_space(f[at])) {
            if (field.size() > 32) return bad("has a field too long to be a number");
            field.push_back(static_cast<char>(f[at++]));
        }
        if (at >= f.size()) return bad("is incomplete");
    }
    const auto whole = [](const std::string& t, std::uint64_t& v) {
        if (t.empty() || t.size() > 10 || t.find_first_not_of("0123456789") != std::string::npos)
            return false;
        v = std::stoull(t);
        return v > 0;
    };
    if (!whole(fields[0], h.width) || !whole(fields[1], h.height))
        return bad("has no valid size ('" + fields[0] + " " + fields[1] + "')");
    char* end = nullptr;
    h.scale = std::strtod(fields[2].c_str(), &end);
    if (fields[2].empty() || end != fields[2].c_str() + fields[2].size() ||
        !std::isfinite(h.scale) || h.scale == 0.0)
        return bad("has no valid scale ('" + fields[2] +
                   "': a number whose sign gives the byte "
                   "order, not 0)");
    h.little_endian = h.scale < 0.0;
    h.raster = at + 1;  // one whitespace byte
    h.complete_header = true;
    const auto need = static_cast<U128>(h.width) * h.height * static_cast<unsigned>(h.channels) * 4;
    const std::uint64_t have = f.size() - h.raster;
    if (have < need)
        h.problem = "PFM raster of " + std::to_string(h.width) + "x" + std::to_string(h.height) +
                    "x" + std::to_string(h.channels) + " floats needs " +
                    std::to_string(static_cast<std::uint64_t>(need)) + " bytes, more than the " +
                    std::to_string(have) + " the file has";
    else if (have > need)
        h.problem = "PFM file has " + std::to_string(have - static_cast<std::uint64_t>(need)) +
                    " bytes after the raster its header declares (a wrong size?)";
    return h;
}

namespace {

// The lines of one chunk of a scan-line OpenEXR file, by compression.
std::int64_t exr_lines_per_chunk(int compression) {
    switch (compression) {
        case 3:  // ZIP
        case 5:  // PXR24
            return 16;
        case 4:  // PIZ
        case 6:  // B44
        case 7:  // B44A
        case 8:  // DWAA
            return 32;
        case 9:  // DWAB
            return 256;
        default:  // none, RLE, ZIPS
            return 1;
    }
}

}  // namespace

std::string exr_compression_name(int compression) {
    static const char* const names[] = {"none",  "rle", "zips", "zip",  "piz",
                                        "pxr24", "b44", "b44a", "dwaa", "dwab"};
    return compression >= 0 && compression < 10 ? names[compression]
                                                : "compression " + std::to_string(compression);
}

ExrHeader exr_header(Bytes f) {
    ExrHeader h;
    const std::uint64_t n = f.size();
    if (n < 8 || !starts_with(f, {0x76, 0x2F, 0x31, 0x01})) {
        h.problem = "OpenEXR header is incomplete";
        return h;
    }
    const std::uint32_t version = le32(f, 4);
    if ((version & 0xFF) != 2) {
        h.problem = "OpenEXR version " + std::to_string(version & 0xFF) + " is unknown";
        return h;
    }
    h.tiled = (version & 0x200) != 0;
    h.deep = (version & 0x800) != 0;
    h.multipart = (version & 0x1000) != 0;
    const std::size_t max_name = (version & 0x400) != 0 ? 255 : 31;
    std::uint64_t at = 8;
    // A null-terminated string of at most `max` characters at `at`.
    const auto text = [&](std::string& out, std::size_t max) {
        out.clear();
        while (at < n && f[static_cast<std::size_t>(at)] != 0) {
            if (out.size() >= max) return false;
            out.push_back(static_cast<char>(f[static_cast<std::size_t>(at++)]));
        }
        if (at >= n) return false;
        ++at;
        return true;
    };
    const auto i32 = [&](std::uint64_t p) {
        return static_cast<std::int64_t>(
            static_cast<std::int32_t>(le32(f, static_cast<std::size_t>(p))));
    };
    bool have_window = false, have_channels = false;
    std::int64_t chunks = -1;  // part 0's chunkCount (multi-part files)
    for (int part = 0;; ++part) {
        if (part > 0 && (!h.multipart || at >= n || f[static_cast<std::size_t>(at)] == 0)) break;
        if (part >= 1 << 16) {
            h.problem = "OpenEXR file declares more than 65536 parts";
            return h;
        }
        for (;;) {  // the attributes of one header, up to its null byte
            std::string name, type;
            if (at < n && f[static_cast<std::size_t>(at)] == 0) {
                ++at;
                break;
            }
            if (!text(name, max_name) || !text(type, max_name) || at + 4 > n) {
                h.problem = "OpenEXR header is incomplete or malformed";
                return h;
            }
            const std::int64_t size = i32(at);
            at += 4;
            if (size < 0 || static_cast<std::uint64_t>(size) > n - at) {
                h.problem = "OpenEXR attribute '" + name + "' lies past the end of the file";
                return h;
            }
            const std::uint64_t value = at;
            at += static_cast<std::uint64_t>(size);
            if (part > 0) continue;
            if ((name == "dataWindow" || name == "displayWindow") && type == "box2i" &&
                size == 16) {
                const std::int64_t x0 = i32(value), y0 = i32(value + 4), x1 = i32(value + 8),
                                   y1 = i32(value + 12);
                if (name == "dataWindow") {
                    h.x0 = x0;
                    h.y0 = y0;
                    h.width = x1 - x0 + 1;
                    h.height = y1 - y0 + 1;
                    have_window = true;
                } else {
                    h.display_x0 = x0;
                    h.display_y0 = y0;
                    h.display_width = x1 - x0 + 1;
                    h.display_height = y1 - y0 + 1;
                }
            } else if (name == "compression" && type == "compression" && size == 1) {
                h.compression = f[static_cast<std::size_t>(value)];
            } else if (name == "chunkCount" && type == "int" && size == 4) {
                chunks = i32(value);
            } else if (name == "type" && type == "string") {
                const std::string t(reinterpret_cast<const char*>(f.data() + value),
                                    static_cast<std::size_t>(size));
                h.deep = h.deep || t.rfind("deep", 0) == 0;
                h.tiled = t == "tiledimage" || t == "deeptile" || (h.tiled && !h.multipart);
            } else if (name == "channels" && type == "chlist") {
                std::uint64_t p = value;
                const std::uint64_t end = value + static_cast<std::uint64_t>(size);
                for (;;) {
                    if (p >= end) {
                        h.problem = "OpenEXR channel list is malformed";
                        return h;
                    }
                    if (f[static_cast<std::size_t>(p)] == 0) break;
                    ExrChannel c;
                    while (p < end && f[static_cast<std::size_t>(p)] != 0)
                        c.name.push_back(static_cast<char>(f[static_cast<std::size_t>(p++)]));
                    if (p + 17 > end) {
                        h.problem = "OpenEXR channel list is malformed";
                        return h;
                    }
                    c.type = static_cast<int>(i32(p + 1));
                    c.x_sampling = static_cast<int>(i32(p + 9));
                    c.y_sampling = static_cast<int>(i32(p + 13));
                    p += 17;
                    if (h.channels.size() >= 1024) {
                        h.problem = "OpenEXR file declares more than 1024 channels";
                        return h;
                    }
                    h.channels.push_back(std::move(c));
                }
                have_channels = true;
            }
        }
        h.parts = part + 1;
    }
    if (h.multipart) ++at;  // the empty header that ends the list
    if (!have_window || !have_channels) {
        h.problem =
            std::string("OpenEXR header has no ") + (have_window ? "channel list" : "data window");
        return h;
    }
    if (h.width < 1 || h.height < 1 || h.width > (std::int64_t{1} << 31) ||
        h.height > (std::int64_t{1} << 31)) {
        h.problem = "OpenEXR data window is empty or invalid";
        return h;
    }
    h.complete = true;
    // Part 0's chunk offset table follows the headers (a multi-part file's tables follow each
    // other, part 0's first): 8 bytes a chunk, each chunk then at least 8 bytes of its own.
    std::int64_t table = chunks;
    if (table < 0 && !h.tiled) {
        const std::int64_t lines = exr_lines_per_chunk(h.compression);
        table = (h.height + lines - 1) / lines;
    }
    if (table >= 0 && static_cast<std::uint64_t>(table) > (n - at) / 16)
        h.problem = "OpenEXR file ends before the " + std::to_string(table) +
                    " chunks its header declares (its offset table alone needs " +
                    std::to_string(8 * table) + " bytes)";
    return h;
}

std::uint64_t pnm_maxval(Bytes f) {
    const PnmHeader h = pnm_header(f);
    return h.problem.empty() && h.kind != '1' && h.kind != '4' ? h.maxval : 0;
}

std::optional<Image> pnm_samples(Bytes f, int deep_depth) {
    const PnmHeader h = pnm_header(f);
    if (!h.problem.empty() || h.kind == '1' || h.kind == '4') return std::nullopt;
    const bool deep = h.maxval > 255;
    const int in = static_cast<int>(h.depth);
    Image out(static_cast<int>(h.width), static_cast<int>(h.height), in == 2 ? 4 : in,
              deep ? SampleType::U16 : SampleType::U8, deep ? deep_depth : 8);
    const bool ascii = h.kind == '2' || h.kind == '3';
    PnmTokens tokens(f, h.data - 1);
    std::size_t at = h.data;
    const auto next = [&]() -> std::uint32_t {
        if (ascii) return static_cast<std::uint32_t>(tokens.number().value_or(0));
        const std::uint32_t v = deep ? static_cast<std::uint32_t>(f[at] << 8 | f[at + 1]) : f[at];
        at += deep ? 2 : 1;
        return v;
    };
    std::vector<std::uint32_t> pixel(static_cast<std::size_t>(out.channels()));
    for (int y = 0; y < out.height(); ++y) {
        std::byte* row = out.row(y);
        for (int x = 0; x < out.width(); ++x) {
            for (int c = 0; c < in; ++c) pixel[static_cast<std::size_t>(c)] = next();
            if (in == 2) pixel = {pixel[0], pixel[0], pixel[0], pixel[1]};
            for (std::size_t c = 0; c < pixel.size(); ++c) {
                const std::size_t i = static_cast<std::size_t>(x) * pixel.size() + c;
                if (deep)
                    reinterpret_cast<std::uint16_t*>(row)[i] = static_cast<std::uint16_t>(pixel[c]);
                else
                    reinterpret_cast<std::uint8_t*>(row)[i] = static_cast<std::uint8_t>(pixel[c]);
            }
        }
    }
    return out;
}

std::string structure_problem(ImageFormat format, Bytes file) {
    switch (format) {
        case ImageFormat::Pfm:
            return pfm_header(file).problem;
        case ImageFormat::OpenExr:
            return exr_header(file).problem;
        case ImageFormat::Jpeg:
            return jpeg_problem(file);
        case ImageFormat::Png:
            return png_problem(file);
        case ImageFormat::Tiff:
            return tiff_layout(file).problem;
        case ImageFormat::Bmp:
            return bmp_problem(file);
        case ImageFormat::WebP:
            return webp_problem(file);
        case ImageFormat::Pnm:
        case ImageFormat::Pam:
            return pnm_problem(file);
        default:
            return {};
    }
}

namespace {

bool is_jpeg_sof(std::uint8_t m) {
    return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

std::optional<ImageHeader> jpeg_header(Bytes f) {
    std::size_t p = 2;
    while (p + 4 <= f.size()) {
        if (f[p] != 0xFF) {
            ++p;  // stray bytes between segments, as libjpeg skips them
            continue;
        }
        const std::uint8_t m = f[p + 1];
        if (m == 0xFF || m == 0x01 || (m >= 0xD0 && m <= 0xD8)) {
            p += m == 0xFF ? 1 : 2;
            continue;
        }
        if (m == 0xD9 || m == 0xDA) return std::nullopt;  // no frame header before the scan
        const std::size_t length = static_cast<std::size_t>(f[p + 2] << 8 | f[p + 3]);
        if (!is_jpeg_sof(m)) {
            p += 2 + std::max<std::size_t>(length, 2);
            continue;
        }
        // SOF: P, Y, X, Nf, then Nf times (C, H<<4|V, Tq).
        if (length < 8 || p + 2 + length > f.size()) return std::nullopt;
        ImageHeader h;
        h.height = static_cast<std::uint64_t>(f[p + 5] << 8 | f[p + 6]);
        h.width = static_cast<std::uint64_t>(f[p + 7] << 8 | f[p + 8]);
        const std::size_t components = f[p + 9];
        if (components == 0 || length < 8 + 3 * components) return h;  // libjpeg refuses it
        std::uint64_t hmax = 1, vmax = 1;
        for (std::size_t c = 0; c < components; ++c) {
            hmax = std::max<std::uint64_t>(hmax, f[p + 11 + 3 * c] >> 4);
            vmax = std::max<std::uint64_t>(vmax, f[p + 11 + 3 * c] & 15);
        }
        std::uint64_t fewest_blocks = ~std::uint64_t{0};
        for (std::size_t c = 0; c < components; ++c) {
            const std::uint64_t hf = std::max<std::uint64_t>(1, f[p + 11 + 3 * c] >> 4);
            const std::uint64_t vf = std::max<std::uint64_t>(1, f[p + 11 + 3 * c] & 15);
            const std::uint64_t w = (h.width * hf + hmax - 1) / hmax;
            const std::uint64_t ht = (h.height * vf + vmax - 1) / vmax;
            fewest_blocks = std::min(fewest_blocks, ((w + 7) / 8) * ((ht + 7) / 8));
        }
        // Arithmetic coding (SOF9..SOF15) can spend less than a bit on a block: no bound.
        const bool arithmetic = m >= 0xC9;
        if (!arithmetic && fewest_blocks / 8 > f.size())
            h.impossible =
                "its header declares " + std::to_string(h.width) + "x" + std::to_string(h.height) +
                " pixels, which " + std::to_string(f.size()) +
                " bytes of JPEG data cannot hold: Huffman coding spends at least one bit per 8x8 "
                "block";
        return h;
    }
    return std::nullopt;
}

std::optional<ImageHeader> png_header(Bytes f) {
    if (f.size() < 33 || !starts_with(f, "IHDR", 12)) return std::nullopt;
    ImageHeader h;
    h.width = be32(f, 16);
    h.height = be32(f, 20);
    const std::uint64_t bits = f[24];
    const std::uint64_t channels = f[25] == 2 ? 3 : f[25] == 4 ? 2 : f[25] == 6 ? 4 : 1;
    std::uint64_t idat = 0;
    for (std::uint64_t p = 8; p + 12 <= f.size();) {
        const std::uint64_t length = be32(f, static_cast<std::size_t>(p));
        if (starts_with(f, "IDAT", static_cast<std::size_t>(p + 4))) idat += length;
        if (starts_with(f, "IEND", static_cast<std::size_t>(p + 4)) || length > f.size()) break;
        p += 12 + length;
    }
    // Deflate expands at most 1032 times (a 258-byte match in two bits).
    const std::uint64_t row_bytes = (h.width * channels * bits + 7) / 8;
    const std::uint64_t limit = (idat + 1) * 1032;
    if (row_bytes > 0 && h.height > limit / row_bytes)
        h.impossible = "its header declares " + std::to_string(h.width) + "x" +
                       std::to_string(h.height) + " pixels, which " + std::to_string(idat) +
                       " bytes of compressed image data cannot hold";
    return h;
}

std::optional<ImageHeader> sized(std::uint64_t width, std::uint64_t height) {
    if (width == 0 || height == 0) return std::nullopt;
    ImageHeader h;
    h.width = width;
    h.height = height;
    return h;
}

std::optional<ImageHeader> webp_header(Bytes f) {
    if (f.size() < 30) return std::nullopt;
    if (starts_with(f, "VP8 ", 12) && starts_with(f, {0x9D, 0x01, 0x2A}, 23))
        return sized(le16(f, 26) & 0x3FFF, le16(f, 28) & 0x3FFF);
    if (starts_with(f, "VP8L", 12) && f[20] == 0x2F) {
        const std::uint32_t bits = le32(f, 21);
        return sized((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1);
    }
    if (starts_with(f, "VP8X", 12))
        return sized((le32(f, 24) & 0xFFFFFF) + 1, (le32(f, 27) & 0xFFFFFF) + 1);
    return std::nullopt;
}

std::optional<ImageHeader> jpeg2000_header(Bytes f) {
    if (starts_with(f, {0xFF, 0x4F, 0xFF, 0x51})) {  // a bare codestream: SIZ first
        if (f.size() < 24) return std::nullopt;
        const std::uint64_t x = be32(f, 8), y = be32(f, 12), x0 = be32(f, 16), y0 = be32(f, 20);
        return x > x0 && y > y0 ? sized(x - x0, y - y0) : std::nullopt;
    }
    // JP2: the image header box "ihdr" (height, then width) inside "jp2h".
    const std::size_t end = std::min<std::size_t>(f.size(), 1 << 16);
    for (std::size_t p = 0; p + 12 <= end; ++p)
        if (starts_with(f, "ihdr", p)) return sized(be32(f, p + 8), be32(f, p + 4));
    return std::nullopt;
}

}  // namespace

std::optional<ImageHeader> image_header(ImageFormat format, Bytes f) {
    switch (format) {
        case ImageFormat::Jpeg:
            return jpeg_header(f);
        case ImageFormat::Png:
            return png_header(f);
        case ImageFormat::Tiff: {
            const TiffLayout layout = tiff_layout(f);
            const TiffDirectory page = layout.first_page();
            auto h = sized(layout.width, layout.height);
            if (!h || page.sample_format != 3 || !layout.problem.empty()) return h;
            // Float samples: none, deflate, LZW or PackBits bound what the strips can hold (an
            // absent Compression, SamplesPerPixel or BitsPerSample takes TIFF's default, 1).
            const std::uint64_t c = std::max<std::uint64_t>(page.compression, 1);
            const std::uint64_t ratio = c == 1                                         ? 1
                                        : c == 5 || c == 8 || c == 32946 || c == 32773 ? 4096
                                                                                       : 0;
            const auto need = static_cast<U128>(h->width) * h->height *
                              std::max<std::uint64_t>(page.samples, 1) *
                              std::max<std::uint64_t>(page.bits, 1) / 8;
            if (ratio != 0 && need > static_cast<U128>(layout.data_bytes) * ratio)
                h->impossible = "its header declares " + std::to_string(h->width) + "x" +
                                std::to_string(h->height) + " pixels, which " +
                                std::to_string(layout.data_bytes) +
                                " bytes of image data cannot hold";
            return h;
        }
        case ImageFormat::Bmp: {
            if (f.size() < 26) return std::nullopt;
            if (le32(f, 14) == 12) return sized(le16(f, 18), le16(f, 20));
            if (f.size() < 30) return std::nullopt;
            const auto w = static_cast<std::int32_t>(le32(f, 18));
            const auto h = static_cast<std::int32_t>(le32(f, 22));
            return sized(static_cast<std::uint64_t>(std::abs(static_cast<std::int64_t>(w))),
                         static_cast<std::uint64_t>(std::abs(static_cast<std::int64_t>(h))));
        }
        case ImageFormat::WebP:
            return webp_header(f);
        case ImageFormat::Pnm:
        case ImageFormat::Pam: {
            const PnmHeader h = pnm_header(f);
            return h.problem.empty() ? sized(h.width, h.height) : std::nullopt;
        }
        case ImageFormat::Jpeg2000:
            return jpeg2000_header(f);
        case ImageFormat::Pfm: {
            const PfmHeader h = pfm_header(f);
            return h.complete_header ? sized(h.width, h.height) : std::nullopt;
        }
        case ImageFormat::OpenExr: {
            const ExrHeader e = exr_header(f);
            if (!e.complete) return std::nullopt;
            auto h =
                sized(static_cast<std::uint64_t>(e.width), static_cast<std::uint64_t>(e.height));
            if (e.compression == 0 && !e.tiled && !e.multipart && h) {
                // Uncompressed: every byte of every pixel is in the file.
                std::uint64_t pixel_bytes = 0;
                for (const ExrChannel& c : e.channels) pixel_bytes += c.type == 1 ? 2 : 4;
                const auto need = static_cast<U128>(h->width) * h->height * pixel_bytes;
                if (need > f.size())
                    h->impossible = "its header declares " + std::to_string(h->width) + "x" +
                                    std::to_string(h->height) + " uncompressed pixels, which " +
                                    std::to_string(f.size()) + " bytes cannot hold";
            }
            return h;
        }
        case ImageFormat::SunRaster:
            return f.size() >= 12 ? sized(be32(f, 4), be32(f, 8)) : std::nullopt;
        default:
            return std::nullopt;
    }
}

void check_pixel_limit(const std::string& name, const std::string& what, std::uint64_t width,
                       std::uint64_t height, std::uint64_t max_pixels) {
    if (width == 0 || height <= max_pixels / width) return;
    throw InputError(name + ": " + what + " declares " + std::to_string(width) + "x" +
                     std::to_string(height) + " pixels, more than the limit of " +
                     std::to_string(max_pixels) + " pixels per image");
}

}  // namespace hs::media::detail
