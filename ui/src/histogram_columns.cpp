#include "histoscope/ui/histogram_columns.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace hs::ui {

std::vector<double> prefix_sums(const std::vector<std::uint64_t>& counts) {
    std::vector<double> prefix(counts.size() + 1, 0.0);
    std::uint64_t running = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
        running += counts[i];
        prefix[i + 1] = static_cast<double>(running);
    }
    return prefix;
}

double count_below(const std::vector<double>& prefix, double x) {
    const auto bins = static_cast<double>(prefix.size() - 1);
    x = std::clamp(x, 0.0, bins);
    const double whole = std::floor(x);
    const auto i = static_cast<std::size_t>(whole);
    if (i + 1 >= prefix.size()) return prefix.back();
    return prefix[i] + (x - whole) * (prefix[i + 1] - prefix[i]);
}

void column_means(const std::vector<double>& prefix, double first, double last, int columns,
                  std::vector<double>& out) {
    out.assign(static_cast<std::size_t>(std::max(columns, 0)), 0.0);
    if (columns <= 0 || prefix.size() < 2 || !(last > first)) return;
    const double width = (last - first) / columns;
    double left = count_below(prefix, first);
    for (int c = 0; c < columns; ++c) {
        const double right = count_below(prefix, first + width * (c + 1));
        out[static_cast<std::size_t>(c)] = (right - left) / width;
        left = right;
    }
}

std::size_t spike_columns(int columns, double bins) {
    if (columns <= 0 || !(bins > 0.0)) return 0;
    const auto per_bin = static_cast<std::size_t>(std::ceil(columns / bins)) + 1;
    return std::max(2 * per_bin, static_cast<std::size_t>(columns) / 1000);
}

double plot_ceiling(std::vector<double> values, std::size_t set_aside) {
    if (values.empty()) return 0.0;
    if (set_aside >= values.size()) return *std::max_element(values.begin(), values.end());
    // values[set_aside] is the largest of the rest once sorted in descending order.
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(set_aside),
                     values.end(), std::greater<>());
    const double rest = values[set_aside];
    const double top =
        *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(set_aside));
    if (rest <= 0.0 || top <= rest * kSpikeRatio) return top;
    return rest;
}

}  // namespace hs::ui
