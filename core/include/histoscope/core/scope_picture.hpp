#pragma once
// The picture of a scope as a user sees it, shared by the CLI's PNG and the desktop
// application: one pixel per bin, brightness log(1 + count) / log(1 + the largest count of
// the scope), so that a bin hit once still shows beside one hit a million times.
//
// Waveforms: levels upwards from the bottom row, the planes of a parade side by side with a
// gap of kScopeGap pixels, each in its colour (r red, g green, b blue, others white), over a
// dim graticule at 0, 25, 50, 75 and 100 % of the levels. Vectorscopes: Cb to the right, Cr
// upwards, each bin in the colour of its chroma at mid luma, over a graticule: the axes, the
// outer circle and the targets of 75 % red, yellow, green, cyan, blue and magenta.

#include <vector>

#include "histoscope/core/image.hpp"
#include "histoscope/core/scopes.hpp"

namespace hs {

inline constexpr int kScopeGap = 4;

// An 8-bit RGB image of the planes `reference_scope(image, spec)` gives for `spec`.
Image scope_picture(const std::vector<ScopePlane>& planes, const ScopeSpec& spec);

}  // namespace hs
