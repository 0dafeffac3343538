#include "input.hpp"

#include <cstring>
#include <map>

#include "histoscope/core/error.hpp"
#include "planes.hpp"

namespace hs::cli {

const media::Source& input_source(const std::string& path, const media::DecodeOptions& options) {
    static std::map<std::string, media::Source> sources;
    const auto known = sources.find(path);
    if (known != sources.end()) return known->second;
    return sources.emplace(path, media::Source(path, options)).first->second;
}

namespace {

Image copy_of(const ImageView& v) {
    Image out(v.width, v.height, v.channels, v.type, v.bit_depth);
    for (int y = 0; y < v.height; ++y) std::memcpy(out.row(y), v.row(y), v.row_bytes());
    return out;
}

[[noreturn]] void no_planes(const std::string& name, const std::string& kind) {
    throw UsageError("the channels y, cb, cr are the Y'CbCr planes of a video; " + name + " is " +
                     (kind == "raw"          ? "raw frames"
                      : kind == "camera_raw" ? "a camera raw file"
                                             : "a photo"));
}

[[noreturn]] void not_camera_raw(const std::string& name) {
    throw UsageError("--camera-raw applies to camera raw files (DNG, CR2, NEF, ...); " + name +
                     " is not one");
}

// A camera raw file's view as the command and --camera-raw ask for it.
void load_camera_raw(Input& in, const InputOptions& input, const media::Source& source,
                     const InputWants& wants) {
    if (in.frame != 0)
        throw UsageError(std::string(wants.frame_option) +
                         " applies to video and raw input, not to camera raw files");
    if (wants.planes) no_planes(source.name(), "camera_raw");
    media::CameraRawReader reader(source, input.decode());
    const media::CameraRawInfo& info = reader.info();
    in.kind = "camera_raw";
    in.format = info.format;
    media::CameraRawView view = wants.camera_raw;
    if (input.camera_raw) {
        view = *input.camera_raw;
        if (view == media::CameraRawView::Cfa && !wants.cfa)
            throw UsageError(
                "this command works on a camera raw file's demosaiced image (--camera-raw rgb); "
                "its CFA mosaic is counted by info, hist and bench");
    } else if (view == media::CameraRawView::Cfa && !info.mosaic_problem.empty()) {
        view = media::CameraRawView::Rgb;
        in.notes.push_back(source.name() + " has no 2x2 Bayer mosaic (" + info.mosaic_problem +
                           "): its demosaiced image is read");
    }
    // Only the notes of the view read: the mosaic's say nothing of the demosaiced image.
    const std::vector<std::string> notes = reader.notes(view);
    in.notes.insert(in.notes.begin(), notes.begin(), notes.end());
    in.camera_raw = info;
    in.camera_view = view;
    if (view == media::CameraRawView::Cfa && !info.mosaic_problem.empty())
        static_cast<void>(reader.mosaic());  // says why there is none
    if (wants.rgb) {
        in.image = reader.view(view);
        in.shape = FrameFormat::of(in.image.view());
    } else if (view == media::CameraRawView::Cfa) {
        in.shape = {info.visible.width / 2, info.visible.height / 2, 4, SampleType::U16,
                    info.sensor_depth};
    } else {
        in.shape = {info.demosaiced_width, info.demosaiced_height, info.demosaiced_channels,
                    SampleType::U16, 16};
    }
    in.corrupt = reader.corrupt();
}

}  // namespace

Input load_input(const InputOptions& input, std::int64_t frame, bool count_frames_in_file,
                 const InputWants& wants) {
    const auto& pos = input.files;
    if (pos.size() > 1) throw UsageError("expected one input, got " + std::to_string(pos.size()));
    const media::DecodeOptions options = input.decode();

    Input in;
    in.frame = frame;
    if (input.raw) {
        if (input.camera_raw) not_camera_raw("raw frames (--raw)");
        const media::RawFormat& format = *input.raw;
        in.name = pos.empty() ? "-" : pos.front();
        // Only info counts a stream's frames; the others read it up to the frame they need.
        media::RawFrame read = media::read_raw_frame(
            in.name, format, frame,
            count_frames_in_file ? media::RawCount::All : media::RawCount::UpToFrame);
        if (wants.planes) no_planes("'" + in.name + "'", "raw");
        in.kind = "raw";
        in.format = media::to_string(format);
        in.frames = read.frames;
        in.extra_bytes = read.extra_bytes;
        if (!read.truncated.empty()) in.notes.push_back(read.truncated);
        if (std::string note = media::non_finite_note(read.image.view()); !note.empty())
            in.notes.push_back(std::move(note));
        in.image = std::move(read.image);
        in.shape = FrameFormat::of(in.image.view());
        return in;
    }
    if (pos.empty())
        throw UsageError("no input file (give a path, or --raw WxHxC:u8|u16 [FILE|-])");
    in.name = pos.front();
    const media::Source& source = input_source(in.name, options);
    const media::MediaKind kind = media::probe(source, options);
    if (kind == media::MediaKind::CameraRaw) {
        load_camera_raw(in, input, source, wants);
        return in;
    }
    if (input.camera_raw) not_camera_raw(source.name());
    if (kind == media::MediaKind::Raw) media::raw_format_needed(source.name(), wants.raw_option);
    if (kind == media::MediaKind::Image) {
        if (frame != 0)
            throw UsageError(std::string(wants.frame_option) +
                             " applies to video and raw input, not to photos");
        if (wants.planes) no_planes(source.name(), "image");
        media::LoadedImage loaded = media::read_image(source, options);
        in.kind = "image";
        in.format = loaded.format;
        in.image = std::move(loaded.image);
        in.shape = FrameFormat::of(in.image.view());
        in.notes = std::move(loaded.notes);
        in.corrupt = loaded.corrupt;
        return in;
    }
    media::VideoReader video(source, options);
    in.kind = "video";
    in.format = video.codec();
    in.frames = video.frame_count();
    in.fps = video.fps();
    in.fps_nominal = video.fps_nominal();
    in.coding = video.coding();
    in.frames_counted = video.frames_counted();
    if (count_frames_in_file) {
        in.frames_in_file = video.frames_in_file();
        // A count the container stores, against what the file holds (a counted one is what
        // the file holds, and only the declared duration can say that it is cut: below).
        if (in.frames_in_file != in.frames && !in.frames_counted)
            in.notes.push_back("the container reports " + std::to_string(in.frames) +
                               " frames but the file holds " + std::to_string(in.frames_in_file) +
                               " (it is cut short or damaged)");
    }
    if (const std::string cut = video.missing_frames(); !cut.empty())
        in.notes.push_back(cut + " (it is cut short or damaged)");
    if (wants.planes) {
        check_planes(source.name(), *in.coding);
        video.set_planes(true);
    }
    video.set_rgb(wants.rgb);
    if (frame != 0) video.seek(frame);
    Image image;
    std::vector<std::string> failed;
    const media::VideoReader::FrameStatus status = wants.first_good && frame == 0
                                                       ? video.read_first_good(image, failed)
                                                       : video.read_frame(image);
    switch (status) {
        case media::VideoReader::FrameStatus::Ok:
            break;
        case media::VideoReader::FrameStatus::End:
            if (!failed.empty()) throw InputError(video.failure());
            throw InputError(source.name() + " has no frame " + std::to_string(frame) +
                             " (the video ended)");
        case media::VideoReader::FrameStatus::Failed:
            throw InputError(video.failure());  // missing or corrupt
    }
    if (!failed.empty()) {
        in.frame = video.position() - 1;
        in.notes.push_back((failed.size() == 1 ? std::string("its first frame cannot be read (")
                                               : "its first " + std::to_string(failed.size()) +
                                                     " frames cannot be read (the first: ") +
                           failed.front() + "); frame " + std::to_string(in.frame) +
                           " is the first that decodes");
    }
    in.image = std::move(image);
    in.shape = wants.rgb ? FrameFormat::of(in.image.view()) : video.frame_format();
    if (wants.planes) {
        const media::VideoPlanes p = video.planes();
        for (const ImageView& v : {p.y, p.cb, p.cr}) in.planes.push_back(copy_of(v));
    }
    in.corrupt = video.corrupt();
    if (in.corrupt) in.notes.push_back(video.failure() + ": kept because of --allow-corrupt");
    return in;
}

Json input_json(const std::string& name, const std::string& kind, const std::string& format,
                const ImageView& shape) {
    Json j = Json::object();
    j["input"] = name;
    j["kind"] = kind;
    j["format"] = format;
    j["width"] = shape.width;
    j["height"] = shape.height;
    j["depth"] = shape.bit_depth;
    j["sample_type"] = to_string(shape.type);
    return j;
}

}  // namespace hs::cli
