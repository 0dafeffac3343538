// Video read and written through FFmpeg's libraries directly (demuxer, decoder, swscale; encoder
// and muxer).
//
// Reading does not go through cv::VideoCapture because it numbers frames by counting the ones
// it managed to decode, skips frames that fail without saying so, hides the decoder's error
// reports (while FFmpeg prints them to standard error) and returns concealed garbage as good
// frames. Here:
//  - a frame's number comes from the container: its timestamp's rank among the timestamps of
//    the stream's index (for AVI, the frames whose chunks carry data), and a packet whose file
//    position is in the index gets the index's timestamp, because the AVI demuxer, reading on
//    after damage, numbers the chunks it finds by counting them; numbers follow presentation
//    order, B-frames too (see number_of());
//  - a number the decoder skipped is a failed frame, reported in its place, and so is every
//    frame the container declares after the decoder's last (a file cut short);
//  - an error the decoder reports while decoding a packet makes the frame(s) depending on it
//    corrupt until the next key frame: failed, or delivered marked corrupt with allow_corrupt;
//  - FFmpeg's log goes to a callback that keeps the first error (a whole line, however many
//    parts FFmpeg prints it in) as detail for our messages and prints nothing.
// HEVC, VP9 and ProRes decode on FFmpeg's frame threads (one per core), several packets at once,
// FFV1 on slice threads; the other decoders on the calling thread (see open() for why). The
// decoder's reports stay tied to their packet all the same: every packet is sent with a tag in
// the decoder's `opaque`, which FFmpeg copies into the context of the thread that decodes that
// packet, and the log callback, called on that thread with that context, files the report under
// the tag's packet. A frame comes out only once its thread has finished its packet, so the
// reports of its packet and of those decoded before it are in before the frame is judged, and
// it is judged by those alone (see `damage`): the same on any number of threads.
//
// Containers without an index or a frame count (Matroska, WebM, MPEG-TS) are read once when
// opened to count their packets and number the frames by their timestamps (see scan()).
//
// 8-bit pixels are converted to RGB as OpenCV converts them (swscale, bicubic, to BGR24), so
// frames equal cv::VideoCapture's. Deeper ones keep their code values: 16-bit samples at the
// coded depth, converted by YCbCrToRgb's exact integer formula with the stream's matrix and
// range (swscale would go through its own 15-bit intermediates and interpolate chroma), and the
// Y', Cb, Cr planes are delivered as they were decoded.

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdarg>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string_view>
#include <thread>
#include <utility>

#include "codecs.hpp"
#include "formats.hpp"
#include "histoscope/core/error.hpp"
#include "histoscope/media/atomic_file.hpp"
#include "histoscope/media/media.hpp"

namespace hs::media {

namespace {

// --- FFmpeg's log

// Where the messages of the libav* calls made by this thread go (none: dropped).
struct LogCapture {
    int errors = 0;
    std::string first;  // the first error, as one line
    std::string least;  // the error first in the order of strings
};
thread_local LogCapture* t_capture = nullptr;

// The reports of a decoder's own threads, each filed under the packet it was decoding.
struct DecoderReports {
    struct Report {
        std::int64_t rank, pos;
        std::string text;
    };
    std::mutex mutex;
    std::vector<Report> reports;  // not yet taken by the reader (guarded by mutex)
};
// The packet a decoder's `opaque` names while it decodes it (written under its reports' mutex).
struct PacketTag {
    DecoderReports* reports = nullptr;
    std::int64_t rank = -1, pos = -1;
};
// The tags of every open reader: the log callback follows an `opaque` only when it is one of
// them (other code in the process may set `opaque` to anything).
std::mutex g_tags_mutex;
std::set<const void*>& live_tags() {
    static std::set<const void*> tags;
    return tags;
}

// A message as FFmpeg formats it, untrimmed (a message may be printed in parts: HEVC's
// "mismatching checksum of plane 0 - ", then each byte of the two MD5 sums, then "\n").
std::string log_piece(void* avcl, int level, const char* format, va_list args) {
    char line[1024];
    int print_prefix = 0;
    va_list copy;
    va_copy(copy, args);
    av_log_format_line2(avcl, level, format, copy, line, sizeof line, &print_prefix);
    va_end(copy);
    return line;
}

// The message this thread is printing in parts, gathered until its line ends: a report is the
// whole line, never its first part.
struct OpenLine {
    std::string text;
    void* context = nullptr;  // av_log's first argument for the first part
};
thread_local std::optional<OpenLine> t_open_line;

// Files a whole message: into the calling thread's Capture, or, on a decoder's own thread,
// under the packet that thread is decoding.
void file_report(void* avcl, std::string line) {
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    if (t_capture != nullptr) {
        if (t_capture->errors++ == 0) t_capture->first = line;
        if (t_capture->least.empty() || line < t_capture->least) t_capture->least = std::move(line);
        return;
    }
    // A decoder's own thread (frame or slice threads): av_log's first argument is a struct that
    // starts with its AVClass; a codec context's `opaque` holds the tag of its packet. Helpers
    // that a decoder calls log with a context of their own that names the decoder's as its
    // parent (libavutil's image size check: "Picture size ... is invalid").
    const AVCodecContext* codec = nullptr;
    const void* context = avcl;
    for (int depth = 0; context != nullptr && codec == nullptr && depth < 2; ++depth) {
        const AVClass* c = *static_cast<const AVClass* const*>(context);
        if (c == avcodec_get_class()) {
            codec = static_cast<const AVCodecContext*>(context);
        } else {
            if (c == nullptr || c->parent_log_context_offset == 0) return;
            context = *reinterpret_cast<const void* const*>(static_cast<const char*>(context) +
                                                            c->parent_log_context_offset);
        }
    }
    if (codec == nullptr) return;
    const void* tag = codec->opaque;
    const std::lock_guard lock(g_tags_mutex);
    if (tag == nullptr || live_tags().count(tag) == 0) return;
    const auto& packet = *static_cast<const PacketTag*>(tag);
    const std::lock_guard hold(packet.reports->mutex);
    packet.reports->reports.push_back({packet.rank, packet.pos, std::move(line)});
}

// Files the message this thread left open, as far as it went.
void close_open_line() {
    if (!t_open_line) return;
    OpenLine open = std::move(*t_open_line);
    t_open_line.reset();
    file_report(open.context, std::move(open.text));
}

void on_ffmpeg_log(void* avcl, int level, const char* format, va_list args) {
    if (level > AV_LOG_ERROR) return;
    std::string piece = log_piece(avcl, level, format, args);
    // A line another context left open is no part of this one.
    if (t_open_line && t_open_line->context != avcl) close_open_line();
    if (!t_open_line) t_open_line = OpenLine{{}, avcl};
    t_open_line->text += piece;
    if (!piece.empty() && piece.back() == '\n') close_open_line();
}

// Installs the callback once for the process: FFmpeg's default prints to standard error.
void quiet_ffmpeg() {
    static std::once_flag once;
    std::call_once(once, [] { av_log_set_callback(on_ffmpeg_log); });
}

// Captures what the libav* calls of its scope report.
class Capture {
  public:
    Capture() : previous_(t_capture) {
        close_open_line();  // a line left open before is none of this scope's
        t_capture = &log_;
    }
    ~Capture() {
        settle();
        t_capture = previous_;
    }
    Capture(const Capture&) = delete;
    Capture& operator=(const Capture&) = delete;
    int errors() const {
        settle();
        return log_.errors;
    }
    // " (FIRST ERROR)" or "".
    std::string detail() const {
        settle();
        return log_.first.empty() ? "" : " (" + log_.first + ")";
    }
    // "the decoder reported: FIRST ERROR", or the least error in the order of strings.
    std::string decoder_report(bool least = false) const {
        settle();
        const std::string& line = least ? log_.least : log_.first;
        return line.empty() ? "the decoder reported an error" : "the decoder reported: " + line;
    }

  private:
    // A message the calls of this scope left without the end of its line counts as it is.
    void settle() const {
        if (t_capture == &log_) close_open_line();
    }
    mutable LogCapture log_;
    LogCapture* previous_;
};

std::string av_error(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return text;
}

std::string fourcc_string(std::uint32_t code) {
    std::string s;
    for (int i = 0; i < 4; ++i) {
        const auto c = static_cast<char>((code >> (8 * i)) & 0xFFu);
        if (c == '\0') break;
        s += (c >= 32 && c < 127) ? c : '?';
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    return s;
}

// A stream input's bytes, read by FFmpeg through custom I/O: seekable like a file, so
// demuxers that look at the end of the data (an MP4 index after the frames) work as on files.
struct MemoryInput {
    const std::uint8_t* data = nullptr;
    std::int64_t size = 0, position = 0;
};

int read_memory(void* opaque, std::uint8_t* buffer, int size) {
    auto& in = *static_cast<MemoryInput*>(opaque);
    const std::int64_t left = in.size - in.position;
    if (left <= 0) return AVERROR_EOF;
    const int n = static_cast<int>(std::min<std::int64_t>(size, left));
    std::memcpy(buffer, in.data + in.position, static_cast<std::size_t>(n));
    in.position += n;
    return n;
}

std::int64_t seek_memory(void* opaque, std::int64_t offset, int whence) {
    auto& in = *static_cast<MemoryInput*>(opaque);
    std::int64_t to = 0;
    switch (whence & ~AVSEEK_FORCE) {
        case AVSEEK_SIZE:
            return in.size;
        case SEEK_SET:
            to = offset;
            break;
        case SEEK_CUR:
            to = in.position + offset;
            break;
        case SEEK_END:
            to = in.size + offset;
            break;
        default:
            return AVERROR(EINVAL);
    }
    if (to < 0 || to > in.size) return AVERROR(EINVAL);
    in.position = to;
    return to;
}

// A demuxer opened on a source: its file by name, or its bytes in memory.
class Demuxer {
  public:
    Demuxer() = default;
    ~Demuxer() { close(); }
    Demuxer(const Demuxer&) = delete;
    Demuxer& operator=(const Demuxer&) = delete;

    // avformat_open_input()'s result (format() is null unless it is 0).
    int open(const Source& source) {
        close();
        const std::vector<std::uint8_t>* bytes = source.bytes();
        if (bytes == nullptr)
            return avformat_open_input(&format_, source.path().c_str(), nullptr, nullptr);
        memory_ = {bytes->data(), static_cast<std::int64_t>(bytes->size()), 0};
        constexpr int kBufferBytes = 1 << 16;
        auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferBytes));
        if (buffer == nullptr) throw std::bad_alloc();
        io_ = avio_alloc_context(buffer, kBufferBytes, 0, &memory_, read_memory, nullptr,
                                 seek_memory);
        if (io_ == nullptr) {
            av_free(buffer);
            throw std::bad_alloc();
        }
        format_ = avformat_alloc_context();
        if (format_ == nullptr) throw std::bad_alloc();
        format_->pb = io_;
        format_->flags |= AVFMT_FLAG_CUSTOM_IO;
        // Frees format_ and sets it to null when it fails; the I/O context stays ours.
        return avformat_open_input(&format_, "", nullptr, nullptr);
    }
    void close() {
        avformat_close_input(&format_);
        if (io_ != nullptr) {
            av_freep(&io_->buffer);
            avio_context_free(&io_);
        }
    }
    AVFormatContext* format() const { return format_; }

  private:
    AVFormatContext* format_ = nullptr;
    AVIOContext* io_ = nullptr;
    MemoryInput memory_;
};

// A packet of a stream as a pass over the file finds it, demuxing only.
struct FoundPacket {
    std::int64_t pos = -1, pts = AV_NOPTS_VALUE, dts = AV_NOPTS_VALUE, end = 0;
    bool key = false;
    // The demuxer reported damage (an error, a packet it found cut or corrupt) since the
    // stream's packet before this one in the file, or, for the first, since it opened the file.
    bool after_damage = false;
};

// Every packet with data of stream `index` of `source`, in file order, and whether the
// demuxer's reading ended at a clean end of the file (not an error).
struct PacketPass {
    std::vector<FoundPacket> packets;
    bool clean_end = true;
};
PacketPass demux_pass(const Source& source, int index) {
    Capture log;  // what the pass meets is met again, and reported, while decoding
    PacketPass pass;
    std::vector<FoundPacket>& found = pass.packets;
    Demuxer copy;
    if (copy.open(source) < 0) return pass;
    int reported = 0;
    AVPacket* p = av_packet_alloc();
    if (p == nullptr) throw std::bad_alloc();
    int read = 0;
    while ((read = av_read_frame(copy.format(), p)) >= 0) {
        if (p->stream_index == index && p->size > 0) {
            const int errors = log.errors();
            FoundPacket f;
            f.pos = p->pos;
            f.pts = p->pts;
            f.dts = p->dts;
            f.end = p->pts + std::max<std::int64_t>(p->duration, 0);
            f.key = (p->flags & AV_PKT_FLAG_KEY) != 0;
            f.after_damage = errors != reported || (p->flags & AV_PKT_FLAG_CORRUPT) != 0;
            reported = errors;
            found.push_back(f);
        }
        av_packet_unref(p);
    }
    av_packet_free(&p);
    pass.clean_end = read == AVERROR_EOF && log.errors() == reported;
    return pass;
}

}  // namespace

