#include "input.hpp"

#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"

namespace hs::cli {

Input load_input(const Args& args) {
    const auto& pos = args.positional();
    if (pos.size() > 1) throw UsageError("expected one input, got " + std::to_string(pos.size()));
    const std::int64_t frame = args.integer("--frame", 0, std::int64_t{1} << 40).value_or(0);

    Input in;
    in.frame = frame;
    if (const auto raw = args.value("--raw")) {
        const media::RawFormat format = media::parse_raw_format(*raw);
        in.name = pos.empty() ? "-" : pos.front();
        media::RawFrames frames = media::read_raw(in.name, format);
        in.kind = "raw";
        in.format = media::to_string(format);
        in.frames = static_cast<std::int64_t>(frames.frames.size());
        if (frame >= in.frames)
            throw UsageError("--frame " + std::to_string(frame) + " is past the last frame (" +
                             std::to_string(in.frames) + " frames)");
        in.image = std::move(frames.frames[static_cast<std::size_t>(frame)]);
        return in;
    }
    if (pos.empty())
        throw UsageError("no input file (give a path, or --raw WxHxC:u8|u16 [FILE|-])");
    in.name = pos.front();
    if (media::probe(in.name) == media::MediaKind::Image) {
        if (frame != 0) throw UsageError("--frame applies to video and raw input, not to photos");
        media::LoadedImage loaded = media::read_image(in.name);
        in.kind = "image";
        in.format = loaded.format;
        in.image = std::move(loaded.image);
        in.notes = std::move(loaded.notes);
        return in;
    }
    media::VideoReader video(in.name);
    in.kind = "video";
    in.format = video.codec();
    in.frames = video.frame_count();
    in.fps = video.fps();
    if (frame != 0) video.seek(frame);
    auto image = video.read();
    if (!image)
        throw InputError("'" + in.name + "' has no frame " + std::to_string(frame) +
                         " (the video ended)");
    in.image = std::move(*image);
    return in;
}

}  // namespace hs::cli
