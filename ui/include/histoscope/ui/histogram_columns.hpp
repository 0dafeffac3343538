#pragma once
// What one pixel column of a histogram plot shows, and how tall the plot is.
//
// Columns are area-preserving: column c of `columns` equal columns over the bin range
// [first, last) shows the mean count per bin over the bins it covers, a bin that straddles
// two columns counting in each by the fraction it overlaps. So a flat histogram draws as equal
// columns at any width, a column over many bins shows their sum (as a density, in counts per
// bin), and zooming in on a range keeps the heights comparable. The largest-value-per-column
// rule it replaces drew a flat 65536-bin histogram bell-shaped (the maximum of more noisy bins
// is larger) and hid everything under one spike.

#include <cstdint>
#include <vector>

namespace hs::ui {

// prefix[i] = counts[0] + ... + counts[i - 1] (size counts.size() + 1), as doubles: exact for
// totals below 2^53.
std::vector<double> prefix_sums(const std::vector<std::uint64_t>& counts);

// The count below bin position x (bins [0, floor(x)) and the part of bin floor(x) below x),
// x clamped to [0, bins].
double count_below(const std::vector<double>& prefix, double x);

// The mean count per bin of each of `columns` equal columns over bins [first, last) (bin
// indices, may be fractional), from the prefix sums of the counts. `out` gets `columns` values.
void column_means(const std::vector<double>& prefix, double first, double last, int columns,
                  std::vector<double>& out);

// How many of a curve's column values may belong to spikes: the columns of two bins (a spike at
// each end; a bin covers at most ceil(columns / bins) + 1 columns, a narrow one straddling two)
// or 0.1% of the columns, the more.
std::size_t spike_columns(int columns, double bins);

// How far above the rest a spike stands: more than twice the largest of the rest. Coarse bins
// make a photo's real peak stand 25-40% above the bins beside it; drawn whole it flattens the rest
// by less than half.
inline constexpr double kSpikeRatio = 2.0;

// The value the plot's full height stands for: the largest value once the `set_aside` largest
// `values` are set aside (spike_columns()), as scopes do so that one huge bin does not flatten
// the rest; the largest value itself when it is at most kSpikeRatio times the rest (nothing
// stands out) or when nothing else is left. 0 for no values or all zero.
double plot_ceiling(std::vector<double> values, std::size_t set_aside);

}  // namespace hs::ui
