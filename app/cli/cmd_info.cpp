#include <sstream>

#include "camera_raw.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "input.hpp"
#include "json.hpp"
#include "planes.hpp"

namespace hs::cli {

int run_info(const Context&, const InfoCommand& cmd) {
    refuse_output_onto_input(cmd.input, cmd.output.path);
    const std::string& format = cmd.output.format.value;
    // A video's first frame that decodes is decoded (the damaged ones before it are noted: the
    // file is still described) but not converted to R, G, B, which a matrix without a
    // conversion (YCgCo) would refuse.
    InputWants wants;
    wants.rgb = false;
    wants.first_good = true;
    const Input in = load_input(cmd.input, 0, true, wants);
    const ImageView v = in.shape.shape();

    std::string out;
    if (format == "json") {
        Json j = input_json(in.name, in.kind, in.format, v);
        j["channels"] = v.channels;
        j["frames"] = in.frames;
        if (in.kind == "raw") j["extra_bytes"] = in.extra_bytes;
        if (in.kind == "video") {
            j["frames_counted"] = in.frames_counted;
            j["frames_in_file"] = in.frames_in_file;
            j["fps"] = in.fps;
            j["fps_nominal"] = in.fps_nominal;
            add_coding_json(j, *in.coding);
        }
        if (in.camera_raw) j["camera_raw"] = camera_raw_json(*in.camera_raw, in.camera_view);
        j["corrupt"] = in.corrupt;
        j["notes"] = in.notes;
        out = to_text(j);
    } else {
        std::ostringstream os;
        os << in.name << ": " << in.kind << " (" << in.format << ")\n"
           << "  size:     " << v.width << "x" << v.height << "\n"
           << "  depth:    " << v.bit_depth << "-bit (" << to_string(v.type) << " samples)\n"
           << "  channels: " << v.channels
           << (in.cfa() ? " (r, g1, g2, b: the CFA mosaic's 2x2 quads)" : "") << "\n"
           << "  frames:   " << in.frames
           << (in.frames_counted ? " (counted: the container stores no count)" : "");
        if (in.extra_bytes > 0)
            os << " whole, then " << in.extra_bytes << " bytes of a truncated frame " << in.frames;
        os << "\n";
        if (in.kind == "video") {
            const media::VideoCoding& c = *in.coding;
            os << "  in file:  " << in.frames_in_file << "\n"
               << "  fps:      " << in.fps << (in.fps_nominal ? " (nominal)" : " (average)") << "\n"
               << "  coded:    " << c.bit_depth << "-bit " << c.pixel_format;
            if (c.family == "ycbcr") os << " (Y'CbCr " << c.chroma << ")";
            if (c.family == "rgb") os << " (R'G'B')";
            if (c.family == "gray") os << " (gray)";
            if (c.alpha) os << (c.alpha_read ? ", with alpha" : ", alpha not read");
            os << "\n";
            if (!c.matrix.empty())
                os << "  matrix:   " << c.matrix
                   << (c.matrix_assumed ? " (assumed: the stream does not say)" : "") << "\n";
            os << "  range:    " << c.range_name()
               << (c.range_assumed ? " (assumed: the stream does not say)" : "") << "\n"
               << "  rgb:      "
               << (c.rgb_conversion() == "opencv"
                       ? "as OpenCV converts 8-bit video (swscale, Rec.601 whatever the matrix, "
                         "bicubic chroma)"
                   : c.rgb_conversion() == "exact"
                       ? "exact integer conversion by the matrix and range above"
                       : "as coded")
               << "\n"
               << "  transfer: " << c.transfer << "\n"
               << "  primaries: " << c.primaries << "\n";
        }
        if (in.camera_raw) os << camera_raw_text(*in.camera_raw, in.camera_view);
        for (const auto& n : in.notes) os << "  note:     " << n << "\n";
        out = os.str();
    }
    write_output(cmd.output.path, out);
    return 0;
}

}  // namespace hs::cli
