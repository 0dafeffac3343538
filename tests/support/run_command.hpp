#pragma once
// Runs a command line through the shell and captures its exit code, stdout and stderr.

#include <sys/wait.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hs::test {

struct CommandResult {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// A fresh directory under the system temp dir, unique per process and call. Fresh: a folder of
// the same name left by an earlier process that had the same pid (tests that keep their folder)
// is passed over, not reused with what it holds.
inline std::filesystem::path temp_dir(const std::string& tag) {
    static int counter = 0;
    const auto base = std::filesystem::temp_directory_path();
    for (;;) {
        auto dir = base / ("histoscope-" + tag + "-" + std::to_string(::getpid()) + "-" +
                           std::to_string(counter++));
        if (std::filesystem::create_directory(dir)) return dir;
    }
}

inline CommandResult run_command(const std::string& command) {
    const auto dir = temp_dir("cmd");
    const auto out = dir / "out", err = dir / "err";
    const std::string full = command + " >'" + out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(full.c_str());
    CommandResult r;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = slurp(out);
    r.err = slurp(err);
    std::filesystem::remove_all(dir);
    return r;
}

}  // namespace hs::test
