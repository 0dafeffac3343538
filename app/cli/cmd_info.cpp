#include <sstream>

#include "args.hpp"
#include "commands.hpp"
#include "histoscope/core/error.hpp"
#include "input.hpp"
#include "json.hpp"

namespace hs::cli {

int run_info(const Context& ctx) {
    const Args args(ctx.args, {{"--raw", "--format", "-o", "--max-pixels"}, {"--allow-corrupt"}});
    refuse_output_onto_input(args);
    const std::string format = args.value("--format").value_or("text");
    if (format != "text" && format != "json")
        throw UsageError("--format for info must be text or json, not '" + format + "'");
    const Input in = load_input(args, decode_options(args), true);
    const ImageView v = in.image.view();

    std::string out;
    if (format == "json") {
        Json j = Json::object();
        j.set("input", in.name);
        j.set("kind", in.kind);
        j.set("format", in.format);
        j.set("width", v.width);
        j.set("height", v.height);
        j.set("depth", v.bit_depth);
        j.set("sample_type", to_string(v.type));
        j.set("channels", v.channels);
        j.set("frames", in.frames);
        if (in.kind == "video") {
            j.set("frames_in_file", in.frames_in_file);
            j.set("fps", in.fps);
        }
        j.set("corrupt", in.corrupt);
        Json notes = Json::array();
        for (const auto& n : in.notes) notes.push(n);
        j.set("notes", std::move(notes));
        out = j.dump();
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