struct VideoReader::Impl {
    explicit Impl(const Source& from) : source(from), name(from.name()) {}
    Source source;
    std::string name;
    DecodeOptions options;
    Demuxer demuxer;
    AVFormatContext* format = nullptr;  // demuxer's
    AVCodecContext* decoder = nullptr;
    AVStream* stream = nullptr;
    SwsContext* sws = nullptr;
    AVPacket* packet = nullptr;
    AVFrame* frame = nullptr;

    int width = 0, height = 0;
    std::int64_t frames = 0;               // as the container reports them (0 when unknown)
    std::int64_t frames_within_file = -1;  // index entries whose data the file holds (-1: no index)
    double fps = 0.0;
    // fps is the stream's nominal rate, its frames' times on its grid (or no average to give).
    bool fps_nominal = false;
    std::string codec;
    // The stream's index: the timestamps of its entries with data, ascending, and the same
    // entries by file position.
    std::vector<std::int64_t> index_times;
    std::vector<std::pair<std::int64_t, std::int64_t>> index_positions;  // (pos, timestamp)
    std::vector<std::int64_t> key_times;  // the index's key frames, ascending (seek targets)
    // A container without an index or a frame count (Matroska, MPEG-TS): the index is made by a
    // pass over the file's packets (see scan()).
    bool scanned = false;
    // The index holds the packets' presentation times as the demuxer gives them (a pass over
    // the file made it, or took them for an MP4's index of decoding times): nothing to correct.
    // A packet's rank is then its place in decoding order (in the file, or in the MP4's index),
    // kept here by file position.
    bool presentation_index = false;
    std::vector<std::pair<std::int64_t, std::int64_t>> decode_ranks;  // (pos, rank)
    std::string missing_reason;  // why it holds fewer frames than made with (scan()), or ""
    std::vector<std::int64_t> lost_numbers;  // the frames scan() found lost, ascending

    // How the pixels are coded, and what read_frame() makes of them.
    VideoCoding coding;
    bool coding_known = false;
    int learnt_pixels = AV_PIX_FMT_NONE;  // the pixel format `coding` was learnt from
    int plane_of[3] = {0, 1, 2};          // the plane holding Y' (or R), Cb (G), Cr (B)
    int alpha_plane = -1;                 // the plane holding alpha, when it is read
    bool want_rgb = true, want_planes = false;
    // The conversion of deep Y'CbCr for the matrix, range and depth in `converter_for`, as
    // tables: the Y' term with the rounding, and each chroma term, by code value.
    std::string converter_for;
    std::vector<std::int64_t> lut_y, lut_r_cr, lut_g_cb, lut_g_cr, lut_b_cb;
    std::int64_t lut_max = 0;
    std::vector<std::int64_t> chroma_terms;  // R, G, B terms of one row of chroma samples
    // The frames read_frame_into() writes: the stream's size with the first coding learnt.
    std::optional<FrameFormat> declared_format;

    // The decoder's threads' reports (see the top), and the tags its packets are sent with:
    // more than the packets a decoder can hold at once, so a tag is reused only once its
    // packet is decoded.
    DecoderReports reports;
    std::array<PacketTag, 64> tags;
    std::size_t next_tag = 0;
    // The decoder is one that runs on threads given more than one (HEVC, VP9, FFV1, ProRes:
    // see open()), and whether it runs frame threads. A decoder on slice threads (FFV1) reports
    // the damage of one frame's slices in any order: of several reports of a packet, the least
    // in the order of strings stands, as on one thread.
    bool threadable = false, frame_threads = false, slice_reports = false;

    // Frame numbers: the rank in index_times of the frame's timestamp plus `shift`, learnt from
    // the first frame decoded from the start.
    bool calibrated = false;
    std::int64_t shift = 0;
    // The frame a seek asked for while it is not delivered yet (-1: none), and the time the
    // seek went to.
    std::int64_t seek_target = -1;
    std::int64_t seek_time = 0;
    std::int64_t next = 0;   // the number read_frame() delivers or reports next
    std::int64_t last = -1;  // the number of the last frame out of the decoder
    // A decoded frame with what is known about it (see decode()).
    struct Decoded {
        AVFrame* frame = nullptr;
        std::int64_t number = 0, rank = -1;
        bool corrupt = false;
        std::int64_t reason_rank = -1;  // the packet `reason` is about (see note_damage())
        std::string reason, gap_reason;
        Decoded() = default;
        Decoded(Decoded&& o) noexcept
            : frame(std::exchange(o.frame, nullptr)),
              number(o.number),
              rank(o.rank),
              corrupt(o.corrupt),
              reason_rank(o.reason_rank),
              reason(std::move(o.reason)),
              gap_reason(std::move(o.gap_reason)) {}
        Decoded& operator=(Decoded&&) = delete;
        Decoded(const Decoded&) = delete;
        Decoded& operator=(const Decoded&) = delete;
        ~Decoded() { av_frame_free(&frame); }
    };
    std::deque<Decoded> ready;  // out of the decoder, waiting for the frames before them
    AVFrame* incoming = nullptr;
    bool pending = false;  // `frame` holds frame `pending_number`, not delivered yet
    std::int64_t pending_number = 0;
    bool pending_corrupt = false;
    std::string pending_reason;  // why the pending frame is corrupt
    std::string gap_reason;      // why the frames before the pending one never came
    bool corrupt = false;        // the frame read_frame() delivered last
    std::string failure;         // why the frame reported Failed last failed

    // Index ranks (decode order) of packets: the highest sent, the rank and file position of
    // the one sent last, and the ranges that never reached the decoder (skipped by the demuxer
    // or refused by the decoder).
    std::int64_t last_sent = -1, sent_rank = -1, sent_pos = -1;
    struct Gap {
        std::int64_t first, end;  // ranks [first, end)
        bool missing;             // never found in the file (else refused by the decoder)
    };
    std::vector<Gap> gaps;
    AVPacket* held = nullptr;  // read, not sent yet (see feed())
    bool held_valid = false;
    std::int64_t held_rank = -1;
    std::string held_report;
    std::map<std::int64_t, std::string> damaged;  // file positions of damaged packets: why
    // The damage since the last key frame out, by the rank of its packet (-1: a packet not
    // known, on which every frame after it may depend), one report of each (keep_report()). A
    // frame depends on the damage of its own packet and of those decoded before it; it is
    // judged by that alone, and its reason is the earliest of it, so that neither depends on
    // when the reports of the packets decoded after it came in: with frame threads, which of
    // those have been decoded when a frame comes out depends on the threads' timing.
    std::map<std::int64_t, std::string> damage;
    // The presentation times of the packets sent since the last key frame out, by rank, and
    // the rank and time of that key frame (-1, AV_NOPTS_VALUE: none since the start or a seek).
    // Its leading pictures (open GOPs: shown before it, decoded after it) come out before it
    // and nothing after it refers to them, so that their damage, after a seek the lack of
    // their references, ends with it.
    std::map<std::int64_t, std::int64_t> sent_times;
    std::int64_t key_rank = -1, key_time = AV_NOPTS_VALUE;
    bool demuxed_all = false, flushed = false;
    // Whether reading started at the first packet (no seek), the packets read since, and how
    // the demuxer's last read ended (AVERROR_EOF at a clean end).
    bool from_start = true;
    std::int64_t packets_read = 0;
    int end_of_reading = 0;

    ~Impl() {
        sws_freeContext(sws);
        ready.clear();
        av_frame_free(&incoming);
        av_frame_free(&frame);
        av_packet_free(&packet);
        av_packet_free(&held);
        avcodec_free_context(&decoder);  // joins the decoder's threads: no report comes after
        const std::lock_guard lock(g_tags_mutex);
        for (const PacketTag& tag : tags) live_tags().erase(&tag);
    }

    void open();
    // Counts the stream's packets in a pass over the file and makes the index from them.
    void scan();
    // The frame rate of the stream whose frames' times are `times` (ascending).
    void choose_rate(const std::vector<std::int64_t>& times);
    // The coding of the stream from the pixel format `pixels` (the decoder's, or the first
    // frame's); InputError for a deep format this reader does not take.
    void learn_coding(AVPixelFormat pixels);
    // The reports the decoder's threads filed since the last call, as damage of their packets.
    void take_reports();
    // Whether the frame in `frame` has a sample above the coded depth in its planes.
    // Whether a plane holds a sample above the coded depth (no decoder writes one, but a frame
    // holding one is not data of its format): the colour planes when asked, and alpha when read.
    bool planes_overflow(bool colour_planes) const;
    // The format the frame in `frame` converts to (learns its coding when it changed).
    FrameFormat format_of_frame();
    // The frame in `frame` as R, G, B (or gray) into `out`, reallocated unless it has the
    // frame's shape, or packed into `dst`.
    void convert(Image& out);
    void convert_into(std::byte* dst);
    // The timestamp the index gives the packet at `pos`, if any.
    std::optional<std::int64_t> index_time_at(std::int64_t pos) const;
    // Rank in index_times of the packet at `pos` (-1 when the index does not know it).
    std::int64_t rank_at(std::int64_t pos) const;
    // The next frame into `frame` with its number and state; false at the end.
    bool decode();
    // The next frame out of the decoder; false at the end.
    bool receive(Decoded& out);
    // Sends the next packet of the stream to the decoder; false when there is none.
    bool feed();
    bool read_packet(AVPacket* p, std::int64_t& rank, std::string& report);
    // Number of the decoded frame from its timestamp and the rank of its packet; -1 when it
    // cannot be known.
    std::int64_t number_of(std::int64_t timestamp, std::int64_t packet_rank, std::int64_t pos);
    // Packet at `pos` (rank `rank`, -1: unknown) damaged: it, and what depends on it.
    void note_damage(std::int64_t rank, std::int64_t pos, const std::string& why);
    // Files `why` under `key` and returns the report that stands there: the first, or with
    // slice threads the least.
    const std::string& keep_report(std::map<std::int64_t, std::string>& kept, std::int64_t key,
                                   const std::string& why) const {
        const auto [at, added] = kept.try_emplace(key, why);
        if (!added && slice_reports && why < at->second) at->second = why;
        return at->second;
    }
    // The earliest damage a frame decoded from the packet of rank `rank` depends on (-1: any
    // damage), or null.
    const std::pair<const std::int64_t, std::string>* damage_before(std::int64_t rank) const;
    // A decoder that decodes on frame threads refused a packet (`sent`) or failed (`got`):
    // files the error as a report of its packet (see the definition).
    void note_refusal(int error, const std::string& what, const Capture& log);
    void restart(std::int64_t timestamp);
    // Why a frame the container declares after the last one out of the decoder never came.
    std::string after_the_end() const;
    // read_frame() into `out`, or packed into `dst`.
    FrameStatus read(Image* out, std::byte* dst);
};

