#include "frame_reader.hpp"

#include <exception>
#include <new>
#include <utility>
#include <vector>

#include "histoscope/media/frame_source.hpp"

namespace hs::ui {

namespace {
// Frames a playing pipeline holds at once: the reader's queue and the one it reads, the frame
// stream's ring, the results the presenter holds, the one on screen, and one to spare.
constexpr int kFramesInUse = 3 + 1 + 3 + 3 + 1 + 1;
// Made ahead at most: 12 8K 16-bit frames (2.4 GB); larger frames are made when needed.
constexpr std::size_t kReserveBytes = std::size_t{3} << 30;

double ms_between(PlaybackClock::Clock::time_point a, PlaybackClock::Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}
}  // namespace

// Buffers of the frames' format, reused once no stage holds them: a frame handed out is a
// shared_ptr whose deleter gives its buffer back (while the pool lives, and while the buffer
// still fits what the pool makes). reserve() makes the buffers a pipeline holds at once before
// they are needed: allocating (pinning) a 4K or 8K frame takes milliseconds that a frame on
// the clock does not have.
class FramePool : public std::enable_shared_from_this<FramePool> {
  public:
    void setMemory(std::shared_ptr<hs::HostMemory> memory,
                   const std::optional<hs::FrameFormat>& format) {
        const std::lock_guard lock(mutex_);
        if (memory == memory_ && (!format || format == format_)) return;
        memory_ = std::move(memory);
        if (format) format_ = format;
        free_.clear();
        made_ = 0;
    }

    // Makes buffers until `count` of this memory and format exist, no more than `bytes` in all
    // (on the reader's thread).
    void reserve(int count, std::size_t bytes) {
        std::unique_lock lock(mutex_);
        if (format_)
            count =
                std::min<int>(count, static_cast<int>(std::min<std::size_t>(
                                         bytes / std::max<std::size_t>(format_->frame_bytes(), 1),
                                         static_cast<std::size_t>(count))));
        while (format_ && made_ < count) {
            const hs::FrameFormat format = *format_;
            const std::shared_ptr<hs::HostMemory> memory = memory_;
            ++made_;
            lock.unlock();
            hs::Image image(format, memory, false);
            lock.lock();
            if (format_ == format && memory_ == memory) free_.push_back(std::move(image));
        }
    }

    std::size_t frameBytes() {
        const std::lock_guard lock(mutex_);
        return format_ ? format_->frame_bytes() : 0;
    }

    // A buffer for the next frame (empty before the format is known: the source makes it).
    hs::Image take() {
        const std::lock_guard lock(mutex_);
        if (!free_.empty()) {
            hs::Image image = std::move(free_.back());
            free_.pop_back();
            return image;
        }
        if (!format_) return {};
        ++made_;
        return hs::Image(*format_, memory_, false);
    }

    std::shared_ptr<const hs::Image> share(hs::Image image) {
        {
            const std::lock_guard lock(mutex_);
            format_ = hs::FrameFormat::of(image.view());
        }
        auto* raw = new hs::Image(std::move(image));
        return {raw, [pool = weak_from_this()](hs::Image* done) {
                    if (const std::shared_ptr<FramePool> p = pool.lock()) p->give(std::move(*done));
                    delete done;
                }};
    }

  private:
    void give(hs::Image image) {
        const std::lock_guard lock(mutex_);
        if (format_ && hs::FrameFormat::of(image.view()) == *format_ &&
            image.memory() == memory_.get()) {
            free_.push_back(std::move(image));
            return;
        }
        if (made_ > 0) --made_;  // one of another memory or format goes
    }

