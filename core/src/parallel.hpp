#pragma once
// Rows (or any range) split over the host's hardware threads: the calling thread takes the
// first share, so a small range costs no thread at all.

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace hs::detail {

// Calls f(begin, end) on disjoint parts of [0, n) that cover it, on up to the hardware's
// threads, each part at least `min_part` long; returns when every part is done. f must not
// throw (collect errors per part instead).
template <typename F>
void parallel_ranges(std::int64_t n, std::int64_t min_part, F&& f) {
    if (n <= 0) return;
    const auto hardware =
        static_cast<std::int64_t>(std::max(1u, std::thread::hardware_concurrency()));
    const std::int64_t parts =
        std::clamp<std::int64_t>(n / std::max<std::int64_t>(min_part, 1), 1, hardware);
    if (parts == 1) {
        f(std::int64_t{0}, n);
        return;
    }
    std::vector<std::jthread> pool;
    pool.reserve(static_cast<std::size_t>(parts - 1));
    for (std::int64_t p = 1; p < parts; ++p)
        pool.emplace_back([&f, n, parts, p] { f(n * p / parts, n * (p + 1) / parts); });
    f(std::int64_t{0}, n / parts);
}

}  // namespace hs::detail
