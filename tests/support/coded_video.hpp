#pragma once
// Video clips of known code values, made for the tests by Debian's ffmpeg tool: frames whose
// Y', Cb, Cr (and alpha) samples follow value() are written as raw planes and encoded (losslessly
// where the codec can: x265's lossless mode, FFV1), so that every count a test expects comes
// from value() and nothing else; and the same tool's decode of a clip, an independent
// reference for the lossy ones (ProRes).

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace hs::test {

struct CodedClip {
    int width = 96, height = 64, frames = 6;
    int depth = 10;
    int shift_x = 1, shift_y = 1;  // log2 of the chroma subsampling (4:2:0)
    bool alpha = false;
    std::string pix_fmt = "yuv420p10le";  // ffmpeg's name of that layout

    int planes() const { return alpha ? 4 : 3; }
    bool chroma(int plane) const { return plane == 1 || plane == 2; }
    int plane_width(int plane) const {
        return chroma(plane) ? (width + (1 << shift_x) - 1) >> shift_x : width;
    }
    int plane_height(int plane) const {
        return chroma(plane) ? (height + (1 << shift_y) - 1) >> shift_y : height;
    }
    std::uint32_t max_value() const { return (1u << depth) - 1u; }

    // The code value of plane `plane` at (x, y) of frame `frame`: a hash of all four, so that
    // planes, frames and positions cannot stand in for each other, over the whole code range
    // (also outside a limited range's nominal span: lossless codecs keep every code value).
    std::uint32_t value(int plane, int x, int y, int frame) const {
        std::uint32_t v = static_cast<std::uint32_t>(x) * 73856093u ^
                          static_cast<std::uint32_t>(y) * 19349663u ^
                          static_cast<std::uint32_t>(frame) * 83492791u ^
                          static_cast<std::uint32_t>(plane + 1) * 2654435761u;
        v ^= v >> 13;
        v *= 0x5bd1e995u;
        v ^= v >> 15;
        return v & max_value();
    }

    // Every frame, plane after plane, as ffmpeg's rawvideo reads pix_fmt (little-endian).
    std::vector<std::uint8_t> raw() const {
        std::vector<std::uint8_t> out;
        for (int f = 0; f < frames; ++f)
            for (int p = 0; p < planes(); ++p)
                for (int y = 0; y < plane_height(p); ++y)
                    for (int x = 0; x < plane_width(p); ++x) {
                        const std::uint32_t v = value(p, x, y, f);
                        out.push_back(static_cast<std::uint8_t>(v & 0xFFu));
                        if (depth > 8) out.push_back(static_cast<std::uint8_t>(v >> 8));
                    }
        return out;
    }

    // Counts of plane `plane` of frame `frame` (or of its samples in [x0, x1) x [y0, y1)), one
    // bin per code value.
    std::vector<std::uint64_t> plane_counts(int plane, int frame, int x0 = 0, int y0 = 0,
                                            int x1 = -1, int y1 = -1) const {
        if (x1 < 0) x1 = plane_width(plane);
        if (y1 < 0) y1 = plane_height(plane);
        std::vector<std::uint64_t> counts(std::size_t{1} << depth);
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) ++counts[value(plane, x, y, frame)];
        return counts;
    }
};

inline std::string shell_quote(const std::filesystem::path& p) {
    std::string s = "'";
    for (char c : p.string()) s += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return s + "'";
}

// Encodes `clip` into `out` with ffmpeg's `codec` options (e.g. "-c:v ffv1"); "" when it worked,
// else what ffmpeg said.
inline std::string encode_clip(const CodedClip& clip, const std::filesystem::path& out,
                               const std::string& codec) {
    const std::filesystem::path raw = out.string() + ".raw";
    {
        const std::vector<std::uint8_t> bytes = clip.raw();
        std::ofstream f(raw, std::ios::binary | std::ios::trunc);
        f.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
        if (!f) return "cannot write " + raw.string();
    }
    const CommandResult r = run_command(
        "ffmpeg -nostdin -hide_banner -loglevel error -y -f rawvideo -pix_fmt " + clip.pix_fmt +
        " -s " + std::to_string(clip.width) + "x" + std::to_string(clip.height) + " -r 24 -i " +
        shell_quote(raw) + " " + codec + " " + shell_quote(out));
    std::filesystem::remove(raw);
    if (r.exit_code != 0 || !std::filesystem::exists(out))
        return "ffmpeg exited " + std::to_string(r.exit_code) + ": " + r.err;
    return "";
}

// The frames of `clip` as the ffmpeg tool decodes them, as raw `pix_fmt` (no conversion when
// it is the decoder's own format); empty when it fails.
inline std::vector<std::uint8_t> ffmpeg_decode(const std::filesystem::path& clip,
                                               const std::string& pix_fmt) {
    const std::filesystem::path out = clip.string() + ".decoded";
    const CommandResult r =
        run_command("ffmpeg -nostdin -hide_banner -loglevel error -y -i " + shell_quote(clip) +
                    " -f rawvideo -pix_fmt " + pix_fmt + " " + shell_quote(out));
    if (r.exit_code != 0) return {};
    const std::string bytes = slurp(out);
    std::filesystem::remove(out);
    return {bytes.begin(), bytes.end()};
}

// The file position and size of every packet of the video stream of `clip`, in file order, as
// the ffprobe tool finds them; empty when it fails.
struct PacketSpan {
    std::size_t pos = 0, size = 0;
};
inline std::vector<PacketSpan> video_packets(const std::filesystem::path& clip) {
    const CommandResult r = run_command(
        "ffprobe -v error -select_streams v:0 -show_entries packet=pos,size -of compact " +
        shell_quote(clip));
    std::vector<PacketSpan> out;
    if (r.exit_code != 0) return out;
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
        PacketSpan p;
        const auto field = [&](const std::string& name) -> std::size_t {
            const std::size_t at = line.find(name + "=");
            return at == std::string::npos ? 0 : std::stoul(line.substr(at + name.size() + 1));
        };
        p.pos = field("pos");
        p.size = field("size");
        if (p.size > 0) out.push_back(p);
    }
    return out;
}

}  // namespace hs::test