void VideoReader::Impl::open() {
    quiet_ffmpeg();
    Capture log;
    int r = demuxer.open(source);
    if (r < 0) throw InputError("cannot open " + name + " as a video" + log.detail());
    format = demuxer.format();
    r = avformat_find_stream_info(format, nullptr);
    if (r < 0) throw InputError("cannot open " + name + " as a video" + log.detail());
    const AVCodec* codec_found = nullptr;
    const int index = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec_found, 0);
    if (index < 0)
        throw InputError(index == AVERROR_DECODER_NOT_FOUND
                             ? name + ": this build has no decoder for its video"
                             : "cannot open " + name + " as a video (no video stream)");
    stream = format->streams[index];
    const AVCodecParameters* par = stream->codecpar;
    width = par->width;
    height = par->height;
    codec = fourcc_string(par->codec_tag);
    if (codec.empty()) codec = avcodec_get_name(par->codec_id);
    // The average until the frames' times say whether the nominal rate holds (choose_rate()).
    const AVRational rate =
        stream->avg_frame_rate.num > 0 ? stream->avg_frame_rate : stream->r_frame_rate;
    fps = rate.num > 0 && rate.den > 0 ? av_q2d(rate) : 0.0;
    fps_nominal = stream->avg_frame_rate.num <= 0;
    if (width <= 0 || height <= 0)
        throw InputError("cannot open " + name + " as a video (no frame size)" + log.detail());
    detail::check_pixel_limit(name, "its video stream", static_cast<std::uint64_t>(width),
                              static_cast<std::uint64_t>(height), options.max_pixels);

    // The index, when it covers the stream: a demuxer without one (an AVI cut before its idx1)
    // starts one with the first key frame it meets, which numbers nothing.
    const std::int64_t file_size = avio_size(format->pb);
    std::int64_t within_file = 0;
    struct Entry {
        std::int64_t pos, time;
        bool key;
    };
    std::vector<Entry> entries;
    const int count = avformat_index_get_entries_count(stream);
    for (int i = 0; i < count; ++i) {
        const AVIndexEntry* e = avformat_index_get_entry(stream, i);
        if (e->size <= 0 || (e->flags & AVINDEX_DISCARD_FRAME) != 0) continue;
        entries.push_back({e->pos, e->timestamp, (e->flags & AVINDEX_KEYFRAME) != 0});
        if (file_size < 0 || e->pos + e->size <= file_size) ++within_file;
    }
    const auto [earliest, latest] =
        std::minmax_element(entries.begin(), entries.end(),
                            [](const Entry& a, const Entry& b) { return a.time < b.time; });
    const bool covers =
        entries.size() > 1 &&
        (stream->duration <= 0 || (latest->time - earliest->time) * 10 >= stream->duration * 9);
    // An MP4's index holds decoding times. A stream that reorders its frames (B-frames) shows
    // each at its decoding time plus an offset of its own (the composition offset, which the
    // index does not give, and which differs from frame to frame once the frame rate varies):
    // the index takes the presentation times the demuxer gives the packets in a pass over the
    // file.
    if (covers && par->video_delay > 0 &&
        std::string_view(format->iformat->name).substr(0, 3) == "mov") {
        std::map<std::int64_t, std::int64_t> shown;  // file position: presentation time
        std::int64_t offset = 0;
        bool offset_known = false;
        for (const FoundPacket& f : demux_pass(source, stream->index).packets) {
            if (f.pts == AV_NOPTS_VALUE || f.pos < 0) continue;
            shown.emplace(f.pos, f.pts);
            if (!offset_known && f.dts != AV_NOPTS_VALUE) {
                offset = f.pts - f.dts;
                offset_known = true;
            }
        }
        if (!shown.empty()) {
            std::stable_sort(entries.begin(), entries.end(),
                             [](const Entry& a, const Entry& b) { return a.time < b.time; });
            for (std::size_t i = 0; i < entries.size(); ++i)
                decode_ranks.emplace_back(entries[i].pos, static_cast<std::int64_t>(i));
            std::sort(decode_ranks.begin(), decode_ranks.end());
            // Entries past the end of a cut file, which no pass reaches, take the presentation
            // times the others leave: the decoding times shifted as the first packet's is are
            // those of every frame at one frame rate, each present frame takes the nearest.
            std::multiset<std::int64_t> left;
            for (const Entry& e : entries) left.insert(e.time + offset);
            std::vector<Entry*> unreached;
            for (Entry& e : entries) {
                const auto at = shown.find(e.pos);
                if (at == shown.end()) {
                    unreached.push_back(&e);
                    continue;
                }
                e.time = at->second;
                auto slot = left.lower_bound(e.time);
                if (slot == left.end() ||
                    (slot != left.begin() && *slot - e.time > e.time - *std::prev(slot)))
                    slot = std::prev(slot);
                left.erase(slot);
            }
            auto slot = left.begin();
            for (Entry* e : unreached) e->time = *slot++;
            presentation_index = true;
        }
    }
    if (covers)
        for (const Entry& e : entries) {
            index_times.push_back(e.time);
            index_positions.emplace_back(e.pos, e.time);
            if (e.key) key_times.push_back(e.time);
        }
    std::sort(index_times.begin(), index_times.end());
    std::sort(index_positions.begin(), index_positions.end());
    std::sort(key_times.begin(), key_times.end());
    choose_rate(index_times);
    // The index counts the frames that carry data (AVI headers also count empty "dropped
    // frame" chunks, which decode to nothing); without one, the header's count stands.
    frames = covers                  ? static_cast<std::int64_t>(index_times.size())
             : stream->nb_frames > 0 ? stream->nb_frames
                                     : 0;
    if (covers) frames_within_file = within_file;
    // Neither an index nor a count (Matroska's cues name key frames only, and carry no size):
    // the frames are counted, and numbered, from a pass over the file.
    if (!covers && frames == 0) scan();

    decoder = avcodec_alloc_context3(codec_found);
    if (decoder == nullptr) throw std::bad_alloc();
    if (avcodec_parameters_to_context(decoder, par) < 0)
        throw InputError("cannot open " + name + " as a video" + log.detail());
    // Threads, one per core, for the decoders whose damage reports stay whole with them: their
    // reports come through the packets' tags (see the top). H.264 and the MPEG decoders find
    // most damage by their error concealment, which FFmpeg runs only without frame threads (a
    // clip whose key frame is garbage decodes "cleanly" with them), and their single-threaded
    // reports are exact to the packet at the end of a cut file too: they keep one thread.
    // FFV1 decodes on slice threads, one frame at a time: on frame threads (FFmpeg 5.1) a
    // frame's context names another thread's codec context, whose tag is another packet's, so
    // that its reports would be filed under whatever that thread decodes.
    threadable = par->codec_id == AV_CODEC_ID_HEVC || par->codec_id == AV_CODEC_ID_VP9 ||
                 par->codec_id == AV_CODEC_ID_FFV1 || par->codec_id == AV_CODEC_ID_PRORES;
    slice_reports = par->codec_id == AV_CODEC_ID_FFV1;
    const unsigned cores = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
    decoder->thread_count = !threadable                   ? 1
                            : options.decoder_threads > 0 ? std::min(options.decoder_threads, 16)
                                                          : static_cast<int>(cores);
    decoder->thread_type = slice_reports ? FF_THREAD_SLICE : FF_THREAD_FRAME | FF_THREAD_SLICE;
    decoder->pkt_timebase = stream->time_base;
    // Decoders that can check their data do. (AV_EF_EXPLODE is not set: it makes some decoders
    // drop the intact frames still in their reorder buffer along with the damaged one.)
    decoder->err_recognition = AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_BUFFER;
    {
        const std::lock_guard lock(g_tags_mutex);
        for (PacketTag& tag : tags) {
            tag.reports = &reports;
            live_tags().insert(&tag);
        }
    }
    if (avcodec_open2(decoder, codec_found, nullptr) < 0)
        throw InputError("cannot decode the video of " + name + log.detail());
    frame_threads = (decoder->active_thread_type & FF_THREAD_FRAME) != 0;
    packet = av_packet_alloc();
    held = av_packet_alloc();
    frame = av_frame_alloc();
    incoming = av_frame_alloc();
    if (packet == nullptr || held == nullptr || frame == nullptr || incoming == nullptr)
        throw std::bad_alloc();
    // The coding the stream's header declares; without one, the first frame's (coding()).
    if (decoder->pix_fmt != AV_PIX_FMT_NONE) learn_coding(decoder->pix_fmt);
}

namespace {

// Each time of `times` (ascending) as its step on the grid of frames `period` clock ticks apart
// from the first, one frame to a step: within a tenth of a period (or a tick) of it, as a
// container's clock rounds the times. Empty where one lies off the grid, or two on one step.
std::vector<std::int64_t> grid_steps(const std::vector<std::int64_t>& times, double period) {
    std::vector<std::int64_t> steps;
    if (!(period >= 1.0) || times.empty()) return steps;
    for (const std::int64_t t : times) {
        const double k = static_cast<double>(t - times.front()) / period;
        const std::int64_t step = std::llround(k);
        if (std::abs(k - static_cast<double>(step)) * period > std::max(1.0, period / 10) ||
            (!steps.empty() && step <= steps.back()))
            return {};
        steps.push_back(step);
    }
    return steps;
}

}  // namespace

void VideoReader::Impl::scan() {
    const PacketPass pass = demux_pass(source, stream->index);
    const std::vector<FoundPacket>& found = pass.packets;
    bool timed = true;
    for (const FoundPacket& f : found) timed = timed && f.pts != AV_NOPTS_VALUE && f.pos >= 0;
    frames = static_cast<std::int64_t>(found.size());
    frames_within_file = frames;
    scanned = presentation_index = true;
    if (found.empty()) return;

    if (!timed) return;  // numbered by counting, as a stream without timestamps must be
    // The packets' times in presentation order, each with its place in the file.
    std::vector<std::pair<std::int64_t, std::size_t>> shown;
    shown.reserve(found.size());
    for (std::size_t i = 0; i < found.size(); ++i) {
        shown.emplace_back(found[i].pts, i);
        index_positions.emplace_back(found[i].pos, found[i].pts);
        decode_ranks.emplace_back(found[i].pos, static_cast<std::int64_t>(i));
        if (found[i].key) key_times.push_back(found[i].pts);
    }
    std::sort(shown.begin(), shown.end());
    // Two packets with one timestamp would share a number: then the numbers come from counting.
    if (std::adjacent_find(shown.begin(), shown.end(), [](const auto& a, const auto& b) {
            return a.first == b.first;
        }) != shown.end()) {
        index_positions.clear();
        decode_ranks.clear();
        key_times.clear();
        return;
    }
    std::sort(index_positions.begin(), index_positions.end());
    std::sort(key_times.begin(), key_times.end());
    std::sort(decode_ranks.begin(), decode_ranks.end());

    // Frames whose packets the file lacks are numbered, and reported failed in their place, only
    // where something says that they were there: a hole between the timestamps is no lost frame
    // by itself (a variable frame rate leaves holes on the grid of its nominal rate). They take
    // the times of the stream's rate, so that the frames after them keep their numbers:
    //  - in a hole between two frames, where the demuxer reported damage (an error, a packet cut
    //    or corrupt) within kNear packets of the file of either, or where the file ends within
    //    kNear packets of either when it is cut (below) or its reading ended in an error: what
    //    was lost there (B-frames shown before the last frames a cut file holds);
    //  - before the first frame, where the demuxer reported damage before the first packet and
    //    the container places the stream's start earlier: its index names an earlier frame, or
    //    its declared duration, counted back from where the packets end, reaches further;
    //  - after the last frame, where the duration the container declares (written when the file
    //    was finished) runs past where the packets end, counted from the stream's start and
    //    from zero (a cut file demuxes cleanly up to the cut).
    constexpr std::size_t kNear = 16;
    std::vector<std::int64_t> shown_times;
    for (const auto& [t, place] : shown) shown_times.push_back(t);
    choose_rate(shown_times);
    const AVRational tb = stream->time_base;
    const double period = fps > 0.0 ? 1.0 / (fps * av_q2d(tb)) : 0.0;  // in clock ticks
    const auto n = static_cast<std::int64_t>(shown.size());
    const std::int64_t first = shown.front().first;
    std::int64_t end = shown.back().first;
    for (const FoundPacket& f : found) end = std::max(end, f.end);
    const std::int64_t declared =
        format->duration > 0 && format->duration_estimation_method == AVFMT_DURATION_FROM_STREAM
            ? av_rescale_q(format->duration, AV_TIME_BASE_Q, tb)
            : 0;
    // The file places of the packets the demuxer found damage before.
    std::vector<std::size_t> damaged_at;
    for (std::size_t i = 0; i < found.size(); ++i)
        if (found[i].after_damage) damaged_at.push_back(i);
    const auto near_damage = [&](std::size_t a, std::size_t b) {
        const std::size_t from = std::min(a, b) > kNear ? std::min(a, b) - kNear : 0;
        const auto at = std::lower_bound(damaged_at.begin(), damaged_at.end(), from);
        return at != damaged_at.end() && *at <= std::max(a, b) + kNear;
    };
    // Each frame's step on the rate's grid from the first; none when they fit no one rate (no
    // hole can be told), or leave a hole larger than the frames found (no hole, but a timestamp
    // of another kind).
    std::vector<std::int64_t> steps = grid_steps(shown_times, period);
    if (!steps.empty() && steps.back() >= 2 * n + 16) steps.clear();
    std::int64_t lead = 0;
    if (period >= 1.0 && found.front().after_damage) {
        std::int64_t from = first;
        for (int i = 0; i < avformat_index_get_entries_count(stream); ++i)
            from = std::min(from, avformat_index_get_entry(stream, i)->timestamp);
        if (declared > 0) from = std::min(from, std::max<std::int64_t>(end - declared, 0));
        lead = std::llround(static_cast<double>(first - from) / period);
        if (lead >= 2 * n + 16) lead = 0;
    }
    const std::int64_t start = first - std::llround(static_cast<double>(lead) * period);
    const double tolerance = fps > 0.0 ? 1.5 / fps : 0.0;
    const double held_seconds = static_cast<double>(end - start) * av_q2d(tb);
    const double seconds = static_cast<double>(declared) * av_q2d(tb);
    const bool cut = declared > 0 && fps > 0.0 && held_seconds + tolerance < seconds &&
                     static_cast<double>(end) * av_q2d(tb) + tolerance < seconds;
    if (cut || !pass.clean_end) damaged_at.push_back(found.size());
    std::vector<std::int64_t> times;
    for (std::int64_t k = lead; k > 0; --k) {
        lost_numbers.push_back(static_cast<std::int64_t>(times.size()));
        times.push_back(first - std::llround(static_cast<double>(k) * period));
    }
    std::int64_t holes = 0;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        if (i > 0 && !steps.empty() && near_damage(shown[i - 1].second, shown[i].second))
            for (std::int64_t k = steps[i - 1] + 1; k < steps[i]; ++k, ++holes) {
                lost_numbers.push_back(static_cast<std::int64_t>(times.size()));
                times.push_back(first + std::llround(static_cast<double>(k) * period));
            }
        times.push_back(shown[i].first);
    }
    frames = static_cast<std::int64_t>(times.size());
    // The frames the declared duration holds at the stream's rate are the frames this file was
    // meant to have: those missing are failed frames, as for a container that counts them.
    if (cut) frames = std::max(frames, static_cast<std::int64_t>(std::llround(seconds * fps)));
    std::vector<std::string> reasons;
    char text[240];
    if (lead > 0) {
        std::snprintf(text, sizeof text,
                      "its first %lld frames are missing (the file is damaged before its first "
                      "packet, at %.3f s)",
                      static_cast<long long>(lead), static_cast<double>(first) * av_q2d(tb));
        reasons.emplace_back(text);
    }
    if (holes > 0) {
        std::snprintf(text, sizeof text,
                      "the packets of %lld of its %lld frames are missing where the file is "
                      "damaged",
                      static_cast<long long>(holes), static_cast<long long>(frames));
        reasons.emplace_back(text);
    }
    if (cut) {
        std::snprintf(text, sizeof text,
                      "its packets end at %.3f s, before the %.3f s its container declares "
                      "(%lld frames at %g fps; the file holds %lld)",
                      held_seconds, seconds, static_cast<long long>(frames), fps,
                      static_cast<long long>(frames_within_file));
        reasons.emplace_back(text);
    }
    for (const std::string& r : reasons) missing_reason += (missing_reason.empty() ? "" : "; ") + r;
    index_times = std::move(times);
}

