#include "camera_raw.hpp"

#include <cmath>
#include <cstdint>
#include <sstream>

namespace hs::cli {

namespace {

// A value the file may not record (0): null in JSON. A whole number is a JSON integer (ISO 100,
// 1 s, f/8, 50 mm), which a double would print as 100.0.
Json recorded(double v) {
    if (!(v > 0.0)) return Json();
    if (v == std::floor(v) && v < 9.0e15) return Json(static_cast<std::int64_t>(v));
    return Json(v);
}

}  // namespace

Json camera_raw_json(const media::CameraRawInfo& info, media::CameraRawView view) {
    Json j = Json::object();
    j["view"] = std::string(media::to_string(view));
    j["make"] = info.make;
    j["model"] = info.model;
    j["iso"] = recorded(info.iso);
    j["exposure_s"] = recorded(info.exposure_s);
    j["exposure"] = info.exposure_s > 0.0 ? Json(media::exposure_text(info.exposure_s)) : Json();
    j["aperture"] = recorded(info.aperture);
    j["focal_length_mm"] = recorded(info.focal_length_mm);
    j["date"] = info.date.empty() ? Json() : Json(info.date);
    j["raw_size"] = Json::array({info.raw_width, info.raw_height});
    const Region& v = info.visible;
    j["visible"] = Json::array({v.x, v.y, v.width, v.height});
    j["demosaiced_size"] = Json::array({info.demosaiced_width, info.demosaiced_height});
    j["cfa_pattern"] = info.cfa_pattern.empty() ? Json() : Json(info.cfa_pattern);
    j["mosaic_problem"] = info.mosaic_problem.empty() ? Json() : Json(info.mosaic_problem);
    j["sensor_depth"] = info.sensor_depth;
    Json black = Json::object();
    for (int i = 0; i < 4; ++i) black[media::kCfaColours[i].name] = info.black[i];
    j["black_levels"] = std::move(black);
    j["white_level"] = info.white;
    j["quads"] = Json::array({v.width / 2, v.height / 2});
    j["photosites_left_out"] = info.left_out;
    return j;
}

std::string camera_raw_text(const media::CameraRawInfo& info, media::CameraRawView view) {
    std::ostringstream os;
    os << "  camera:   " << info.make << " " << info.model << "\n";
    const std::string shot = media::shot_text(info);
    os << "  shot:     " << (shot.empty() ? "not recorded" : shot) << "\n";
    const Region& v = info.visible;
    os << "  sensor:   " << v.width << "x" << v.height << " photosites visible at " << v.x << ","
       << v.y << " of " << info.raw_width << "x" << info.raw_height << ", "
       << (info.cfa_pattern.empty() ? "no 2x2 Bayer mosaic (" + info.mosaic_problem + ")"
                                    : "CFA " + info.cfa_pattern)
       << ", " << info.sensor_depth << "-bit\n";
    os << "  levels:   black";
    for (int i = 0; i < 4; ++i)
        os << (i ? ", " : " ") << media::kCfaColours[i].name << " " << info.black[i];
    os << "; white " << info.white << "\n";
    if (!info.cfa_pattern.empty())
        os << "  mosaic:   " << v.width / 2 << "x" << v.height / 2 << " quads (r, g1, g2, b), "
           << info.left_out << " photosites left out"
           << (view == media::CameraRawView::Cfa ? " (this view)" : "") << "\n";
    os << "  demosaiced: " << info.demosaiced_width << "x" << info.demosaiced_height
       << " linear 16-bit RGB (sRGB primaries, as-shot white balance)"
       << (view == media::CameraRawView::Rgb ? " (this view)" : "") << "\n";
    return os.str();
}

CfaLevels cfa_levels(const media::CameraRawInfo& info, const ImageView& view, Channel channel) {
    CfaLevels out;
    const int i = media::cfa_index(channel);
    out.name = media::kCfaColours[i].name;
    out.black = info.black[i];
    out.white = info.white;
    const std::int64_t codes = std::int64_t{1} << view.bit_depth;
    const auto values = reference_histogram(view, {channel},
                                            HistogramSpec::even(static_cast<int>(codes), 0, codes));
    out.counts = media::level_counts(values.front().counts, out.black, out.white);
    return out;
}

void add_cfa_levels_json(Json& entry, const CfaLevels& levels) {
    entry["black"] = levels.black;
    entry["white"] = levels.white;
    entry["at_or_below_black"] = levels.counts.at_or_below_black;
    entry["at_or_above_white"] = levels.counts.at_or_above_white;
}

std::string cfa_levels_text(const CfaLevels& levels) {
    return levels.name + ": black " + std::to_string(levels.black) + ", white " +
           std::to_string(levels.white) +
           ", at_or_below_black=" + std::to_string(levels.counts.at_or_below_black) +
           " at_or_above_white=" + std::to_string(levels.counts.at_or_above_white);
}

}  // namespace hs::cli
