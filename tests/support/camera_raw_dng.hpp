#pragma once
// Camera raw DNGs for the tests, written by tests/support/make_dng.py with numpy and tifffile
// (Debian's python3-numpy and python3-tifffile), with numpy's counts of the same mosaic beside
// them: every count a test expects comes from numpy, not from Histoscope or LibRaw.

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "run_command.hpp"

namespace hs::test {

// What make_dng.py makes (its options).
struct DngSpec {
    int width = 64, height = 48;
    // The CFA's colours row by row: a 2x2 Bayer pattern (RGGB, BGGR, GRBG, GBRG) has numpy's
    // counts written beside it; any other square of R, G, B, C, M, Y, W ("RGGW", a 6x6 X-Trans)
    // has none.
    std::string pattern = "RGGB";
    std::string planes;         // CFAPlaneColor in plane order ("BGR"); "": the pattern's, by code
    std::string black = "256";  // one level, or four: one per 2x2 position ("100,110,120,130")
    int white = 4095;
    int above = 0;  // values up to white + above occur
    int seed = 1;
    bool linear = false;  // a linear DNG: R, G, B at every photosite, no mosaic
    std::string make = "Histoscope", model = "Test Sensor";
    int iso = 400;
    std::string exposure = "1/250", fnumber = "5.6", focal = "35";
    std::string datetime = "2024:05:17 10:20:30";
    std::string neutral = "1,1,1";  // AsShotNeutral: the white balance multiplies by its inverse
    std::string extra;  // more options: "--truncate N", "--damage FROM:TO", "--declare WxH"
};

// numpy's counts of one CFA colour over the whole 2x2 quads.
struct CfaTruth {
    int x = 0, y = 0;  // its position in the 2x2 pattern
    std::uint64_t total = 0, at_or_below_black = 0, at_or_above_white = 0, left_out = 0;
    std::uint32_t black = 0;
    std::map<std::uint32_t, std::uint64_t> counts;  // code value: photosites
    // One bin per code value of a `depth`-bit histogram.
    std::vector<std::uint64_t> histogram(int depth) const {
        std::vector<std::uint64_t> h(std::size_t{1} << depth, 0);
        for (const auto& [v, n] : counts)
            if (v < h.size()) h[v] = n;
        return h;
    }
};

struct DngTruth {
    std::string pattern;
    std::uint32_t white = 0;
    std::map<std::string, CfaTruth> colours;  // "r", "g1", "g2", "b"
};

inline std::string shell_word(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

inline bool bayer_pattern(const std::string& p) {
    return p == "RGGB" || p == "BGGR" || p == "GRBG" || p == "GBRG";
}

// Writes `spec` to `path` (and, for a Bayer pattern, numpy's counts to `path`.txt); "" when it
// worked, else what the script said.
inline std::string make_dng(const DngSpec& spec, const std::filesystem::path& path) {
    std::ostringstream cmd;
    cmd << shell_word(HS_TEST_PYTHON) << " " << shell_word(HS_MAKE_DNG) << " "
        << shell_word(path.string());
    if (bayer_pattern(spec.pattern)) cmd << " --truth " << shell_word(path.string() + ".txt");
    if (!spec.planes.empty()) cmd << " --planes " << spec.planes;
    cmd << " --width " << spec.width << " --height " << spec.height << " --pattern " << spec.pattern
        << " --black " << spec.black << " --white " << spec.white << " --above " << spec.above
        << " --seed " << spec.seed << " --make " << shell_word(spec.make) << " --model "
        << shell_word(spec.model) << " --iso " << spec.iso << " --exposure " << spec.exposure
        << " --fnumber " << spec.fnumber << " --focal " << spec.focal << " --datetime "
        << shell_word(spec.datetime) << " --neutral " << spec.neutral
        << (spec.linear ? " --linear" : "") << " " << spec.extra;
    const CommandResult r = run_command(cmd.str());
    if (r.exit_code != 0 || !std::filesystem::exists(path))
        return "make_dng.py exited " + std::to_string(r.exit_code) + ": " + r.err;
    return "";
}

// numpy's counts that make_dng() wrote beside `path`.
inline DngTruth read_truth(const std::filesystem::path& path) {
    DngTruth t;
    std::ifstream in(path.string() + ".txt");
    for (std::string line; std::getline(in, line);) {
        std::istringstream words(line);
        std::string kind, name;
        words >> kind;
        if (kind == "pattern") words >> t.pattern;
        if (kind == "white") words >> t.white;
        if (kind == "colour") {
            CfaTruth& c = t.colours[(words >> name, name)];
            std::string key;
            words >> c.x >> c.y;
            while (words >> key) {
                if (key == "total") words >> c.total;
                if (key == "black") words >> c.black;
                if (key == "at_or_below_black") words >> c.at_or_below_black;
                if (key == "at_or_above_white") words >> c.at_or_above_white;
                if (key == "left_out") words >> c.left_out;
            }
        }
        if (kind == "counts") {
            CfaTruth& c = t.colours[(words >> name, name)];
            for (std::string pair; words >> pair;) {
                const auto colon = pair.find(':');
                c.counts[static_cast<std::uint32_t>(std::stoul(pair.substr(0, colon)))] =
                    std::stoull(pair.substr(colon + 1));
            }
        }
    }
    return t;
}

}  // namespace hs::test