void VideoReader::Impl::choose_rate(const std::vector<std::int64_t>& times) {
    // The nominal rate (FFmpeg's r_frame_rate: the container's, or the codec's) where the
    // frames' times all lie on its grid: exact for a clip of one rate whatever its container's
    // clock rounds (an MP4's 16000 ticks a second, whose average over 48 frames at 24 fps is
    // 24.008), and for a variable rate whose frames are whole periods of it apart. Else the
    // average of the frames' times (what a container declares, a Matroska track's default
    // duration, need not be that).
    const AVRational nominal = stream->r_frame_rate;
    if (nominal.num > 0 && nominal.den > 0 && times.size() >= 2 &&
        !grid_steps(times, 1.0 / (av_q2d(nominal) * av_q2d(stream->time_base))).empty()) {
        fps = av_q2d(nominal);
        fps_nominal = true;
    } else if (times.size() >= 2 && times.back() > times.front()) {
        fps = static_cast<double>(times.size() - 1) /
              (static_cast<double>(times.back() - times.front()) * av_q2d(stream->time_base));
        fps_nominal = false;
    }
}

std::optional<std::int64_t> VideoReader::Impl::index_time_at(std::int64_t pos) const {
    if (pos < 0) return std::nullopt;
    // The entry at or just before `pos`: AVI indexes the chunk header, 8 bytes before the data.
    auto it = std::upper_bound(index_positions.begin(), index_positions.end(),
                               std::make_pair(pos, std::numeric_limits<std::int64_t>::max()));
    if (it == index_positions.begin()) return std::nullopt;
    --it;
    if (pos - it->first > 8) return std::nullopt;
    return it->second;
}

std::int64_t VideoReader::Impl::rank_at(std::int64_t pos) const {
    if (presentation_index) {
        const auto it = std::lower_bound(decode_ranks.begin(), decode_ranks.end(),
                                         std::make_pair(pos, std::int64_t{0}));
        return it != decode_ranks.end() && it->first == pos ? it->second : -1;
    }
    const auto time = index_time_at(pos);
    if (!time) return -1;
    return static_cast<std::int64_t>(
        std::lower_bound(index_times.begin(), index_times.end(), *time) - index_times.begin());
}

std::int64_t VideoReader::Impl::number_of(std::int64_t timestamp, std::int64_t packet_rank,
                                          std::int64_t pos) {
    if (timestamp == AV_NOPTS_VALUE || index_times.empty()) return last + 1;
    if (!calibrated) {
        // The first frame decoded from the start belongs to the first packet it came from;
        // the difference between that packet's index time and the frame's timestamp is the
        // decoder's shift (presentation delay of B-frames, packed B-frames), the same for all.
        const auto packet_time = index_time_at(pos);
        shift = packet_time ? *packet_time - timestamp : 0;
        calibrated = true;
    }
    // The index time nearest the shifted timestamp, not the last one at or before it: an index
    // of decoding times (an MP4's whose frames are not reordered, an AVI's) is shifted onto the
    // presentation times by a constant only up to the container's clock, which need not
    // divide the frame period (16000 ticks a second at 24 fps).
    const std::int64_t t = timestamp + shift;
    const auto after = std::lower_bound(index_times.begin(), index_times.end(), t);
    auto at = after;
    if (after == index_times.end() ||
        (after != index_times.begin() && *after - t > t - *std::prev(after)))
        at = std::prev(after);
    // Before the first entry by more than half the step to the second: no frame of the index.
    if (at == index_times.begin() && t < *at &&
        (index_times.size() < 2 || 2 * (*at - t) > index_times[1] - *at))
        return -1;
    const auto number = static_cast<std::int64_t>(at - index_times.begin());
    // A decoder that shifts timestamps (packed B-frames) hands the frame decoded last before a
    // gap the timestamp of the first packet after it: its number is unknown (it lies somewhere
    // before or inside the gap), so it is not delivered and its number is reported failed.
    if (packet_rank >= 0)
        for (const Gap& gap : gaps)
            if (packet_rank < gap.first && number >= gap.first) return -1;
    return number;
}

void VideoReader::Impl::note_damage(std::int64_t rank, std::int64_t pos, const std::string& why) {
    if (pos >= 0) keep_report(damaged, pos, why);
    if (key_rank >= 0 && rank > key_rank) {
        // A leading picture of the key frame out last: its own frame is all it damages.
        const auto time = sent_times.find(rank);
        if (time != sent_times.end() && time->second != AV_NOPTS_VALUE && time->second < key_time)
            return;
    }
    const std::string& first = keep_report(damage, std::max<std::int64_t>(rank, -1), why);
    // Frames decoded after the damaged packet, still waiting, may refer to it.
    if (rank >= 0)
        for (Decoded& d : ready)
            if (d.rank < 0 || d.rank > rank) {
                if (!d.corrupt || rank <= d.reason_rank) {
                    d.reason = first;
                    d.reason_rank = rank;
                }
                d.corrupt = true;
            }
}

const std::pair<const std::int64_t, std::string>* VideoReader::Impl::damage_before(
    std::int64_t rank) const {
    if (damage.empty() || (rank >= 0 && damage.begin()->first > rank)) return nullptr;
    return &*damage.begin();
}

void VideoReader::Impl::note_refusal(int error, const std::string& what, const Capture& log) {
    if (!frame_threads) {
        // One packet at a time: the error is the packet's sent last, and what the decoder said
        // of it on this thread is worded as its threads' reports are. An error its slice
        // threads reported is one said.
        if (log.errors() > 0)
            note_damage(sent_rank, sent_pos, log.decoder_report(slice_reports));
        else if (sent_rank < 0 || damage.count(sent_rank) == 0)
            note_damage(sent_rank, sent_pos, what + av_error(error));
        return;
    }
    // On frame threads the error is that of the oldest packet in flight, whose thread has just
    // finished: its report (a decoder says why it refuses data) was filed under it, and
    // judges the frames after it as on one thread. Only an error no thread reported is left to
    // the packets in flight, each of which may be the one refused.
    const std::int64_t oldest =
        last_sent >= 0 ? std::max<std::int64_t>(last_sent - decoder->thread_count, 0) : -1;
    if (oldest >= 0 && damage.lower_bound(oldest) != damage.end()) return;
    note_damage(oldest, -1, what + av_error(error) + log.detail());
}

bool VideoReader::Impl::read_packet(AVPacket* p, std::int64_t& rank, std::string& report) {
    for (;;) {
        Capture log;
        end_of_reading = av_read_frame(format, p);
        if (end_of_reading < 0) return false;  // the end, or nothing readable after
        if (p->stream_index != stream->index || p->size == 0) {
            av_packet_unref(p);
            continue;
        }
        ++packets_read;
        report = log.detail();  // a chunk the demuxer could not read whole
        if (report.empty() && (p->flags & AV_PKT_FLAG_CORRUPT) != 0)
            report = " (the demuxer found the packet cut or corrupt)";
        rank = rank_at(p->pos);
        if (rank >= 0 && !presentation_index) {
            // The index knows this chunk: its timestamp wins over the demuxer's count.
            const std::int64_t time = index_times[static_cast<std::size_t>(rank)];
            const std::int64_t correction = p->dts != AV_NOPTS_VALUE ? time - p->dts : 0;
            if (p->dts != AV_NOPTS_VALUE) p->dts += correction;
            if (p->pts != AV_NOPTS_VALUE) p->pts += correction;
            if (p->dts == AV_NOPTS_VALUE && p->pts == AV_NOPTS_VALUE) p->dts = time;
        }
        return true;
    }
}

bool VideoReader::Impl::feed() {
    if (!held_valid) {
        if (!read_packet(held, held_rank, held_report)) return false;
        held_valid = true;
    }
    // One packet ahead: when packets are missing after the held one, the damage that swallowed
    // them may have begun inside its data, which no decoder notices (Cinepak decodes garbage).
    std::int64_t ahead_rank = -1;
    std::string ahead_report;
    const bool more = read_packet(packet, ahead_rank, ahead_report);
    if (more && held_rank >= 0 && ahead_rank > held_rank + 1) {
        gaps.push_back({held_rank + 1, ahead_rank, true});
        note_damage(held_rank, held->pos,
                    "its data runs into a damaged or missing part of the file");
    }
    if (!held_report.empty())
        note_damage(held_rank, held->pos, "the file is damaged there" + held_report);
    Capture log;
    const std::int64_t held_pos = held->pos;
    if (held_rank >= 0) {
        sent_times[held_rank] = held->pts;
        // Leading pictures lie within a few packets of their key frame.
        sent_times.erase(sent_times.begin(), sent_times.lower_bound(held_rank - 1024));
    }
    {
        // The tag the thread that decodes this packet reports under (see the top).
        PacketTag& tag = tags[next_tag++ % tags.size()];
        const std::lock_guard lock(reports.mutex);
        tag.rank = held_rank;
        tag.pos = held_pos;
        decoder->opaque = &tag;
    }
    const int sent = avcodec_send_packet(decoder, held);
    av_packet_unref(held);
    last_sent = std::max(last_sent, held_rank);
    sent_rank = held_rank;
    sent_pos = held_pos;
    take_reports();
    if (sent < 0 && threadable) {
        // Numbers come from presentation times, so the frame of a refused packet is simply
        // missing; no gap is noted (see number_of()).
        note_refusal(sent, "the decoder refused its data: ", log);
    } else if (sent < 0) {
        if (held_rank >= 0) gaps.push_back({held_rank, held_rank + 1, false});
        note_damage(held_rank, held_pos,
                    "the decoder refused its data: " + av_error(sent) + log.detail());
    } else if (log.errors() > 0) {
        note_damage(held_rank, held_pos, log.decoder_report(slice_reports));
    }
    held_valid = more;
    if (more) {
        av_packet_move_ref(held, packet);
        held_rank = ahead_rank;
        held_report = ahead_report;
    }
    // Gaps far behind the decoder no longer matter.
    while (gaps.size() > 64) gaps.erase(gaps.begin());
    return true;
}

