#pragma once
// A comma-separated list of names in which "all" stands for a group of them: what --channels
// takes, of an image's channels and of a camera raw file's CFA colours alike, so that both read
// "all,luma" and "r,all" by one rule.

#include <string>
#include <string_view>
#include <vector>

namespace hs {

// The names of `list` in order, "all" replaced in its place by the names of `all`: every name
// once, at its first place (in "r,all" and "all,r" the r that "all" stands for and the r listed
// are one). Throws UsageError for a name listed twice by itself ("r,r"), or "all" twice. The
// names are not judged here: an unknown one is the caller's to refuse.
std::vector<std::string> expand_all(std::string_view list,
                                    const std::vector<std::string_view>& all);

}  // namespace hs
