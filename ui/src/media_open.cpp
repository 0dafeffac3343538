#include "media_open.hpp"

#include <QObject>
#include <utility>

#include "histoscope/core/error.hpp"
#include "histoscope/media/media.hpp"
#include "histoscope/ui/photo_reader.hpp"

namespace hs::ui {

namespace {

void open_raw(OpenedMedia& opened, const std::string& file, const QString& raw_format, double fps) {
    const hs::media::RawFormat format = hs::media::parse_raw_format(raw_format.toStdString());
    opened.info.format = QStringLiteral("Raw");
    opened.info.raw_format = QString::fromStdString(hs::media::to_string(format));
    if (file == "-") {
        // Live: frames are shown as they arrive, the first one too (nothing waits for it here).
        opened.frames = std::make_unique<hs::media::FrameSource>("-", format, fps);
        opened.info.video = true;
        opened.info.live = true;
        opened.info.frames = 0;
        opened.info.fps = fps;
        opened.info.width = format.width;
        opened.info.height = format.height;
        opened.info.channels = format.channels;
        opened.info.bit_depth = format.bit_depth;
        return;
    }
    // The size is checked (at least one whole frame) before anything is allocated; a frame cut
    // short after the whole ones is said, and fails in its place when playback reaches it.
    hs::media::RawFrame first = hs::media::read_raw_frame(file, format, 0);
    if (const std::string note = hs::media::non_finite_note(first.image.view()); !note.empty())
        opened.info.notes << QString::fromStdString(note);
    opened.first = std::move(first.image);
    opened.info.frames = first.frames;
    if (!first.truncated.empty()) opened.info.notes << QString::fromStdString(first.truncated);
    if (first.frames > 1) {
        opened.frames =
            std::make_unique<hs::media::FrameSource>(file, format, fps > 0.0 ? fps : kRawFps);
        opened.frames->seek(1);  // the first frame is shown already
        // The stream's frames, the cut one among them (as a video's declared frames are), so
        // that the slider and playback agree.
        opened.info.frames = opened.frames->frame_count();
        opened.info.video = true;
        opened.info.fps = opened.frames->fps();
    }
}

void open_video(OpenedMedia& opened, const hs::media::Source& source) {
    auto video = std::make_unique<hs::media::VideoReader>(source);
    // A limited range's Y' below black and above white are counted from the coded plane of
    // each frame (its R', G', B' clamp them): the planes are kept.
    const bool excursions = video->coding().limited_luma();
    if (excursions) video->set_planes(true);
    // A clip whose first frames are damaged opens at the first that decodes, under its own
    // number (the reader numbers frames from the container, not by what decoded): the failed
    // ones are said as playback says them, and noted.
    if (video->read_first_good(opened.first, opened.failed_before) !=
        hs::media::VideoReader::FrameStatus::Ok) {
        if (!opened.failed_before.empty()) throw hs::InputError(video->failure());
        throw hs::InputError(source.name() + ": the video has no frame");
    }
    if (excursions)
        opened.first_excursions =
            hs::media::luma_excursions(video->planes().y, video->coding().bit_depth);
    opened.first_index = video->position() - 1;
    if (!opened.failed_before.empty())
        opened.info.notes << (opened.first_index == 1
                                  ? QObject::tr("Frame 0 cannot be read: showing frame 1")
                                  : QObject::tr("Frames 0 to %1 cannot be read: showing frame %2")
                                        .arg(opened.first_index - 1)
                                        .arg(opened.first_index));
    opened.info.video = true;
    opened.info.format = QString::fromStdString(video->codec());
    opened.info.frames = video->frame_count();
    opened.info.fps = video->fps();
    const hs::media::VideoCoding& c = video->coding();
    // What the stream says, what was assumed, and (for 8-bit video, converted as OpenCV does)
    // that R, G, B do not follow a matrix other than Rec.601.
    const bool rec601 = c.matrix == "smpte170m" || c.matrix == "bt470bg";
    opened.info.coding = QString::fromStdString(
        c.pixel_format +
        (c.matrix.empty() ? std::string()
                          : ", " + c.matrix + (c.matrix_assumed ? " assumed" : "")) +
        ", " + c.range_name() + " range" + (c.range_assumed ? " assumed" : "") +
        (c.transfer == "smpte2084"      ? ", PQ"
         : c.transfer == "arib-std-b67" ? ", HLG"
                                        : "") +
        (c.rgb_conversion() == "opencv" && !rec601 ? "; RGB by Rec.601 as OpenCV" : ""));
    if (const std::string missing = video->missing_frames(); !missing.empty())
        opened.info.notes << QString::fromStdString(missing + " (it is cut short or damaged)");
    opened.frames = std::make_unique<hs::media::FrameSource>(std::move(video));
}

void open_camera_raw(OpenedMedia& opened, const hs::media::Source& source,
                     hs::media::CameraRawView view) {
    hs::media::CameraRawReader reader(source);
    auto info = std::make_shared<const hs::media::CameraRawInfo>(reader.info());
    const bool no_mosaic = view == hs::media::CameraRawView::Cfa && !info->mosaic_problem.empty();
    if (no_mosaic) view = hs::media::CameraRawView::Rgb;
    // Only the notes of the view shown: the mosaic's say nothing of the demosaiced image.
    for (const auto& note : reader.notes(view)) opened.info.notes << QString::fromStdString(note);
    if (no_mosaic)
        opened.info.notes << QObject::tr("No 2x2 Bayer mosaic (%1): showing the demosaiced image")
                                 .arg(QString::fromStdString(info->mosaic_problem));
    opened.first = reader.view(view);
    MediaInfo& m = opened.info;
    m.format = QString::fromStdString(info->format);
    m.camera_raw_view = QString::fromUtf8(hs::media::to_string(view));
    m.camera = QString::fromStdString(info->make + " " + info->model);
    m.shot = QString::fromStdString(hs::media::shot_text(*info));
    m.cfa_pattern = QString::fromStdString(info->cfa_pattern);
    m.mosaic_problem = QString::fromStdString(info->mosaic_problem);
    for (std::uint32_t b : info->black) m.black_levels.push_back(b);
    m.white_level = info->white;
    if (view == hs::media::CameraRawView::Cfa) opened.cfa = std::move(info);
}

}  // namespace

OpenedMedia open_media(const QString& path, const QString& raw_format, double fps,
                       hs::media::CameraRawView camera_raw_view) {
    const std::string file = path.toStdString();
    OpenedMedia opened;
    opened.info.path = path;
    if (!raw_format.isEmpty()) {
        open_raw(opened, file, raw_format, fps);
        if (opened.info.live) return opened;
    } else {
        // A pipe or FIFO is read once, here, then probed and decoded from its bytes.
        const hs::media::Source source(file);
        const hs::media::MediaKind kind = hs::media::probe(source);
        if (kind == hs::media::MediaKind::Video) {
            open_video(opened, source);
        } else if (kind == hs::media::MediaKind::CameraRaw) {
            open_camera_raw(opened, source, camera_raw_view);
        } else if (kind == hs::media::MediaKind::Raw) {
            throw hs::UsageError(
                QObject::tr("%1 holds raw frames, which carry no header: File > Open Raw... "
                            "reads them, with their format")
                    .arg(QString::fromStdString(source.name()))
                    .toStdString());
        } else {
            hs::media::LoadedImage loaded = read_photo(source);
            opened.info.format = QString::fromStdString(loaded.format);
            for (const auto& note : loaded.notes) opened.info.notes << QString::fromStdString(note);
            opened.first = std::move(loaded.image);
        }
    }
    opened.info.width = opened.first.width();
    opened.info.height = opened.first.height();
    opened.info.channels = opened.first.channels();
    opened.info.bit_depth = opened.first.bit_depth();
    opened.info.floating = hs::is_float(opened.first.type());
    return opened;
}

}  // namespace hs::ui