bool VideoReader::Impl::receive(Decoded& out) {
    for (;;) {
        Capture log;  // decoders that decode in receive_frame report here
        const int got = avcodec_receive_frame(decoder, incoming);
        // Its thread has finished with its packet: the reports of that packet are in.
        take_reports();
        if (got == 0) {
            const std::int64_t rank = rank_at(incoming->pkt_pos);
            const std::int64_t pos = incoming->pkt_pos;
            if (log.errors() > 0) note_damage(rank, pos, log.decoder_report(slice_reports));
            if (incoming->decode_error_flags != 0 || (incoming->flags & AV_FRAME_FLAG_CORRUPT) != 0)
                note_damage(rank, pos, "the decoder flagged it as damaged");
            const auto own = pos >= 0 ? damaged.find(pos) : damaged.end();
            const auto* before = damage_before(rank);
            out.gap_reason =
                before != nullptr ? before->second : "the decoder produced nothing for it";
            // Frames decoded after damaged data depend on it until a key frame: neither a key
            // frame nor what is decoded after it refers to what was decoded before it (its
            // open-GOP leading pictures, which do, come out before it); what depends on a
            // damaged key frame depends on its own damage. Without the frame's packet rank,
            // every frame until a clean key frame counts as dependent.
            if (incoming->key_frame != 0 && (rank >= 0 || own == damaged.end())) {
                if (rank < 0) {
                    damage.clear();
                } else {
                    // What was decoded before it, and its leading pictures, out before it.
                    const std::int64_t time = incoming->best_effort_timestamp;
                    std::erase_if(damage, [&](const auto& d) {
                        if (d.first < rank) return true;
                        const auto sent = sent_times.find(d.first);
                        return time != AV_NOPTS_VALUE && sent != sent_times.end() &&
                               sent->second != AV_NOPTS_VALUE && sent->second < time;
                    });
                    sent_times.erase(sent_times.begin(), sent_times.lower_bound(rank));
                    key_rank = rank;
                    key_time = time;
                }
            }
            const auto* why = damage_before(rank);
            out.corrupt = own != damaged.end() || why != nullptr;
            out.reason = why != nullptr ? why->second : own != damaged.end() ? own->second : "";
            out.reason_rank = why != nullptr ? why->first : rank;
            out.rank = rank;
            out.number = number_of(incoming->best_effort_timestamp, rank, pos);
            if (out.number < 0) {
                av_frame_unref(incoming);
                continue;
            }
            last = out.number;
            out.frame = av_frame_alloc();
            if (out.frame == nullptr) throw std::bad_alloc();
            av_frame_move_ref(out.frame, incoming);
            return true;
        }
        if (got == AVERROR_EOF) return false;
        if (got != AVERROR(EAGAIN)) {
            if (threadable) {
                note_refusal(got, "the decoder failed: ", log);
            } else {
                note_damage(last_sent, -1, "the decoder failed: " + av_error(got));
            }
            continue;
        }
        if (!demuxed_all && feed()) continue;
        if (!demuxed_all) {
            // A file that ends before the container's last frame (or with a read error). Its
            // last packet may be cut inside. With the other decoders, the frames still in the
            // decoder may also lack the data they refer to (MPEG-4's packed B-frames) and,
            // then, their numbers; what comes out now is not trusted. The decoders that run
            // on frame threads refer only to packets decoded before, and their frames are
            // numbered by their own timestamps: only the last packet is in doubt, whatever the
            // frames the threads still held. (A counted file's own count is what this demuxer
            // found in it: fewer packets now is a cut; its holes were counted as frames, not as
            // packets.)
            const std::int64_t expected = scanned ? frames_within_file : frames;
            const bool cut = end_of_reading != AVERROR_EOF ||
                             (from_start && expected > 0 && packets_read < expected);
            if (cut && threadable)
                note_damage(sent_rank, sent_pos, "the file ends inside or right after its data");
            else if (cut)
                note_damage(-1, -1, "the file ends before data it depends on");
        }
        demuxed_all = true;
        if (flushed) return false;
        avcodec_send_packet(decoder, nullptr);
        flushed = true;
    }
}

bool VideoReader::Impl::decode() {
    // A frame waits until the frames decoded before it, which it may refer to, are out of the
    // decoder: a B-frame comes out before the P-frame it refers to, whose damage shows only
    // when that one comes out (note_damage() then marks the waiting frames).
    const auto depth = static_cast<std::size_t>(std::max(decoder->has_b_frames, 2)) + 1;
    while (ready.size() <= depth) {
        Decoded next_frame;
        if (!receive(next_frame)) break;
        ready.push_back(std::move(next_frame));
    }
    if (ready.empty()) return false;
    Decoded& d = ready.front();
    av_frame_unref(frame);
    av_frame_move_ref(frame, d.frame);
    pending_number = d.number;
    pending_corrupt = d.corrupt;
    pending_reason = d.reason;
    gap_reason = d.gap_reason;
    ready.pop_front();
    return true;
}

void VideoReader::Impl::take_reports() {
    std::vector<DecoderReports::Report> taken;
    {
        const std::lock_guard lock(reports.mutex);
        taken.swap(reports.reports);
    }
    for (const auto& r : taken) note_damage(r.rank, r.pos, "the decoder reported: " + r.text);
}

void VideoReader::Impl::restart(std::int64_t timestamp) {
    Capture log;  // seeking reports nothing we use
    if (av_seek_frame(format, stream->index, timestamp, AVSEEK_FLAG_BACKWARD) < 0 &&
        av_seek_frame(format, stream->index, timestamp, AVSEEK_FLAG_BACKWARD | AVSEEK_FLAG_ANY) < 0)
        throw InputError("cannot seek " + name + log.detail());
    avcodec_flush_buffers(decoder);
    {
        // Reports of packets from before the seek are no longer about anything to come.
        const std::lock_guard lock(reports.mutex);
        reports.reports.clear();
    }
    demuxed_all = flushed = pending = held_valid = from_start = false;
    av_packet_unref(held);
    ready.clear();
    damaged.clear();
    gaps.clear();
    // Until the first key frame: frames before it lack their references.
    damage = {{-1, "decoded after a seek before a key frame"}};
    sent_times.clear();
    key_rank = -1;
    key_time = AV_NOPTS_VALUE;
    last = -1;
    last_sent = sent_rank = sent_pos = -1;
}

std::string VideoReader::Impl::after_the_end() const {
    // The packets of the stream in the file: the index's entries inside it, or those a pass
    // found, or, read from the start to the end, those read.
    const std::int64_t in_file = frames_within_file >= 0 ? frames_within_file
                                 : from_start            ? packets_read
                                                         : -1;
    if (in_file >= 0 && in_file < frames)
        return "its data is missing: the file ends before it (" + std::to_string(frames) +
               " frames declared, " + std::to_string(in_file) + " in the file)";
    const auto* why = damage_before(-1);
    return why != nullptr ? why->second : "the decoder produced nothing for it";
}

namespace {

std::string chroma_name(int shift_x, int shift_y) {
    if (shift_x == 0 && shift_y == 0) return "4:4:4";
    if (shift_x == 1 && shift_y == 0) return "4:2:2";
    if (shift_x == 1 && shift_y == 1) return "4:2:0";
    if (shift_x == 2 && shift_y == 0) return "4:1:1";
    if (shift_x == 0 && shift_y == 1) return "4:4:0";
    if (shift_x == 2 && shift_y == 2) return "4:1:0";
    return std::to_string(shift_x) + "," + std::to_string(shift_y) + " chroma shift";
}

std::string name_or(const char* name, const char* fallback) {
    return name != nullptr ? name : fallback;
}

// Whether components [0, n) of `d` each fill a plane of their own with samples of `bytes`
// bytes (a planar format, as the decoders of YUV, RGB and gray video write them).
bool own_planes(const AVPixFmtDescriptor& d, int n, int bytes) {
    if (d.nb_components < n) return false;
    for (int i = 0; i < n; ++i) {
        const AVComponentDescriptor& c = d.comp[i];
        if (c.step != bytes || c.shift != 0 || c.offset != 0 || c.depth != d.comp[0].depth)
            return false;
        for (int j = 0; j < i; ++j)
            if (d.comp[j].plane == c.plane) return false;
    }
    return true;
}

}  // namespace

void VideoReader::Impl::learn_coding(AVPixelFormat pixels) {
    const AVPixFmtDescriptor* d = av_pix_fmt_desc_get(pixels);
    VideoCoding c;
    c.pixel_format = name_or(av_get_pix_fmt_name(pixels), "unknown");
    c.bit_depth = d != nullptr ? d->comp[0].depth : 8;
    if (d != nullptr) {
        const int bytes = c.bit_depth > 8 ? 2 : 1;
        const bool rgb = (d->flags & AV_PIX_FMT_FLAG_RGB) != 0;
        const bool usable =
            (d->flags & (AV_PIX_FMT_FLAG_BE | AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM |
                         AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_FLOAT)) == 0 &&
            c.bit_depth <= 16;
        if (usable && !rgb && own_planes(*d, 3, bytes)) {
            c.family = "ycbcr";
            c.chroma_shift_x = d->log2_chroma_w;
            c.chroma_shift_y = d->log2_chroma_h;
            c.chroma = chroma_name(c.chroma_shift_x, c.chroma_shift_y);
        } else if (usable && rgb && own_planes(*d, 3, bytes)) {
            c.family = "rgb";
        } else if (usable && !rgb && d->nb_components <= 2 && own_planes(*d, 1, bytes)) {
            c.family = "gray";
        }
        for (int i = 0; i < 3 && i < d->nb_components; ++i) plane_of[i] = d->comp[i].plane;
        c.alpha = (d->flags & AV_PIX_FMT_FLAG_ALPHA) != 0;
        // A fourth component of its own plane, as deep as the others: ProRes 4444's, FFV1's.
        c.alpha_read = c.alpha && c.bit_depth > 8 && d->nb_components == 4 &&
                       (c.family == "ycbcr" || c.family == "rgb") && own_planes(*d, 4, bytes);
        alpha_plane = c.alpha_read ? d->comp[3].plane : -1;
    }
    if (c.bit_depth > 8) {
        // Deep samples are read where the decoder wrote them, as 16-bit host-order integers.
        if (c.family.empty() || std::endian::native != std::endian::little)
            throw InputError(name + ": its " + std::to_string(c.bit_depth) + "-bit pixel format " +
                             c.pixel_format +
                             " is not one this reader takes (planar little-endian Y'CbCr, RGB or "
                             "gray of 9 to 16 bits)");
    }
    // What the stream's header says, else what its decoded frame says.
    const AVCodecContext& dc = *decoder;
    const bool from_frame = frame != nullptr && frame->format == pixels;
    const AVColorSpace space =
        dc.colorspace == AVCOL_SPC_UNSPECIFIED && from_frame ? frame->colorspace : dc.colorspace;
    const AVColorRange range = dc.color_range == AVCOL_RANGE_UNSPECIFIED && from_frame
                                   ? frame->color_range
                                   : dc.color_range;
    const AVColorTransferCharacteristic transfer =
        dc.color_trc == AVCOL_TRC_UNSPECIFIED && from_frame ? frame->color_trc : dc.color_trc;
    const AVColorPrimaries primaries = dc.color_primaries == AVCOL_PRI_UNSPECIFIED && from_frame
                                           ? frame->color_primaries
                                           : dc.color_primaries;
    if (c.family == "ycbcr") {
        if (space == AVCOL_SPC_UNSPECIFIED || space == AVCOL_SPC_RESERVED) {
            c.matrix = height > 576 ? "bt709" : "smpte170m";
            c.matrix_assumed = true;
        } else {
            c.matrix = name_or(av_color_space_name(space), "unknown");
        }
    } else if (c.family == "rgb") {
        c.matrix = "gbr";  // R, G, B coded as they are
    }
    if (range == AVCOL_RANGE_JPEG || range == AVCOL_RANGE_MPEG) {
        c.full_range = range == AVCOL_RANGE_JPEG;
    } else {
        // The yuvj formats are full range by definition; RGB and gray are coded at full range.
        c.full_range =
            c.pixel_format.rfind("yuvj", 0) == 0 || c.family == "rgb" || c.family == "gray";
        c.range_assumed = true;
    }
    c.transfer = name_or(av_color_transfer_name(transfer), "unknown");
    c.primaries = name_or(av_color_primaries_name(primaries), "unknown");
    coding = std::move(c);
    coding_known = true;
    learnt_pixels = pixels;
}

