#include "frames.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
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

bool input_is_video(const Args& args) {
    if (args.has("--raw") || args.positional().size() != 1) return false;
    return media::probe(input_source(args.positional().front(), decode_options(args))) ==
           media::MediaKind::Video;
}

// --- FrameSource

FrameSource::FrameSource(const Args& args, int passes)
    : passes_(passes), options_(decode_options(args)) {
    if (passes < 1) throw UsageError("the input must be read at least once");
    const auto& pos = args.positional();
    if (pos.size() > 1) throw UsageError("expected one input, got " + std::to_string(pos.size()));
    if (const auto raw = args.value("--raw")) {
        const media::RawFormat f = media::parse_raw_format(*raw);
        name_ = pos.empty() ? "-" : pos.front();
        kind_ = "raw";
        codec_ = media::to_string(f);
        raw_format_ = *raw;
        format_ = f;
        const std::size_t frame = f.frame_bytes();
        if (name_ == "-") {
            if (passes > 1) throw UsageError("standard input cannot be read more than once");
        } else {
            // Before the stream engine allocates its buffers for frames of this size: an input
            // that cannot hold one is refused first.
            std::error_code ec;
            const auto size = std::filesystem::file_size(name_, ec);
            if (!ec && size < frame)
                throw InputError("raw input '" + name_ + "' " +
                                 (size == 0 ? std::string("is empty")
                                            : "has " + std::to_string(size) +
                                                  " bytes, shorter than one " + codec_ +
                                                  " frame (" + std::to_string(frame) + " bytes)"));
            if (!ec && frame > 0) reported_ = static_cast<std::int64_t>((size + frame - 1) / frame);
        }
    } else {
        if (pos.empty())
            throw UsageError("no input file (give a video, or --raw WxHxC:u8|u16 [FILE|-])");
        name_ = pos.front();
        const media::Source& source = input_source(name_, options_);
        if (media::probe(source) != media::MediaKind::Video)
            throw UsageError(source.name() + " is not a video (give a video, or --raw FMT FILE)");
        kind_ = "video";
    }
    if (!start_pass()) throw InputError("'" + name_ + "' holds no frame");
    if (kind_ == "raw" && name_ == "-") read_first_frame();
}

bool FrameSource::ready() const {
    return raw_ == nullptr || have_first_ || raw_->ready();
}

void FrameSource::read_first_frame() {
    // Standard input's size is unknown: its first frame is read before the stream engine
    // allocates buffers for frames of the declared size, into memory that grows as the data
    // arrives, so that a huge declared frame on an empty or short input costs nothing.
    const std::size_t frame = format_.frame_bytes();
    constexpr std::size_t kChunk = std::size_t{1} << 20;
    while (first_.size() < frame) {
        const std::size_t at = first_.size();
        const std::size_t want = std::min(kChunk, frame - at);
        first_.resize(at + want);
        const std::size_t got = raw_->read_some(first_.data() + at, want);
        first_.resize(at + got);
        if (got < want) break;
    }
    if (first_.size() < frame)
        throw InputError("raw input on standard input " +
                         (first_.empty() ? std::string("is empty")
                                         : "ends after " + std::to_string(first_.size()) +
                                               " bytes, inside its first " + codec_ + " frame (" +
                                               std::to_string(frame) + " bytes)"));
    have_first_ = true;
}

FrameSource::~FrameSource() = default;

bool FrameSource::start_pass() {
    if (pass_ >= passes_) return false;
    ++pass_;
    in_pass_ = 0;
    ended_in_pass_ = false;
    if (kind_ == "raw") {
        if (raw_ == nullptr)
            raw_ = std::make_unique<media::RawStreamReader>(name_,
                                                            media::parse_raw_format(raw_format_));
        else if (!raw_->rewind())
            throw InputError("cannot read " + name_ + " again from the start");
        return true;
    }
    video_.reset();  // a fresh decoder per pass: seeking a damaged file is not reliable
    video_ = std::make_unique<media::VideoReader>(input_source(name_, options_), options_);
    if (pass_ == 1) {
        codec_ = video_->codec();
        fps_ = video_->fps();
        reported_ = video_->frame_count();
        counted_ = video_->frames_counted();
        coding_ = video_->coding();
        format_ = video_->frame_format();
        if (const std::string cut = video_->missing_frames(); !cut.empty())
            notes_.push_back(cut + " (it is cut short or damaged)");
    }
    video_->set_rgb(want_rgb_);
    video_->set_planes(want_planes_);
    return true;
}

