#include <sstream>

#include "args.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "input.hpp"
#include "json.hpp"

namespace hs::cli {

int run_info(const Context& ctx) {
    const Args& args = ctx.args;
    refuse_output_onto_input(args);
    const std::string format = args.value("--format").value_or("text");
    const Input in = load_input(args, decode_options(args), true);
    const ImageView v = in.image.view();

    std::string out;
    if (format == "json") {
        Json j = input_json(in.name, in.kind, in.format, v);
        j["channels"] = v.channels;
        j["frames"] = in.frames;
        if (in.kind == "video") {
            j["frames_in_file"] = in.frames_in_file;
            j["fps"] = in.fps;
        }
        j["corrupt"] = in.corrupt;
        j["notes"] = in.notes;
        out = to_text(j);
    } else {
        std::ostringstream os;
        os << in.name << ": " << in.kind << " (" << in.format << ")\n"
           << "  size:     " << v.width << "x" << v.height << "\n"
           << "  depth:    " << v.bit_depth << "-bit (" << to_string(v.type) << " samples)\n"
           << "  channels: " << v.channels << "\n"
           << "  frames:   " << in.frames << "\n";
        if (in.kind == "video") os << "  in file:  " << in.frames_in_file << "\n";
        if (in.kind == "video") os << "  fps:      " << in.fps << "\n";
        for (const auto& n : in.notes) os << "  note:     " << n << "\n";
        out = os.str();
    }
    write_output(args.value("-o").value_or(""), out);
    return 0;
}

}  // namespace hs::cli
