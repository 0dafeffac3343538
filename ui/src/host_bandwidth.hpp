#pragma once
// The roofline of CPU engines: the host's read bandwidth, measured the way the CPU reference
// reads. Under load one pass can be several times slower than another, so a percentage of a
// fresh median moved from run to run (4.8 to 11% for the same kernel); the best of several
// passes is kept with the application's settings for this machine (cpu_description()) and
// measured again only when asked.

#include <QString>

namespace hs::ui {

// GB/s (1e9 bytes/s): every hardware thread sums its share of a 128 MiB buffer; the best of
// `passes`.
double measure_host_read_bandwidth_gbs(int passes = 7);

// The CPU's model name ("unknown CPU" where the system does not say) and thread count.
QString cpu_description();

}  // namespace hs::ui