    std::mutex mutex_;
    std::shared_ptr<hs::HostMemory> memory_;
    std::optional<hs::FrameFormat> format_;
    std::vector<hs::Image> free_;
    int made_ = 0;  // buffers of this memory and format in the pool or in use
};

FrameReader::FrameReader(std::unique_ptr<hs::media::FrameSource> source,
                         std::shared_ptr<const PlaybackClock> clock, std::function<void()> notify,
                         std::size_t capacity)
    : source_(std::move(source)),
      clock_(std::move(clock)),
      notify_(std::move(notify)),
      pool_(std::make_shared<FramePool>()),
      capacity_(std::max<std::size_t>(capacity, 1)),
      seekable_(source_->seekable()),
      frames_(source_->frame_count()) {
    thread_ = std::thread([this] { run(); });
}

FrameReader::~FrameReader() {
    {
        const std::lock_guard lock(mutex_);
        quit_ = true;
        job_.reset();
        ++job_serial_;
    }
    wake_.notify_all();
    thread_.join();
}

void FrameReader::setMemory(std::shared_ptr<hs::HostMemory> memory,
                            const std::optional<hs::FrameFormat>& format) {
    pool_->setMemory(std::move(memory), format);
}

void FrameReader::start(const Job& job) {
    {
        const std::lock_guard lock(mutex_);
        job_ = job;
        ++job_serial_;
        queue_.clear();
    }
    wake_.notify_all();
}

void FrameReader::stop() {
    {
        const std::lock_guard lock(mutex_);
        job_.reset();
        ++job_serial_;
        queue_.clear();
    }
    wake_.notify_all();
}

void FrameReader::setLoop(bool on) {
    const std::lock_guard lock(mutex_);
    if (job_) job_->loop = on && job_->continuous;
}

std::optional<ReadFrame> FrameReader::pop() {
    std::optional<ReadFrame> out;
    {
        const std::lock_guard lock(mutex_);
        if (queue_.empty()) return std::nullopt;
        out = std::move(queue_.front());
        queue_.pop_front();
    }
    wake_.notify_all();  // room in the queue
    return out;
}

std::int64_t FrameReader::frameCount() const {
    const std::lock_guard lock(mutex_);
    return frames_;
}

ReadFrame FrameReader::readOne(std::int64_t index, bool& fatal) {
    ReadFrame f;
    f.index = index;
    const auto start = PlaybackClock::Clock::now();
    try {
        // Live input goes on where it is: its frames come once, in order.
        if (seekable_ && source_->position() != index) source_->seek(index);
        f.index = source_->position();
        hs::Image image = pool_->take();
        switch (source_->read(image)) {
            case hs::media::FrameSource::Status::Ok:
                f.image = pool_->share(std::move(image));
                // Its planes are kept (open_media) while the next read has not replaced them.
                if (const hs::media::VideoReader* video = source_->video();
                    video != nullptr && video->coding().limited_luma())
                    f.excursions =
                        hs::media::luma_excursions(video->planes().y, video->coding().bit_depth);
                break;
            case hs::media::FrameSource::Status::Failed:
                f.kind = ReadFrame::Kind::Failed;
                f.problem = source_->failure();
                break;
            case hs::media::FrameSource::Status::End:
                f.kind = ReadFrame::Kind::End;
                break;
        }
    } catch (const std::bad_alloc&) {
        // Not this frame's fault: no later frame would fit either. Reading stops.
        fatal = true;
        f.kind = ReadFrame::Kind::Failed;
        const std::size_t bytes = pool_->frameBytes();
        f.problem = "out of memory for a frame" +
                    (bytes > 0 ? " of " + std::to_string(bytes) + " bytes" : std::string()) +
                    ": reading stops";
    } catch (const std::exception& e) {
        f.kind = ReadFrame::Kind::Failed;
        f.problem = e.what();
    }
    f.read_ms = ms_between(start, PlaybackClock::Clock::now());
    return f;
}

void FrameReader::run() {
    std::unique_lock lock(mutex_);
    // Per job: the next frame and tick, the frame dropped last (shown after all when the source
    // ends right after it), what was dropped since the last frame queued, when that was.
    std::uint64_t serial = 0;
    Job job;
    std::optional<ReadFrame> held;
    std::int64_t dropped = 0;
    PlaybackClock::Clock::time_point last_queued{};
    for (;;) {
        wake_.wait(lock, [&] { return quit_ || (job_ && queue_.size() < capacity_); });
        if (quit_) return;
        if (serial != job_serial_) {
            serial = job_serial_;
            job = *job_;
            held.reset();
            dropped = 0;
            last_queued = PlaybackClock::Clock::now();
        }
        lock.unlock();
        pool_->reserve(kFramesInUse, kReserveBytes);
        bool fatal = false;
        ReadFrame f = readOne(job.from, fatal);
        job.from = f.index;
        f.session = job.session;
        f.tick = job.tick;
        const auto now = PlaybackClock::Clock::now();
        lock.lock();
        if (serial != job_serial_) continue;  // replaced meanwhile: read for nobody
        if (fatal) {  // no memory for a frame: what the reader has is all there is
            queue_.push_back(std::move(f));
            ReadFrame end;
            end.kind = ReadFrame::Kind::End;
            end.session = job.session;
            end.index = end.tick = job.from;
            queue_.push_back(std::move(end));
            job_.reset();
        } else if (f.kind == ReadFrame::Kind::End) {
            frames_ = job.from;  // the source's real end
            if (job.continuous && job_->loop && job.from > 0 && seekable_) {
                job.from = 0;  // the tick goes on
                continue;
            }
            if (held) {  // the last frame was dropped: it is shown after all
                held->dropped_before = dropped - 1;
                held->last = true;
                queue_.push_back(std::move(*held));
                held.reset();
            }
            f.index = job.from;
            queue_.push_back(std::move(f));
            job_.reset();
        } else {
            const bool read = f.kind == ReadFrame::Kind::Frame;
            if (read) {
                // The last frame as far as the source knows (none when it does not say).
                f.last = frames_ > 0 && job.from + 1 >= frames_;
                if (frames_ > 0) frames_ = std::max(frames_, job.from + 1);
            }
            ++job.from;
            ++job.tick;
            if (read && job.continuous &&
                clock_->droppable(f.session, f.tick, f.last, now, last_queued)) {
                held = std::move(f);
                ++dropped;
                continue;
            }
            held.reset();
            f.dropped_before = dropped;
            dropped = 0;
            last_queued = now;
            queue_.push_back(std::move(f));
            if (!job.continuous) job_.reset();
        }
        lock.unlock();
        if (notify_) notify_();
        lock.lock();
    }
}

}  // namespace hs::ui