bool VideoReader::Impl::planes_overflow(bool colour_planes) const {
    if (coding.bit_depth <= 8) return false;  // every byte is a code value
    const int colour = !colour_planes ? 0 : coding.family == "gray" ? 1 : 3;
    for (int i = 0; i < 4; ++i) {
        if (i >= colour && (i < 3 || alpha_plane < 0)) continue;
        const bool chroma = coding.family == "ycbcr" && (i == 1 || i == 2);
        const int sx = chroma ? coding.chroma_shift_x : 0, sy = chroma ? coding.chroma_shift_y : 0;
        const int w = AV_CEIL_RSHIFT(frame->width, sx), h = AV_CEIL_RSHIFT(frame->height, sy);
        const int p = i == 3 ? alpha_plane : plane_of[i];
        std::uint16_t bits = 0;
        for (int y = 0; y < h; ++y) {
            const auto* row = reinterpret_cast<const std::uint16_t*>(
                frame->data[p] + std::ptrdiff_t{y} * frame->linesize[p]);
            for (int x = 0; x < w; ++x) bits |= row[x];
        }
        if ((bits >> coding.bit_depth) != 0) return true;
    }
    return false;
}

FrameFormat VideoReader::Impl::format_of_frame() {
    if (!coding_known || frame->format != learnt_pixels)
        learn_coding(static_cast<AVPixelFormat>(frame->format));
    if (coding.bit_depth <= 8) return {frame->width, frame->height, 3, SampleType::U8, 8};
    return {frame->width, frame->height, coding.frame_channels(), SampleType::U16,
            coding.bit_depth};
}

void VideoReader::Impl::convert(Image& out) {
    const FrameFormat f = format_of_frame();
    if (out.empty() || !f.matches(out.view()) || out.stride() != f.view(nullptr).row_bytes())
        out = Image(f, nullptr, false);
    convert_into(out.data());
}

void VideoReader::Impl::convert_into(std::byte* dst) {
    const FrameFormat f = format_of_frame();
    const int w = f.width, h = f.height;
    const std::size_t stride = f.view(dst).row_bytes();
    const auto out_row = [&](int y) { return dst + static_cast<std::size_t>(y) * stride; };
    if (coding.bit_depth <= 8) {
        sws = sws_getCachedContext(sws, w, h, static_cast<AVPixelFormat>(frame->format), w, h,
                                   AV_PIX_FMT_BGR24, SWS_BICUBIC, nullptr, nullptr, nullptr);
        if (sws == nullptr) throw InputError("cannot convert the frames of " + name + " to RGB");
        std::uint8_t* planes[4] = {reinterpret_cast<std::uint8_t*>(dst), nullptr, nullptr, nullptr};
        const int strides[4] = {static_cast<int>(stride), 0, 0, 0};
        sws_scale(sws, frame->data, frame->linesize, 0, h, planes, strides);
        // BGR to RGB in place.
        for (int y = 0; y < h; ++y) {
            std::byte* p = out_row(y);
            for (int x = 0; x < w; ++x, p += 3) std::swap(p[0], p[2]);
        }
        return;
    }
    const auto row_of = [&](int plane, int y) {
        return reinterpret_cast<const std::uint16_t*>(frame->data[plane] +
                                                      std::ptrdiff_t{y} * frame->linesize[plane]);
    };
    const auto samples_of = [&](int y) { return reinterpret_cast<std::uint16_t*>(out_row(y)); };
    if (coding.family == "gray") {
        for (int y = 0; y < h; ++y)
            std::memcpy(out_row(y), row_of(plane_of[0], y), static_cast<std::size_t>(w) * 2);
        return;
    }
    // Alpha, when read, is the fourth sample of each pixel, taken as coded (full resolution).
    const int n = f.channels;
    const auto put_alpha = [&](int y) {
        if (alpha_plane < 0) return;
        const std::uint16_t* a = row_of(alpha_plane, y);
        std::uint16_t* o = samples_of(y) + 3;
        for (int x = 0; x < w; ++x, o += 4) *o = a[x];
    };
    if (coding.family == "rgb") {
        for (int y = 0; y < h; ++y) {
            const std::uint16_t *r = row_of(plane_of[0], y), *g = row_of(plane_of[1], y),
                                *b = row_of(plane_of[2], y);
            std::uint16_t* o = samples_of(y);
            for (int x = 0; x < w; ++x, o += n) {
                o[0] = r[x];
                o[1] = g[x];
                o[2] = b[x];
            }
            put_alpha(y);
        }
        return;
    }
    // Y'CbCr: YCbCrToRgb's formula through tables of its terms by code value (every 16-bit
    // value, so that no sample can index past them): the same integers in the same sums.
    const int depth = coding.bit_depth;
    const std::string key =
        coding.matrix + (coding.full_range ? "/full/" : "/limited/") + std::to_string(depth);
    if (converter_for != key) {
        const YCbCrToRgb t = YCbCrToRgb::make(coding.matrix, coding.full_range, depth);
        constexpr std::size_t kValues = std::size_t{1} << 16;
        lut_y.resize(kValues);
        lut_r_cr.resize(kValues);
        lut_g_cb.resize(kValues);
        lut_g_cr.resize(kValues);
        lut_b_cb.resize(kValues);
        for (std::size_t v = 0; v < kValues; ++v) {
            const auto value = static_cast<std::int64_t>(v);
            lut_y[v] = t.y * (value - t.y0) + (std::int64_t{1} << 19);
            lut_r_cr[v] = t.cr_r * (value - t.c0);
            lut_g_cb[v] = -t.cb_g * (value - t.c0);
            lut_g_cr[v] = -t.cr_g * (value - t.c0);
            lut_b_cb[v] = t.cb_b * (value - t.c0);
        }
        lut_max = t.max;
        converter_for = key;
    }
    const std::int64_t max = lut_max;
    const auto out_of = [max](std::int64_t v) {
        return static_cast<std::uint16_t>(std::clamp<std::int64_t>(v >> 20, 0, max));
    };
    const int sx = coding.chroma_shift_x, sy = coding.chroma_shift_y;
    const int chroma_w = AV_CEIL_RSHIFT(w, sx);
    // The chroma terms of a row of chroma samples, shared by the 2^sy rows of pixels it serves.
    chroma_terms.resize(static_cast<std::size_t>(chroma_w) * 3);
    std::int64_t* terms = chroma_terms.data();
    const std::int64_t* ly = lut_y.data();
    int terms_row = -1;
    for (int y = 0; y < h; ++y) {
        if ((y >> sy) != terms_row) {
            terms_row = y >> sy;
            const std::uint16_t* cb = row_of(plane_of[1], terms_row);
            const std::uint16_t* cr = row_of(plane_of[2], terms_row);
            for (int c = 0; c < chroma_w; ++c) {
                terms[3 * c] = lut_r_cr[cr[c]];
                terms[3 * c + 1] = lut_g_cb[cb[c]] + lut_g_cr[cr[c]];
                terms[3 * c + 2] = lut_b_cb[cb[c]];
            }
        }
        const std::uint16_t* yp = row_of(plane_of[0], y);
        std::uint16_t* o = samples_of(y);
        for (int x = 0; x < w; ++x, o += n) {
            const std::int64_t* t = terms + 3 * (x >> sx);
            const std::int64_t luma = ly[yp[x]];
            o[0] = out_of(luma + t[0]);
            o[1] = out_of(luma + t[1]);
            o[2] = out_of(luma + t[2]);
        }
        put_alpha(y);
    }
}

VideoReader::VideoReader(const Source& source, const DecodeOptions& options)
    : impl_(std::make_unique<Impl>(source)) {
    Impl& v = *impl_;
    v.options = options;
    // Missing, unreadable and empty files get the precise reason rather than "cannot open".
    if (detail::source_head(source, 1).empty()) throw InputError(v.name + " is empty");
    v.open();
}

VideoReader::VideoReader(const std::string& path, const DecodeOptions& options)
    : VideoReader(Source(path, options), options) {}

VideoReader::~VideoReader() = default;

int VideoReader::width() const {
    return impl_->width;
}
int VideoReader::height() const {
    return impl_->height;
}
std::int64_t VideoReader::frame_count() const {
    return impl_->frames;
}
double VideoReader::fps() const {
    return impl_->fps;
}
bool VideoReader::fps_nominal() const {
    return impl_->fps_nominal;
}
std::string VideoReader::codec() const {
    return impl_->codec;
}

void VideoReader::seek(std::int64_t target) {
    Impl& v = *impl_;
    if (target < 0 || (v.frames > 0 && target >= v.frames))
        throw InputError("cannot seek " + v.name + " to frame " + std::to_string(target) +
                         ": it has " + std::to_string(v.frames) + " frames (0.." +
                         std::to_string(v.frames - 1) + ")");
    // Frame numbers need the shift learnt from the first frame decoded from the start.
    if (!v.calibrated && !v.pending) v.pending = v.decode();
    const bool ahead = target >= v.next && (!v.pending || v.pending_number <= target);
    if (!(ahead && target - v.next < 16)) {
        // Back to the key frame at or before the target (the start without an index), then
        // decode forward: read_frame() drops the frames before it, and goes back one key frame
        // more when the target does not come out whole (see read()).
        const auto rank = std::clamp<std::int64_t>(
            target, 0, static_cast<std::int64_t>(v.index_times.size()) - 1);
        v.seek_time = v.index_times.empty()
                          ? (v.stream->start_time != AV_NOPTS_VALUE ? v.stream->start_time : 0)
                          : v.index_times[static_cast<std::size_t>(rank)];
        v.restart(v.seek_time);
        v.seek_target = target;
    }
    v.next = target;
}

std::optional<Image> VideoReader::read() {
    Image img;
    switch (read_frame(img)) {
        case FrameStatus::Ok:
            return img;
        case FrameStatus::End:
            return std::nullopt;
        case FrameStatus::Failed:
            break;
    }
    throw InputError(impl_->failure);
}

VideoReader::FrameStatus VideoReader::read_frame(Image& out) {
    return impl_->read(&out, nullptr);
}

VideoReader::FrameStatus VideoReader::read_frame_into(std::byte* dst) {
    return impl_->read(nullptr, dst);
}

VideoReader::FrameStatus VideoReader::read_first_good(Image& out,
                                                      std::vector<std::string>& failed) {
    failed.clear();
    for (;;) {
        const FrameStatus status = read_frame(out);
        if (status != FrameStatus::Failed) {
            if (status == FrameStatus::End && failed.size() > 1)
                impl_->failure = impl_->name + " holds no frame that decodes: " + failed.front() +
                                 ", and the " + std::to_string(failed.size() - 1) +
                                 " after it fail too";
            return status;
        }
        failed.push_back(impl_->failure);
    }
}

VideoReader::FrameStatus VideoReader::Impl::read(Image* out, std::byte* dst) {
    Impl& v = *this;
    for (;;) {
        if (!v.pending && !(v.pending = v.decode())) {
            // The decoder has given all it could before the last frame the container declares
            // (a file cut short): each frame after is reported in its place, then the end.
            if (v.next >= v.frames) return FrameStatus::End;
            v.seek_target = -1;
            v.failure = "frame " + std::to_string(v.next++) + " of " + v.name +
                        " could not be decoded (" + v.after_the_end() + ")";
            return FrameStatus::Failed;
        }
        if (v.pending_number < v.next) {  // before a seek's target, or repeated
            v.pending = false;
            continue;
        }
        const std::int64_t number = v.next++;
        const std::string what = "frame " + std::to_string(number) + " of " + v.name;
        if (number == v.seek_target && (v.pending_number > number || v.pending_corrupt)) {
            // The frame a seek asked for did not come out whole: it may be a leading picture of
            // an open-GOP key frame (shown before it, decoded after it, referring to frames
            // before it), which a decoder skips or decodes without its references when it
            // starts from that key frame. An index of decoding times (MP4) lands on such a key
            // frame for a target just before it. The key frame before the one the seek started
            // from is decoded and shown before the target and its references; damage, if that
            // is what it was, shows again from there.
            v.seek_target = -1;
            const auto key = std::upper_bound(v.key_times.begin(), v.key_times.end(), v.seek_time);
            if (key - v.key_times.begin() >= 2) {
                --v.next;
                v.restart(*std::prev(key, 2));
                continue;
            }
        }
        v.seek_target = -1;
        if (v.pending_number > number) {
            const bool missing =
                std::binary_search(v.lost_numbers.begin(), v.lost_numbers.end(), number) ||
                std::any_of(v.gaps.begin(), v.gaps.end(), [&](const auto& g) {
                    return g.missing && number >= g.first && number < g.end;
                });
            v.failure =
                what + " could not be decoded (" +
                (missing ? "its data is missing from the file: damaged or cut" : v.gap_reason) +
                ")";
            return FrameStatus::Failed;
        }
        v.pending = false;
        if (v.pending_corrupt && !v.options.allow_corrupt) {
            v.failure = what + " is corrupt (" + v.pending_reason + ")";
            return FrameStatus::Failed;
        }
        if (v.want_planes || v.want_rgb) {
            if (!v.coding_known || v.frame->format != v.learnt_pixels)
                v.learn_coding(static_cast<AVPixelFormat>(v.frame->format));
            if (v.want_planes && v.coding.family != "ycbcr") {
                v.failure = what + " is coded " + v.coding.pixel_format + ", without Y'CbCr planes";
                return FrameStatus::Failed;
            }
            // Converted Y'CbCr is clamped to the depth; planes kept, or copied as they are (R'G'B',
            // gray, alpha), are checked.
            if (v.planes_overflow(v.want_planes || v.coding.family != "ycbcr")) {
                v.failure = what + " holds samples above its coded depth of " +
                            std::to_string(v.coding.bit_depth) + " bits";
                return FrameStatus::Failed;
            }
        }
        if (v.want_rgb && out != nullptr) v.convert(*out);
        if (v.want_rgb && dst != nullptr) {
            // The caller's buffer holds frames of the declared format: a frame of another
            // size or depth cannot go there.
            if (!v.declared_format) v.declared_format = v.format_of_frame();
            const FrameFormat f = v.format_of_frame();
            if (f != *v.declared_format)
                throw InputError(what + " is " + f.describe() + ", not " +
                                 v.declared_format->describe() + " as the frames before it");
            v.convert_into(dst);
        }
        v.corrupt = v.pending_corrupt;
        if (v.corrupt) v.failure = what + " is corrupt (" + v.pending_reason + ")";
        return FrameStatus::Ok;
    }
}

