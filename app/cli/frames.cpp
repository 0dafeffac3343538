#include "frames.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>

#include "histoscope/core/error.hpp"
#include "histoscope/core/timing.hpp"
#include "histoscope/media/media.hpp"
#include "input.hpp"
#include "planes.hpp"

namespace hs::cli {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

bool input_is_video(const InputOptions& input) {
    if (input.raw || input.files.size() != 1) return false;
    const media::DecodeOptions options = input.decode();
    return media::probe(input_source(input.files.front(), options), options) ==
           media::MediaKind::Video;
}

// --- StreamInput

StreamInput::StreamInput(const InputOptions& input, int passes)
    : options_(input.decode()), passes_(passes) {
    if (passes < 1) throw UsageError("the input must be read at least once");
    const auto& pos = input.files;
    if (pos.size() > 1) throw UsageError("expected one input, got " + std::to_string(pos.size()));
    if (input.raw) {
        raw_format_ = *input.raw;
        name_ = pos.empty() ? "-" : pos.front();
        kind_ = "raw";
        codec_ = media::to_string(raw_format_);
        if (passes > 1 && name_ == "-")
            throw UsageError("standard input cannot be read more than once");
        if (passes > 1 && media::is_stream_input(name_))
            throw InputError("cannot read " + name_ + " again from the start");
    } else {
        if (pos.empty())
            throw UsageError("no input file (give a video, or --raw WxHxC:u8|u16 [FILE|-])");
        name_ = pos.front();
        const media::Source& source = input_source(name_, options_);
        const media::MediaKind kind = media::probe(source, options_);
        if (kind == media::MediaKind::Raw) media::raw_format_needed(source.name());
        if (kind != media::MediaKind::Video)
            throw UsageError(source.name() + " is not a video (give a video, or --raw FMT FILE)");
        kind_ = "video";
    }
    start_pass();
    // Standard input's first frame is read before the stream engine allocates buffers for
    // frames of the declared size: an empty or short input is refused first.
    source_->read_ahead();
}

StreamInput::~StreamInput() = default;

bool StreamInput::start_pass() {
    if (pass_ >= passes_) return false;
    ++pass_;
    ended_in_pass_ = false;
    source_.reset();
    if (kind_ == "raw") {
        source_ = std::make_unique<media::FrameSource>(name_, raw_format_);
    } else {
        source_ = std::make_unique<media::FrameSource>(
            std::make_unique<media::VideoReader>(input_source(name_, options_), options_));
    }
    if (pass_ == 1) {
        format_ = source_->format();
        fps_ = source_->fps();
        reported_ = source_->frame_count();
        if (const media::VideoReader* video = source_->video()) {
            codec_ = video->codec();
            counted_ = video->frames_counted();
            coding_ = video->coding();
            if (const std::string cut = video->missing_frames(); !cut.empty())
                notes_.push_back(cut + " (it is cut short or damaged)");
        }
    }
    apply_wants();
    return true;
}

void StreamInput::apply_wants() {
    if (media::VideoReader* video = source_->video()) {
        video->set_rgb(want_rgb_);
        video->set_planes(want_planes_);
    }
}

void StreamInput::want(bool rgb, bool planes) {
    if (planes && kind_ != "video")
        throw UsageError("the channels y, cb, cr are the Y'CbCr planes of a video; '" + name_ +
                         "' is raw frames");
    if (planes) check_planes(name_ == "-" ? "standard input" : "'" + name_ + "'", coding_);
    want_rgb_ = rgb || kind_ != "video";
    want_planes_ = planes;
    apply_wants();
}

double StreamInput::frame_time(std::int64_t frame) const {
    const media::VideoReader* video = source_->video();
    return video != nullptr ? video->frame_time(frame) : -1.0;
}

media::VideoPlanes StreamInput::planes() const {
    const media::VideoReader* video = source_->video();
    if (video == nullptr) throw std::logic_error("StreamInput: planes of raw frames");
    return video->planes();
}

StreamInput::Status StreamInput::read_into(std::byte* dst, std::string& why) {
    why.clear();
    for (;;) {
        if (finished_) return Status::End;
        // A video's reader reports every frame its container declares, delivered or failed
        // in its place (the frames of a file cut short too), before its end.
        if (ended_in_pass_) {
            if (!start_pass()) {
                finished_ = true;
                return Status::End;
            }
        }
        const auto t0 = Clock::now();
        // Converted straight into the stream's buffer (nothing when only planes are read).
        const Status status = source_->read_into(dst);
        decode_ms_ += ms_since(t0);
        if (status == Status::End) {
            ended_in_pass_ = true;
            continue;
        }
        why = source_->failure();  // why it failed, or why it is corrupt (--allow-corrupt)
        ++position_;
        if (status == Status::Ok)
            ++decoded_;
        else
            ++failed_;
        return status;
    }
}

Json source_json(const StreamInput& source) {
    const FrameFormat& f = source.format();
    Json j = input_json(source.name(), source.kind(), source.codec(), f.shape());
    j["image_channels"] = f.channels;
    if (source.fps() > 0) j["fps"] = source.fps();
    // Live input (a pipe of raw frames) reports none in advance: null, not 0.
    j["frames_reported"] = source.reported_frames() > 0 ? Json(source.reported_frames()) : Json();
    if (const media::VideoCoding* c = source.coding()) {
        j["frames_counted"] = source.frames_counted();
        add_coding_json(j, *c);
    }
    return j;
}

// --- Progress

Progress::Progress(std::int64_t total)
    : enabled_(isatty(STDERR_FILENO) != 0), total_(total), start_(Clock::now()), last_() {}

Progress::~Progress() {
    finish();
}

void Progress::update(std::int64_t done, std::int64_t failed) {
    if (!enabled_ || finished_) return;
    if (ms_since(last_) < 100.0) return;
    last_ = Clock::now();
    const double fps = static_cast<double>(done) / std::max(ms_since(start_) / 1e3, 1e-9);
    char line[160];
    if (total_ > 0) {
        const double part = std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
        const int filled = static_cast<int>(part * 30.0);
        std::snprintf(line, sizeof line, "\r[%-30s] %lld/%lld frames, %.1f fps%s",
                      std::string(static_cast<std::size_t>(filled), '#').c_str(),
                      static_cast<long long>(done), static_cast<long long>(total_), fps,
                      failed > 0 ? (", " + std::to_string(failed) + " failed").c_str() : "");
    } else {
        std::snprintf(line, sizeof line, "\r%lld frames, %.1f fps", static_cast<long long>(done),
                      fps);
    }
    std::cerr << line << std::flush;
}

void Progress::finish() {
    if (!enabled_ || finished_) return;
    finished_ = true;
    std::cerr << "\r\033[K" << std::flush;
}

// --- pump

namespace {

PumpStats pump_without_stream(StreamInput& source, const StreamEvents& events, std::int64_t limit) {
    PumpStats stats;
    const std::int64_t total =
        limit > 0 ? limit : source.reported_frames() * static_cast<std::int64_t>(source.passes());
    Progress progress(total);
    const auto start = Clock::now();
    std::string why;
    for (;;) {
        if (limit > 0 && source.position() >= limit) break;
        const std::int64_t frame = source.position();
        const StreamInput::Status status = source.read_into(nullptr, why);
        if (status == StreamInput::Status::End) break;
        if (status == StreamInput::Status::Failed) {
            if (events.failed) events.failed(frame, why);
        } else {
            if (events.read) events.read(frame);
            FrameResult none;
            if (events.result) events.result(frame, why, none);
            if (!why.empty()) ++stats.corrupt;
            ++stats.ok;
        }
        progress.update(source.position(), source.failed());
    }
    progress.finish();
    stats.failed = source.failed();
    stats.frames = stats.ok + stats.failed;
    stats.wall_ms = ms_since(start);
    return stats;
}

}  // namespace

PumpStats pump(StreamInput& source, FrameStream* stream_or_none, const StreamEvents& events,
               std::int64_t limit) {
    if (stream_or_none == nullptr) return pump_without_stream(source, events, limit);
    FrameStream& stream = *stream_or_none;
    struct Pending {
        std::int64_t frame;
        bool failed;
        std::string why;  // why it failed, or why it is corrupt
    };
    std::deque<Pending> pending;  // in frame order: submitted frames and failures
    PumpStats stats;
    const std::int64_t total =
        limit > 0 ? limit : source.reported_frames() * static_cast<std::int64_t>(source.passes());
    Progress progress(total);
    const auto start = Clock::now();

    // Everything before the oldest submitted frame that is not a result yet: failures.
    const auto flush_failures = [&] {
        while (!pending.empty() && pending.front().failed) {
            if (events.failed) events.failed(pending.front().frame, pending.front().why);
            pending.pop_front();
        }
    };
    const auto deliver = [&](FrameResult& r) {
        flush_failures();
        if (pending.empty()) throw std::logic_error("frame stream: a result nobody waits for");
        const std::int64_t frame = pending.front().frame;
        const std::string why = std::move(pending.front().why);
        if (events.result) events.result(frame, why, r);
        pending.pop_front();
        if (!why.empty()) ++stats.corrupt;
        ++stats.ok;
        flush_failures();
        progress.update(source.position(), source.failed());
    };

    std::string why;
    for (;;) {
        if (limit > 0 && source.position() >= limit) break;
        // Live input that has nothing waiting: the frames in flight are finished and written
        // before the read waits for the writer, so output follows input.
        if (!source.ready())
            while (auto r = stream.wait()) deliver(*r);
        std::byte* dst = stream.next_input();
        const std::int64_t frame = source.position();
        const StreamInput::Status status = source.read_into(dst, why);
        if (status == StreamInput::Status::End) break;
        if (status == StreamInput::Status::Failed) {
            pending.push_back({frame, true, why});
            if (stream.in_flight() == 0) flush_failures();
            continue;
        }
        if (events.read) events.read(frame);
        pending.push_back({frame, false, why});
        stream.submit();
        while (auto r = stream.poll()) deliver(*r);
    }
    while (auto r = stream.wait()) deliver(*r);
    flush_failures();
    progress.finish();
    // Every failure is reported in its place.
    stats.failed = source.failed();
    stats.frames = stats.ok + stats.failed;
    stats.wall_ms = ms_since(start);
    return stats;
}

// --- memory

std::uint64_t host_resident_bytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t size = 0, resident = 0;
    if (!(statm >> size >> resident)) return 0;
    const long page = sysconf(_SC_PAGESIZE);
    return resident * static_cast<std::uint64_t>(page > 0 ? page : 4096);
}

}  // namespace hs::cli
