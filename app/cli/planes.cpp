#include "planes.hpp"

#include <algorithm>
#include <cstring>

#include "histoscope/core/error.hpp"
#include "request_options.hpp"

namespace hs::cli {

ChannelSelection select_channels(const std::string& list) {
    ChannelSelection s;
    int others = 0;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = list.find(',', start);
        const std::string item =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto* plane = std::find_if(std::begin(kPlaneNames), std::end(kPlaneNames),
                                         [&](const char* n) { return item == n; });
        if (plane != std::end(kPlaneNames)) {
            const int p = static_cast<int>(plane - std::begin(kPlaneNames));
            if (std::find(s.planes.begin(), s.planes.end(), p) != s.planes.end())
                throw UsageError("channel '" + item + "' is listed twice");
            s.order.emplace_back(true, static_cast<int>(s.planes.size()));
            s.planes.push_back(p);
        } else {
            s.others += (s.others.empty() ? "" : ",") + item;
            s.other_items.push_back(item);
            s.order.emplace_back(false, others++);
        }
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return s;
}

std::vector<std::pair<bool, int>> ChannelSelection::ordered(
    const std::function<std::size_t(const std::string&)>& channels_of) const {
    // Each item of the others stands for the channels it adds to those before it.
    std::vector<std::pair<bool, int>> out;
    std::string listed;
    std::size_t done = 0;
    for (const auto& [is_plane, k] : order) {
        if (is_plane) {
            out.emplace_back(true, k);
            continue;
        }
        listed += (listed.empty() ? "" : ",") + other_items[static_cast<std::size_t>(k)];
        for (const std::size_t now = channels_of(listed); done < now; ++done)
            out.emplace_back(false, static_cast<int>(done));
    }
    return out;
}

Region plane_region(const Region& region, int shift_x, int shift_y) {
    const int x0 = region.x >> shift_x, y0 = region.y >> shift_y;
    const int x1 = (region.x + region.width - 1) >> shift_x;
    const int y1 = (region.y + region.height - 1) >> shift_y;
    return {x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

std::vector<ImageView> plane_views(const media::VideoPlanes& planes, const media::VideoCoding& c,
                                   const std::optional<Region>& region) {
    std::vector<ImageView> out{planes.y, planes.cb, planes.cr};
    if (!region) return out;
    out[0] = crop(out[0], *region);
    for (int i = 1; i < 3; ++i)
        out[static_cast<std::size_t>(i)] =
            crop(out[static_cast<std::size_t>(i)],
                 plane_region(*region, c.chroma_shift_x, c.chroma_shift_y));
    return out;
}

void check_planes(const std::string& name, const media::VideoCoding& coding) {
    if (coding.family != "ycbcr")
        throw UsageError("the channels y, cb, cr are the Y'CbCr planes of a video; " + name +
                         " is coded " + coding.pixel_format + ", without them");
}

Json plane_json(int plane, const ImageView& view, const ChannelHistogram& histogram) {
    // A channel's entry, named after the plane, its size after the name.
    Json counted = channel_json(histogram);
    Json c = Json::object();
    c["name"] = kPlaneNames[plane];
    c["width"] = view.width;
    c["height"] = view.height;
    c["total"] = std::move(counted["total"]);
    c["counts"] = std::move(counted["counts"]);
    return c;
}

void add_coding_json(Json& j, const media::VideoCoding& c) {
    j["pixel_format"] = c.pixel_format;
    j["coded_depth"] = c.bit_depth;
    j["alpha"] = c.alpha ? Json(c.alpha_read ? "read" : "not read") : Json();
    j["rgb_conversion"] = c.rgb_conversion();
    j["chroma"] = c.chroma.empty() ? Json() : Json(c.chroma);
    j["matrix"] = c.matrix.empty() ? Json() : Json(c.matrix);
    j["matrix_assumed"] = c.matrix_assumed;
    j["range"] = c.range_name();
    j["range_assumed"] = c.range_assumed;
    j["transfer"] = c.transfer;
    j["primaries"] = c.primaries;
}

std::string coding_text(const media::VideoCoding& c) {
    std::string s = c.pixel_format;
    if (c.family == "ycbcr") s += ", Y'CbCr " + c.chroma;
    if (c.family == "rgb") s += ", R'G'B'";
    if (c.family == "gray") s += ", gray";
    if (c.alpha) s += c.alpha_read ? " with alpha" : " with alpha (not read)";
    if (!c.matrix.empty())
        s += ", matrix " + c.matrix +
             (c.matrix_assumed ? " (assumed: the stream does not say)" : "");
    s += ", " + c.range_name() + " range" + (c.range_assumed ? " (assumed)" : "");
    if (c.rgb_conversion() == "opencv")
        s += "; R, G, B converted as OpenCV converts 8-bit video (Rec.601, whatever the matrix)";
    return s;
}

}  // namespace hs::cli
