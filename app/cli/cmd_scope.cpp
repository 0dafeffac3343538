// histoscope-cli scope: the waveform, RGB parade or vectorscope of a photo or a frame (of a
// region), as JSON or CSV counts or as the picture a user sees (PNG).

#include <algorithm>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/core/scope_picture.hpp"
#include "histoscope/report/bench_report.hpp"
#include "input.hpp"
#include "json.hpp"
#include "planes.hpp"
#include "request_options.hpp"
#include "scope_options.hpp"

namespace hs::cli {

namespace {

Json scope_json(const ScopeSpec& spec, int width) {
    Json j = Json::object();
    j["kind"] = std::string(scope_kind_name(spec.kind));
    if (spec.kind == ScopeKind::Vectorscope) {
        j["matrix"] = std::string(matrix_name(spec.matrix));
        j["size"] = spec.size;
        return j;
    }
    if (spec.kind == ScopeKind::Waveform) j["channel"] = std::string(channel_name(spec.channel));
    j["levels"] = spec.levels;
    j["columns"] = spec.output_columns(width);
    return j;
}

Json plane_json(const ScopePlane& p) {
    Json j = Json::object();
    j["name"] = p.name;
    j["width"] = p.width;
    j["height"] = p.height;
    std::uint64_t total = 0;
    Json columns = Json::array();
    for (int x = 0; x < p.width; ++x) {
        Json column = Json::array();
        for (int y = 0; y < p.height; ++y) {
            column.push_back(p.at(x, y));
            total += p.at(x, y);
        }
        columns.push_back(std::move(column));
    }
    j["total"] = total;
    j["counts"] = std::move(columns);
    return j;
}

}  // namespace

int run_scope(const Context& ctx, const ScopeCommand& cmd) {
    refuse_output_onto_input(cmd.input, cmd.output.path);
    const std::string& path = cmd.output.path;
    // (-o's extension named the format already, or contradicted --format: command_line.cpp.)
    const std::string& format = cmd.output.format.value;
    if (format == "png") {
        if (path.empty() || path == "-")
            throw UsageError("--format png writes a picture: name it with -o FILE.png");
        media::check_image_output(path, {".png"});
    }
    const ScopeKind kind = cmd.kind;

    // A camera raw file's demosaiced image: the scopes read R, G, B. A video's coded plane
    // (--channel y, cb or cr) is a one-channel image of its own size, whose waveform is drawn
    // as a gray image's, as hist counts it.
    const int plane = cmd.channel && is_plane_name(*cmd.channel)
                          ? static_cast<int>(std::find(std::begin(kPlaneNames),
                                                       std::end(kPlaneNames), *cmd.channel) -
                                             std::begin(kPlaneNames))
                          : -1;
    if (plane >= 0 && kind != ScopeKind::Waveform)
        throw UsageError("--channel applies to waveforms, not to a " +
                         std::string(scope_kind_name(kind)));
    InputWants wants;
    wants.camera_raw = media::CameraRawView::Rgb;
    wants.cfa = false;
    wants.planes = plane >= 0;
    wants.rgb = plane < 0;
    const Input in = load_input(cmd.input, cmd.frame, false, wants);
    const ImageView image =
        plane >= 0 ? plane_views({in.planes[0].view(), in.planes[1].view(), in.planes[2].view()},
                                 *in.coding, cmd.roi)[static_cast<std::size_t>(plane)]
                   : apply_region(cmd.roi, in.image.view());
    const ScopeRequest request{
        image, scope_spec(cmd.scope, kind, image,
                          {plane >= 0 ? std::nullopt : cmd.channel, "--channel", true})};
    request.spec.validate(image);
    ScopeEngine& engine = choose_scope_engine(ctx.registry, cmd.kernel, request);
    // Notes once the request stands: a usage error is the only line of a command refused.
    for (const auto& n : in.notes) diagnose("note", n);
    ScopeResult result = engine.compute(request);
    if (plane >= 0)
        for (ScopePlane& p : result.planes) p.name = kPlaneNames[plane];

    if (format == "png") {
        media::write_image(path, scope_picture(result.planes, request.spec).view());
        return 0;
    }
    std::string out;
    if (format == "json") {
        Json j = input_json(in.name, in.kind, in.format, in.shape.shape());
        if (in.kind == "video" || in.kind == "raw") j["frame"] = in.frame;
        j["image_channels"] = in.shape.channels;
        j["corrupt"] = in.corrupt;
        j["region"] = region_json(cmd.roi);
        j["scope"] = scope_json(request.spec, image.width);
        if (plane >= 0) j["scope"]["channel"] = kPlaneNames[plane];
        j["kernel"] = std::string(engine.name());
        j["timing_ms"] = timing_json(result.stages, result.total_ms);
        Json planes = Json::array();
        for (const ScopePlane& p : result.planes) planes.push_back(plane_json(p));
        j["planes"] = std::move(planes);
        j["notes"] = in.notes;
        out = to_text(j);
    } else {
        // One line per column of each plane: the plane, the column, then its counts upwards.
        std::ostringstream os;
        const ScopePlane& first = result.planes.front();
        os << "plane," << (kind == ScopeKind::Vectorscope ? "cb_bin" : "column");
        for (int y = 0; y < first.height; ++y)
            os << (kind == ScopeKind::Vectorscope ? ",cr_" : ",level_") << y;
        os << "\n";
        for (const ScopePlane& p : result.planes)
            for (int x = 0; x < p.width; ++x) {
                os << report::csv_field(p.name) << ',' << x;
                for (int y = 0; y < p.height; ++y) os << ',' << p.at(x, y);
                os << "\n";
            }
        out = os.str();
    }
    write_output(path, out);
    return 0;
}

}  // namespace hs::cli
