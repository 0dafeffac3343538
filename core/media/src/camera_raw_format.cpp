// Camera raw files without LibRaw: recognising them (signatures, the first TIFF directory, the
// extension), the names of the mosaic's CFA colours, and the counts at the black and white
// levels. Both builds have these, so that a build without LibRaw still names a camera raw file
// as one when it refuses it.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/name_list.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

using namespace std::string_view_literals;

// Extension (without the dot) and the format's name.
struct RawExtension {
    const char* extension;
    const char* name;
};
constexpr RawExtension kRawExtensions[] = {
    {"dng", "DNG"}, {"cr2", "CR2"}, {"cr3", "CR3"}, {"crw", "CRW"}, {"nef", "NEF"},
    {"nrw", "NRW"}, {"arw", "ARW"}, {"srf", "SRF"}, {"sr2", "SR2"}, {"raf", "RAF"},
    {"orf", "ORF"}, {"rw2", "RW2"}, {"rwl", "RWL"}, {"pef", "PEF"}, {"srw", "SRW"},
    {"x3f", "X3F"}, {"mrw", "MRW"}, {"3fr", "3FR"}, {"fff", "FFF"}, {"iiq", "IIQ"},
    {"erf", "ERF"}, {"mef", "MEF"}, {"mos", "MOS"}, {"kdc", "KDC"}, {"dcr", "DCR"},
};

bool at(detail::Bytes b, std::size_t offset, std::string_view magic) {
    return b.size() >= offset + magic.size() &&
           std::memcmp(b.data() + offset, magic.data(), magic.size()) == 0;
}

// The tags of the first directory of a TIFF (those inside `head`), and the value of a SHORT
// tag stored in its entry.
struct TiffTags {
    std::vector<std::uint32_t> tags;
    std::uint32_t photometric = 0;
    bool has(std::uint32_t tag) const {
        return std::find(tags.begin(), tags.end(), tag) != tags.end();
    }
};

TiffTags first_directory(detail::Bytes b) {
    TiffTags out;
    if (b.size() < 8 || !(at(b, 0, "II*\0"sv) || at(b, 0, "MM\0*"sv))) return out;
    const bool little = b[0] == 'I';
    const auto get = [&](std::size_t offset, int bytes) {
        std::uint32_t v = 0;
        for (int i = 0; i < bytes; ++i) {
            const std::uint32_t byte = b[offset + static_cast<std::size_t>(i)];
            v |= little ? byte << (8 * i) : byte << (8 * (bytes - 1 - i));
        }
        return v;
    };
    const std::size_t ifd = get(4, 4);
    if (ifd + 2 > b.size()) return out;
    const std::size_t entries = get(ifd, 2);
    for (std::size_t e = 0; e < entries && ifd + 2 + 12 * (e + 1) <= b.size(); ++e) {
        const std::size_t entry = ifd + 2 + 12 * e;
        const std::uint32_t tag = get(entry, 2);
        out.tags.push_back(tag);
        if (tag == 262 && get(entry + 2, 2) == 3) out.photometric = get(entry + 8, 2);
    }
    return out;
}

// Without the dot.
std::string lower_extension(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    if (!ext.empty()) ext.erase(0, 1);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return ext;
}

}  // namespace

namespace detail {

std::optional<std::string> camera_raw_format(Bytes head, const std::string& path) {
    // Signatures of their own.
    if (at(head, 0, "II*\0"sv) && at(head, 8, "CR\x02"sv)) return "CR2";
    if (at(head, 4, "ftypcrx "sv)) return "CR3";
    if (at(head, 0, "II\x1a\0\0\0HEAPCCDR"sv)) return "CRW";
    if (at(head, 0, "IIRO"sv) || at(head, 0, "IIRS"sv) || at(head, 0, "MMOR"sv)) return "ORF";
    if (at(head, 0, "IIU\0"sv)) return "RW2";
    if (at(head, 0, "FUJIFILMCCD-RAW"sv)) return "RAF";
    if (at(head, 0, "FOVb"sv)) return "X3F";
    if (at(head, 0, "\0MRM"sv)) return "MRW";
    const ImageFormat layout = sniff_image(head);
    if (layout == ImageFormat::Tiff) {
        const TiffTags tags = first_directory(head);
        if (tags.has(50706)) return "DNG";  // DNGVersion
    }
    const std::string ext = lower_extension(path);
    const auto* known = std::find_if(std::begin(kRawExtensions), std::end(kRawExtensions),
                                     [&](const RawExtension& r) { return ext == r.extension; });
    // A photo of another format under a raw name is that photo.
    if (layout != ImageFormat::Tiff && layout != ImageFormat::Unknown) return std::nullopt;
    if (known != std::end(kRawExtensions)) return std::string(known->name);
    if (layout == ImageFormat::Tiff) {
        // CFA (32803) or linear raw (34892) samples, or a camera's preview with the raw image
        // in a SubIFD (330): no photo OpenCV reads.
        const TiffTags tags = first_directory(head);
        if (tags.photometric == 32803 || tags.photometric == 34892) return "raw TIFF";
        if (tags.has(271) && tags.has(330)) return "raw TIFF";
    }
    return std::nullopt;
}

}  // namespace detail