void FrameSource::want(bool rgb, bool planes) {
    if (planes && kind_ != "video")
        throw UsageError("the channels y, cb, cr are the Y'CbCr planes of a video; '" + name_ +
                         "' is raw frames");
    if (planes) check_planes(name_ == "-" ? "standard input" : "'" + name_ + "'", coding_);
    want_rgb_ = rgb || kind_ != "video";
    want_planes_ = planes;
    if (video_) {
        video_->set_rgb(want_rgb_);
        video_->set_planes(want_planes_);
    }
}

media::VideoPlanes FrameSource::planes() const {
    if (!video_) throw std::logic_error("FrameSource: planes of raw frames");
    return video_->planes();
}

void FrameSource::finish_pass() {
    // A decoder that stops early (or skips damaged frames without saying so) delivers fewer
    // frames than the container reports: those are failed frames too.
    if (kind_ == "video" && reported_ > in_pass_) {
        const std::int64_t missing = reported_ - in_pass_;
        failed_ += missing;
        notes_.push_back(std::to_string(missing) + " of the " + std::to_string(reported_) +
                         " frames the video reports were never delivered by the decoder" +
                         (passes_ > 1 ? " (pass " + std::to_string(pass_) + ")" : ""));
    }
}

FrameSource::Status FrameSource::read_into(std::byte* dst, std::string& why) {
    why.clear();
    for (;;) {
        if (finished_) return Status::End;
        if (ended_in_pass_) {
            finish_pass();
            if (!start_pass()) {
                finished_ = true;
                return Status::End;
            }
        }
        const auto t0 = Clock::now();
        Status status = Status::End;
        if (kind_ == "raw") {
            const std::size_t want = format_.frame_bytes();
            std::size_t got = 0;
            std::string bad_samples;
            try {
                if (have_first_) {
                    std::memcpy(dst, first_.data(), want);
                    have_first_ = false;
                    std::vector<std::byte>().swap(first_);
                    got = want;
                    media::raw_to_host_samples(dst, want, format_);
                } else {
                    got = raw_->read_into(dst);
                }
            } catch (const InputError& e) {  // samples above the declared depth
                bad_samples = e.what();
            }
            if (!bad_samples.empty()) {
                status = Status::Failed;
                why = "frame " + std::to_string(position_) + ": " + bad_samples;
            } else if (got == want) {
                status = Status::Ok;
            } else if (got > 0) {
                status = Status::Failed;
                why = "frame " + std::to_string(position_) +
                      " is truncated: the stream ends after " + std::to_string(got) + " of its " +
                      std::to_string(want) + " bytes";
            }
        } else {
            // Converted straight into the stream's buffer (nothing when only planes are read).
            switch (video_->read_frame_into(dst)) {
                case media::VideoReader::FrameStatus::Ok:
                    status = Status::Ok;
                    if (video_->corrupt()) why = video_->failure();
                    break;
                case media::VideoReader::FrameStatus::Failed:
                    status = Status::Failed;
                    why = video_->failure();
                    break;
                case media::VideoReader::FrameStatus::End:
                    break;
            }
        }
        decode_ms_ += ms_since(t0);
        if (status == Status::End) {
            ended_in_pass_ = true;
            continue;
        }
        ++position_;
        ++in_pass_;
        if (status == Status::Ok)
            ++decoded_;
        else
            ++failed_;
        return status;
    }
}

Json source_json(const FrameSource& source) {
    const FrameFormat& f = source.format();
    Json j = input_json(source.name(), source.kind(), source.codec(), f.shape());
    j["image_channels"] = f.channels;
    if (source.fps() > 0) j["fps"] = source.fps();
    j["frames_reported"] = source.reported_frames();
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

PumpStats pump_without_stream(FrameSource& source, const StreamEvents& events, std::int64_t limit) {
    PumpStats stats;
    const std::int64_t total =
        limit > 0 ? limit : source.reported_frames() * static_cast<std::int64_t>(source.passes());
    Progress progress(total);
    const auto start = Clock::now();
    std::string why;
    for (;;) {
        if (limit > 0 && source.position() >= limit) break;
        const std::int64_t frame = source.position();
        const FrameSource::Status status = source.read_into(nullptr, why);
        if (status == FrameSource::Status::End) break;
        if (status == FrameSource::Status::Failed) {
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

PumpStats pump(FrameSource& source, FrameStream* stream_or_none, const StreamEvents& events,
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
        const FrameSource::Status status = source.read_into(dst, why);
        if (status == FrameSource::Status::End) break;
        if (status == FrameSource::Status::Failed) {
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
    // Failures reported in place, and frames the container reported that the decoder never
    // delivered.
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