std::int64_t VideoReader::position() const {
    return impl_->next;
}

double VideoReader::frame_time(std::int64_t frame) const {
    const Impl& v = *impl_;
    // Frame numbers are ranks in index_times (number_of()): a frame's time is its entry's.
    const double period = v.fps > 0.0 ? 1.0 / v.fps : 0.0;
    const auto entries = static_cast<std::int64_t>(v.index_times.size());
    if (entries == 0 || frame < 0) return static_cast<double>(frame) * period;
    const std::int64_t at = std::min(frame, entries - 1);
    return static_cast<double>(v.index_times[static_cast<std::size_t>(at)] -
                               v.index_times.front()) *
               av_q2d(v.stream->time_base) +
           static_cast<double>(frame - at) * period;
}

const VideoCoding& VideoReader::coding() const {
    Impl& v = *impl_;
    if (!v.coding_known) {
        // The header did not say: the first frame does (read_frame() delivers it later).
        if (!v.pending && !v.calibrated) v.pending = v.decode();
        if (!v.pending)
            throw InputError(v.name + ": no frame decodes, so its pixel format is unknown");
        v.learn_coding(static_cast<AVPixelFormat>(v.frame->format));
    }
    return v.coding;
}

FrameFormat VideoReader::frame_format() const {
    Impl& v = *impl_;
    if (!v.declared_format) {
        const VideoCoding& c = coding();
        v.declared_format = c.bit_depth <= 8 ? FrameFormat{v.width, v.height, 3, SampleType::U8, 8}
                                             : FrameFormat{v.width, v.height, c.frame_channels(),
                                                           SampleType::U16, c.bit_depth};
    }
    return *v.declared_format;
}

void VideoReader::set_rgb(bool convert) {
    impl_->want_rgb = convert;
}

void VideoReader::set_planes(bool keep) {
    if (keep && coding().family != "ycbcr")
        throw InputError(impl_->name + " has no Y'CbCr planes: its pixels are coded " +
                         coding().pixel_format);
    impl_->want_planes = keep;
}

VideoPlanes VideoReader::planes() const {
    const Impl& v = *impl_;
    if (!v.want_planes || v.frame == nullptr || v.frame->data[0] == nullptr ||
        v.frame->format != v.learnt_pixels)
        throw InputError("no planes of " + v.name + " were kept (set_planes(true), then read)");
    const VideoCoding& c = v.coding;
    const auto view = [&](int i) {
        const int sx = i == 0 ? 0 : c.chroma_shift_x, sy = i == 0 ? 0 : c.chroma_shift_y;
        const int p = v.plane_of[i];
        if (v.frame->linesize[p] <= 0)
            throw InputError("the frames of " + v.name + " are stored bottom-up");
        ImageView plane;
        plane.data = reinterpret_cast<const std::byte*>(v.frame->data[p]);
        plane.width = AV_CEIL_RSHIFT(v.frame->width, sx);
        plane.height = AV_CEIL_RSHIFT(v.frame->height, sy);
        plane.channels = 1;
        plane.type = c.bit_depth > 8 ? SampleType::U16 : SampleType::U8;
        plane.bit_depth = c.bit_depth > 8 ? c.bit_depth : 8;
        plane.stride = static_cast<std::size_t>(v.frame->linesize[p]);
        return plane;
    };
    return {view(0), view(1), view(2)};
}

bool VideoReader::frames_counted() const {
    return impl_->scanned;
}

std::string VideoReader::missing_frames() const {
    return impl_->missing_reason;
}

bool VideoReader::corrupt() const {
    return impl_->corrupt;
}

const std::string& VideoReader::failure() const {
    return impl_->failure;
}

std::int64_t VideoReader::frames_in_file() const {
    const Impl& v = *impl_;
    if (v.frames_within_file >= 0) return v.frames_within_file;
    // No index: count the stream's packets with data, demuxing a second copy of the input.
    Capture log;
    Demuxer copy;
    if (copy.open(v.source) < 0) return 0;
    std::int64_t n = 0;
    AVPacket* p = av_packet_alloc();
    while (p != nullptr && av_read_frame(copy.format(), p) >= 0) {
        if (p->stream_index == v.stream->index && p->size > 0) ++n;
        av_packet_unref(p);
    }
    av_packet_free(&p);
    return n;
}

// --- writing: FFmpeg's encoders and muxers, every byte through the AtomicFile

namespace {

// The container and codec of an output extension: .mp4 MPEG-4 Part 2 ("mp4v"), .avi Motion
// JPEG, .mkv MPEG-4 Part 2 tagged "XVID", as OpenCV's writer chose them.
struct OutputKind {
    const char* muxer = nullptr;
    AVCodecID codec = AV_CODEC_ID_NONE;
    AVPixelFormat pixels = AV_PIX_FMT_NONE;
    std::uint32_t tag = 0;  // the codec tag the container stores (0: the muxer's default)
    int bitrate_scale = 1;
};

// FFV1's planar layout that holds `f`'s samples (deep gray, R'G'B' or R'G'B'A) exactly: the
// first of its depths at least the frame's.
AVPixelFormat lossless_pixels(const FrameFormat& f) {
    const int d = f.bit_depth;
    if (f.channels == 1)
        return d <= 9    ? AV_PIX_FMT_GRAY9LE
               : d <= 10 ? AV_PIX_FMT_GRAY10LE
               : d <= 12 ? AV_PIX_FMT_GRAY12LE
                         : AV_PIX_FMT_GRAY16LE;
    if (f.channels == 4)
        return d <= 10   ? AV_PIX_FMT_GBRAP10LE
               : d <= 12 ? AV_PIX_FMT_GBRAP12LE
                         : AV_PIX_FMT_GBRAP16LE;
    return d <= 9    ? AV_PIX_FMT_GBRP9LE
           : d <= 10 ? AV_PIX_FMT_GBRP10LE
           : d <= 12 ? AV_PIX_FMT_GBRP12LE
           : d <= 14 ? AV_PIX_FMT_GBRP14LE
                     : AV_PIX_FMT_GBRP16LE;
}

std::optional<OutputKind> output_kind(const std::string& path, const FrameFormat& f) {
    const std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : std::string();
    if (f.type == SampleType::U16)
        return ext == ".mkv" ? std::optional<OutputKind>(OutputKind{"matroska", AV_CODEC_ID_FFV1,
                                                                    lossless_pixels(f), 0, 1})
                             : std::nullopt;
    if (ext == ".mp4") return OutputKind{"mp4", AV_CODEC_ID_MPEG4, AV_PIX_FMT_YUV420P, 0, 1};
    // Full-range YUV, as JPEG stores it; MJPEG spends more bits per pixel than MPEG-4.
    if (ext == ".avi") return OutputKind{"avi", AV_CODEC_ID_MJPEG, AV_PIX_FMT_YUVJ420P, 0, 3};
    if (ext == ".mkv")
        return OutputKind{"matroska", AV_CODEC_ID_MPEG4, AV_PIX_FMT_YUV420P,
                          MKTAG('X', 'V', 'I', 'D'), 1};
    return std::nullopt;
}

// FFmpeg's byte writer before and after it took const bytes.
#if defined(FF_API_AVIO_WRITE_NONCONST) && !FF_API_AVIO_WRITE_NONCONST
using WrittenBytes = const std::uint8_t*;
#else
using WrittenBytes = std::uint8_t*;
#endif

}  // namespace

struct VideoWriter::Impl {
    std::string name;
    std::unique_ptr<AtomicFile> file;  // every byte the muxer writes goes here
    std::string io_failure;            // the first write or seek that failed, in our words
    AVFormatContext* muxer = nullptr;
    AVIOContext* io = nullptr;
    AVCodecContext* encoder = nullptr;
    AVStream* stream = nullptr;
    SwsContext* sws = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    int width = 0, height = 0;
    FrameFormat format;
    AVRational rate{25, 1};  // frames a second: the encoder's time base is a period
    // The container cannot hold a gap between frames (AVI): the frame before is repeated.
    bool repeats = false;
    std::int64_t last_pts = -1;  // of the frame written last (-1: none yet)
    bool header_written = false;
    bool finished = false;

    ~Impl() {
        av_packet_free(&packet);
        av_frame_free(&frame);
        sws_freeContext(sws);
        avcodec_free_context(&encoder);
        if (muxer != nullptr) avformat_free_context(muxer);
        if (io != nullptr) {
            av_freep(&io->buffer);
            avio_context_free(&io);
        }
    }

    static int write_bytes(void* opaque, WrittenBytes data, int size) {
        auto& w = *static_cast<Impl*>(opaque);
        try {
            w.file->write({reinterpret_cast<const char*>(data), static_cast<std::size_t>(size)});
            return size;
        } catch (const std::exception& e) {
            if (w.io_failure.empty()) w.io_failure = e.what();
            return AVERROR(EIO);
        }
    }
    static std::int64_t seek_bytes(void* opaque, std::int64_t offset, int whence) {
        auto& w = *static_cast<Impl*>(opaque);
        try {
            if ((whence & ~AVSEEK_FORCE) == AVSEEK_SIZE) {
                const std::int64_t here = w.file->seek(0, SEEK_CUR);
                const std::int64_t size = w.file->seek(0, SEEK_END);
                w.file->seek(here, SEEK_SET);
                return size;
            }
            return w.file->seek(offset, whence & ~AVSEEK_FORCE);
        } catch (const std::exception& e) {
            if (w.io_failure.empty()) w.io_failure = e.what();
            return AVERROR(EIO);
        }
    }

    // Throws for an FFmpeg call that failed: the write's own reason when a write failed (a
    // full disk), else FFmpeg's.
    void check(int result, const char* what) const {
        if (result >= 0) return;
        if (!io_failure.empty()) throw InputError(io_failure);
        throw InputError("cannot write video " + name + ": " + what + " failed (" +
                         av_error(result) + ")");
    }

    // The frame `rgb` at `pts` (in periods; after the last one written): converted into
    // `frame`, the gap before it filled where the container holds none.
    void write_at(const ImageView& rgb, std::int64_t pts);
    // `frame` encoded at `pts` (from 0 where a container without gaps starts later).
    void encode_at(std::int64_t pts);
    // Every packet the encoder has ready into the container; `frame` null drains it.
    void encode(const AVFrame* input) {
        check(avcodec_send_frame(encoder, input), "encoding a frame");
        for (;;) {
            const int got = avcodec_receive_packet(encoder, packet);
            if (got == AVERROR(EAGAIN) || got == AVERROR_EOF) return;
            check(got, "encoding a frame");
            av_packet_rescale_ts(packet, encoder->time_base, stream->time_base);
            packet->stream_index = stream->index;
            check(av_interleaved_write_frame(muxer, packet), "writing a frame");
        }
    }
};

VideoWriter::VideoWriter(const std::string& path, int width, int height, double fps)
    : VideoWriter(path, FrameFormat{width, height, 3, SampleType::U8, 8}, fps) {}

