#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include <gtest/gtest.h>

#include "histoscope/core/image.hpp"
#include "json.hpp"
#include "run_command.hpp"

namespace hs::test {

inline std::string cli() {
    return std::string("'") + HS_CLI_PATH + "'";
}
inline CommandResult run_cli(const std::string& args) {
    return run_command(cli() + " " + args);
}
inline hs::cli::Json parse_json(const std::string& text) {
    return hs::cli::Json::parse(text);
}

// The "counts" of one channel of hist's JSON.
inline std::vector<std::uint64_t> counts_of(const hs::cli::Json& channel) {
    std::vector<std::uint64_t> out;
    for (const auto& c : channel.at("counts")) out.push_back(c.get<std::uint64_t>());
    return out;
}

// A fresh folder for one test, removed with what the test left in it.
struct Scratch {
    explicit Scratch(const std::string& tag) : path(temp_dir(tag)) {}
    ~Scratch() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    const std::filesystem::path path;
};

// The rows of `frames`, packed, one frame after the other, into the raw file `path`; returns
// `path`.
inline std::filesystem::path write_raw_frames(const std::vector<Image>& frames,
                                              const std::filesystem::path& path) {
    std::ofstream f(path, std::ios::binary);
    for (const Image& img : frames) {
        const ImageView v = img.view();
        for (int y = 0; y < v.height; ++y)
            f.write(reinterpret_cast<const char*>(v.row(y)),
                    static_cast<std::streamsize>(v.row_bytes()));
    }
    return path;
}
inline std::filesystem::path write_raw_file(const Image& img, const std::filesystem::path& path) {
    return write_raw_frames({img}, path);
}

// `p` single-quoted for the shell.
inline std::string quote(const std::filesystem::path& p) {
    return "'" + p.string() + "'";
}

// An error must be exactly one line starting with "error:".
inline bool one_error_line(const std::string& err) {
    return err.rfind("error: ", 0) == 0 && err.find('\n') == err.size() - 1;
}

// Exit 3 (or `code`) with exactly one "error:" line containing `words`, nothing on stdout.
inline void expect_refused(const CommandResult& r, const std::string& what,
                           const std::string& words, int code = 3) {
    EXPECT_EQ(r.exit_code, code) << what << "\n" << r.err;
    EXPECT_TRUE(one_error_line(r.err)) << what << "\n" << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << what << "\n" << r.err;
    EXPECT_EQ(r.out, "") << what;
}

}  // namespace hs::test