const std::vector<std::string>& camera_raw_extensions() {
    static const std::vector<std::string> all = [] {
        std::vector<std::string> v;
        for (const RawExtension& r : kRawExtensions) v.push_back(std::string(".") + r.extension);
        return v;
    }();
    return all;
}

std::string_view to_string(CameraRawView view) {
    return view == CameraRawView::Cfa ? "cfa" : "rgb";
}

CameraRawView parse_camera_raw_view(std::string_view text) {
    if (text == "cfa") return CameraRawView::Cfa;
    if (text == "rgb") return CameraRawView::Rgb;
    throw UsageError("a camera raw view is cfa (the mosaic) or rgb (demosaiced), not '" +
                     std::string(text) + "'");
}

int cfa_index(Channel c) {
    for (int i = 0; i < 4; ++i)
        if (kCfaColours[i].channel == c) return i;
    return -1;
}

std::string_view cfa_channel_name(Channel c) {
    const int i = cfa_index(c);
    return i < 0 ? channel_name(c) : std::string_view(kCfaColours[i].name);
}

std::vector<Channel> parse_cfa_channels(std::string_view list) {
    // "all" is the four colours, alone or beside some of them, as for an image's channels.
    std::vector<std::string_view> all;
    for (const CfaColour& c : kCfaColours) all.emplace_back(c.name);
    std::vector<Channel> out;
    for (const std::string& item : expand_all(list, all)) {
        const auto* colour = std::find_if(std::begin(kCfaColours), std::end(kCfaColours),
                                          [&](const CfaColour& c) { return item == c.name; });
        if (colour == std::end(kCfaColours))
            throw UsageError("channel '" + item +
                             "': the CFA mosaic of a camera raw file has the channels r, g1, g2 "
                             "and b (or all); --camera-raw rgb gives its demosaiced r, g, b");
        out.push_back(colour->channel);
    }
    return out;
}

namespace {

std::string number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", v);
    return text;
}

}  // namespace

std::string exposure_text(double seconds) {
    if (!(seconds > 0.0)) return {};
    // Shorter than a second: 1/N as cameras write it, when it is one.
    if (seconds < 1.0) {
        const double n = std::round(1.0 / seconds);
        if (std::abs(1.0 / n - seconds) <= seconds * 1e-3) return "1/" + number(n) + " s";
    }
    return number(seconds) + " s";
}

std::string shot_text(const CameraRawInfo& info) {
    std::string shot;
    const auto add = [&](const std::string& part) { shot += (shot.empty() ? "" : ", ") + part; };
    if (info.iso > 0) add("ISO " + number(info.iso));
    if (info.exposure_s > 0) add(exposure_text(info.exposure_s));
    if (info.aperture > 0) add("f/" + number(info.aperture));
    if (info.focal_length_mm > 0) add(number(info.focal_length_mm) + " mm");
    if (!info.date.empty()) add(info.date);
    return shot;
}

LevelCounts level_counts(const std::vector<std::uint64_t>& value_counts, std::uint32_t black,
                         std::uint32_t white) {
    LevelCounts out;
    for (std::size_t v = 0; v < value_counts.size(); ++v) {
        if (v <= black) out.at_or_below_black += value_counts[v];
        if (v >= white) out.at_or_above_white += value_counts[v];
    }
    return out;
}

}  // namespace hs::media