VideoWriter::VideoWriter(const std::string& path, const FrameFormat& format, double fps,
                         const Colour& colour)
    : impl_(std::make_unique<Impl>()) {
    Impl& w = *impl_;
    w.name = detail::quoted(path);
    w.width = format.width;
    w.height = format.height;
    w.format = format;
    const int width = format.width, height = format.height;
    const bool deep = format.type == SampleType::U16;
    if (const std::string problem = video_output_problem(path, format); !problem.empty())
        throw InputError("cannot write video " + w.name + ": " + problem);
    const OutputKind kind = *output_kind(path, format);  // video_output_problem() passed it
    if (width <= 0 || height <= 0)
        throw InputError("cannot write a " + std::to_string(width) + "x" + std::to_string(height) +
                         " video to " + w.name);
    if (!(fps > 0.0) || !std::isfinite(fps)) fps = 25.0;
    quiet_ffmpeg();
    const Capture log;
    w.file = std::make_unique<AtomicFile>(path);
    const auto fail = [&](const std::string& why) {
        return InputError("cannot open " + w.name + " for writing video: " + why + log.detail());
    };

    if (avformat_alloc_output_context2(&w.muxer, nullptr, kind.muxer, nullptr) < 0 ||
        w.muxer == nullptr)
        throw fail("no " + std::string(kind.muxer) + " muxer");
    const AVCodec* codec = avcodec_find_encoder(kind.codec);
    if (codec == nullptr)
        throw fail("no " + std::string(avcodec_get_name(kind.codec)) + " encoder");
    w.encoder = avcodec_alloc_context3(codec);
    w.frame = av_frame_alloc();
    w.packet = av_packet_alloc();
    if (w.encoder == nullptr || w.frame == nullptr || w.packet == nullptr) throw std::bad_alloc();

    // The frame rate as a fraction small enough for MPEG-4 (a time base of at most 65535).
    const AVRational rate = av_d2q(fps, 65535);
    w.rate = rate;
    w.repeats = std::string_view(kind.muxer) == "avi";
    AVCodecContext& c = *w.encoder;
    c.codec_id = kind.codec;
    c.codec_type = AVMEDIA_TYPE_VIDEO;
    // Even sizes, as OpenCV's writer made them (swscale needs them for 4:2:0): an odd last
    // column or row is left out. FFV1's R'G'B' planes keep every pixel.
    c.width = deep ? width : width & ~1;
    c.height = deep ? height : height & ~1;
    if (c.width == 0 || c.height == 0)
        throw fail("a " + std::to_string(width) + "x" + std::to_string(height) +
                   " frame is too small for 4:2:0 video");
    c.pix_fmt = kind.pixels;
    c.time_base = av_inv_q(rate);
    c.framerate = rate;
    if (const int t = av_color_transfer_from_name(colour.transfer.c_str()); t > 0)
        c.color_trc = static_cast<AVColorTransferCharacteristic>(t);
    if (const int p = av_color_primaries_from_name(colour.primaries.c_str()); p > 0)
        c.color_primaries = static_cast<AVColorPrimaries>(p);
    if (deep) {
        // Lossless, every frame a key frame (as archives write FFV1: each frame decodes alone,
        // so seeking is exact), version 3 with its slices' checksums, on the encoder's threads.
        c.level = 3;
        c.gop_size = 1;
        c.thread_count = 0;
        c.color_range = AVCOL_RANGE_JPEG;
        c.colorspace = format.channels == 1 ? AVCOL_SPC_UNSPECIFIED : AVCOL_SPC_RGB;
        av_opt_set_int(c.priv_data, "slicecrc", 1, 0);
    } else {
        // OpenCV's choices: a rate of 2 bits a pixel (6 for MJPEG) with as much tolerance, no
        // quantizer finer than 3, a key frame at least every 12 frames.
        const double bitrate = std::min(2.0 * kind.bitrate_scale * fps * c.width * c.height,
                                        static_cast<double>(std::numeric_limits<int>::max()));
        c.bit_rate = static_cast<std::int64_t>(bitrate);
        c.bit_rate_tolerance = static_cast<int>(bitrate);
        c.qmin = 3;
        c.gop_size = 12;
        c.thread_count = 1;
    }
    if (kind.tag != 0) c.codec_tag = kind.tag;
    if ((w.muxer->oformat->flags & AVFMT_GLOBALHEADER) != 0) c.flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (const int r = avcodec_open2(w.encoder, codec, nullptr); r < 0)
        throw fail("the " + std::string(codec->name) + " encoder does not open (" + av_error(r) +
                   ")");

    w.stream = avformat_new_stream(w.muxer, nullptr);
    if (w.stream == nullptr) throw std::bad_alloc();
    w.stream->time_base = c.time_base;
    w.stream->avg_frame_rate = rate;
    w.stream->r_frame_rate = rate;
    if (avcodec_parameters_from_context(w.stream->codecpar, w.encoder) < 0) throw std::bad_alloc();
    if (kind.tag != 0) w.stream->codecpar->codec_tag = kind.tag;

    constexpr int kBufferBytes = 1 << 16;
    auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferBytes));
    if (buffer == nullptr) throw std::bad_alloc();
    // A device or FIFO written directly cannot seek: the muxer is told (MP4 then refuses).
    w.io = avio_alloc_context(buffer, kBufferBytes, 1, &w, nullptr, &Impl::write_bytes,
                              w.file->seekable() ? &Impl::seek_bytes : nullptr);
    if (w.io == nullptr) {
        av_free(buffer);
        throw std::bad_alloc();
    }
    w.muxer->pb = w.io;
    w.muxer->flags |= AVFMT_FLAG_CUSTOM_IO;
    w.muxer->max_delay = static_cast<int>(0.7 * AV_TIME_BASE);
    if (const int r = avformat_write_header(w.muxer, nullptr); r < 0) {
        if (!w.io_failure.empty()) throw InputError(w.io_failure);
        throw fail("the " + std::string(kind.muxer) + " container refuses it (" + av_error(r) +
                   ")");
    }
    w.header_written = true;

    w.frame->format = c.pix_fmt;
    w.frame->width = deep ? c.width : width;
    w.frame->height = deep ? c.height : height;
    if (av_frame_get_buffer(w.frame, 0) < 0) throw std::bad_alloc();
    if (deep) return;  // write() puts the samples in the planes as they are
    // RGB to YUV as OpenCV's writer converted its frames (swscale, bicubic).
    w.sws = sws_getContext(width, height, AV_PIX_FMT_RGB24, width, height, c.pix_fmt, SWS_BICUBIC,
                           nullptr, nullptr, nullptr);
    if (w.sws == nullptr) throw fail("no RGB to YUV conversion for this size");
}

// Without close(), the AtomicFile discards the temporary file: a half-written video never
// replaces anything.
VideoWriter::~VideoWriter() = default;

void VideoWriter::Impl::write_at(const ImageView& rgb, std::int64_t pts) {
    Impl& w = *this;
    if (!w.format.matches(rgb))
        throw InputError("cannot write a " + FrameFormat::of(rgb).describe() + " frame to " +
                         w.name + " (" + w.format.describe() + ")");
    if (w.finished) throw InputError("cannot write to " + w.name + ": it is closed");
    const Capture log;
    // A container whose frames all last one period: the frame before fills the gap, up to a
    // bound (a hostile input's times could ask for any number of repeats).
    constexpr std::int64_t kMostRepeats = 1 << 16;
    if (w.repeats && pts - (w.last_pts + 1) > kMostRepeats)
        throw InputError("cannot write video " + w.name + ": a gap of " +
                         std::to_string(pts - (w.last_pts + 1)) +
                         " frame periods before a frame, which an .avi file holds only as "
                         "repeated frames (at most " +
                         std::to_string(kMostRepeats) + "); write .mkv or .mp4");
    if (w.repeats && w.last_pts >= 0)
        while (w.last_pts + 1 < pts) {
            w.frame->pts = ++w.last_pts;
            w.encode(w.frame);
        }
    w.check(av_frame_make_writable(w.frame), "preparing a frame");
    if (w.format.type == SampleType::U16) {
        // Interleaved R, G, B(, A) into FFV1's planes G, B, R(, A); gray into its one plane.
        const int n = rgb.channels;
        const int plane_of_channel[4] = {n == 1 ? 0 : 2, 0, 1, 3};
        for (int c = 0; c < n; ++c) {
            const int p = plane_of_channel[c];
            for (int y = 0; y < rgb.height; ++y) {
                const auto* in = reinterpret_cast<const std::uint16_t*>(rgb.row(y)) + c;
                auto* out = reinterpret_cast<std::uint16_t*>(
                    w.frame->data[p] + std::ptrdiff_t{y} * w.frame->linesize[p]);
                for (int x = 0; x < rgb.width; ++x) out[x] = in[static_cast<std::ptrdiff_t>(x) * n];
            }
        }
        w.encode_at(pts);
        return;
    }
    const auto* rows = reinterpret_cast<const std::uint8_t*>(rgb.data);
    const int stride = static_cast<int>(rgb.stride);
    if (sws_scale(w.sws, &rows, &stride, 0, w.frame->height, w.frame->data, w.frame->linesize) !=
        w.frame->height)
        throw InputError("cannot write video " + w.name + ": converting a frame to YUV failed");
    w.encode_at(pts);
}

void VideoWriter::Impl::encode_at(std::int64_t pts) {
    // The first frame of a container without gaps fills the time before it.
    for (std::int64_t p = repeats && last_pts < 0 ? 0 : pts; p <= pts; ++p) {
        frame->pts = p;
        encode(frame);
    }
    last_pts = pts;
}

void VideoWriter::write(const ImageView& rgb) {
    impl_->write_at(rgb, impl_->last_pts + 1);
}

void VideoWriter::write(const ImageView& rgb, double seconds) {
    Impl& w = *impl_;
    const double ticks = seconds * av_q2d(w.rate);
    const std::int64_t pts = std::isfinite(ticks) && ticks > 0.0
                                 ? static_cast<std::int64_t>(std::llround(std::min(ticks, 9.0e15)))
                                 : 0;
    w.write_at(rgb, std::max(pts, w.last_pts + 1));
}

void VideoWriter::close() {
    Impl& w = *impl_;
    if (w.finished) return;
    w.finished = true;
    const Capture log;
    // The frames the encoder still holds, then the container's trailer (an AVI's or MKV's
    // index, an MP4's moov): a video without them is not complete.
    w.encode(nullptr);
    w.check(av_write_trailer(w.muxer), "writing the container's index");
    avio_flush(w.io);
    w.check(w.io->error, "writing the container");
    w.file->commit();
}

bool is_video_path(const std::string& path) {
    const std::string ext = path.size() >= 4 ? path.substr(path.size() - 4) : std::string();
    return ext == ".mp4" || ext == ".avi" || ext == ".mkv";
}

std::string video_output_problem(const std::string& path, const FrameFormat& format) {
    if (!is_video_path(path)) return "the extension must be .mp4, .avi or .mkv";
    if (format.type == SampleType::U8)
        return format.channels == 3 ? std::string()
                                    : "an 8-bit video file holds R, G, B frames; write " +
                                          format.describe() + " frames to a .raw file";
    if (format.type != SampleType::U16 || format.channels == 2 || format.channels > 4 ||
        format.bit_depth <= 8 || format.bit_depth > 16)
        return "no video holds " + format.describe() + " frames; write them to a .raw file";
    if (!output_kind(path, format))
        return "frames deeper than 8 bits (" + format.describe() +
               ") are written losslessly as FFV1 in a .mkv file, or to a .raw file";
    return "";
}

namespace detail {

namespace {

// How sure FFmpeg is that `head`, the first bytes of an input, start a container it knows
// (0: it does not know them).
int container_score(Bytes head) {
    std::vector<std::uint8_t> padded(head.size() + AVPROBE_PADDING_SIZE, 0);
    std::copy(head.begin(), head.end(), padded.begin());
    AVProbeData probe{};
    probe.buf = padded.data();
    probe.buf_size = static_cast<int>(head.size());
    probe.filename = "";
    int score = 0;
    return av_probe_input_format3(&probe, 1, &score) != nullptr ? score : 0;
}

}  // namespace

bool may_be_video(Bytes head) {
    return container_score(head) > 0;
}

std::optional<std::string> video_problem(const Source& source, const DecodeOptions& options) {
    try {
        // The reader's options: a frame that the command's reader would deliver (allow_corrupt)
        // is one here, and so is the size limit it would allow.
        VideoReader video(source, options);
        video.set_rgb(false);  // a frame that decodes is all probing asks (not its colours)
        Image frame;
        std::vector<std::string> failed;
        if (video.read_first_good(frame, failed) == VideoReader::FrameStatus::Ok)
            return std::string();
        return source.name() + " holds no frame that decodes";
    } catch (const InputError& e) {
        // An input FFmpeg recognises from its content (not just its extension) is a damaged
        // video, whose reason matters more than "not a video".
        if (container_score(source_head(source, 1 << 12)) > AVPROBE_SCORE_EXTENSION)
            return std::string(e.what());
        return std::nullopt;
    }
}

}  // namespace detail

}  // namespace hs::media
