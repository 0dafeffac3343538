#pragma once
// The one dispatch from a request's run-time choices to code templated on them: sample type x
// samples per pixel (x value kind x bin mode). A caller visits a LayoutKey with a function
// object taking a Layout:
//
//   visit_layout<Accept>(key, [&](auto layout) {
//       using L = decltype(layout);  // L::Sample, L::kChannels, L::kValue, L::kBins
//       kernel = &my_kernel<typename L::Sample, L::kChannels, L::kValue, L::kBins>;
//   });
//
// and the function object is instantiated only for the layouts `Accept` serves (Accept::serves<L>()
// is a compile-time predicate), so each caller keeps exactly the instantiations it had; a key no
// accepted layout matches makes visit_*() return false (the callers' refusal). visit_samples()
// and visit_values() select by the leading axes only, the others stay at Layout's defaults.
//
// The kernels' strategies describe their kernel family as
//
//   struct Family : KernelFamily<Args, kinds it counts, bin modes for 8-bit plain samples and
//                                luma, bin modes for 16-bit samples and joint colours> {
//       template <typename T, int C, ValueKind V, BinMode M> static Pointer get();
//   };
//
// and pick_kernel<Family>() returns the kernel for one request. Luma and joint colours need 3 or
// 4 samples per pixel, joint colours 8-bit ones.

#include <cstdint>
#include <string>
#include <type_traits>

#include "histoscope/core/error.hpp"
#include "histoscope/core/image.hpp"

#include "kernels/common/bins.cuh"
#include "kernels/common/samples.cuh"

namespace hs::cuda::detail {

// A sample type the kernels are built for and the C++ type of its samples.
template <SampleType S, typename T>
struct SampleKind {
    static constexpr SampleType kType = S;
    using Type = T;
};
template <typename... Kinds>
struct SampleKinds {};
// Every sample type the kernels are built for. Adding one is one line here; each visitor's Accept
// then says which of its kernels serve it (IntegerSamples: none of today's), and requests of a
// type not listed are refused by every GPU strategy (GpuEngine).
using KernelSampleTypes = SampleKinds<SampleKind<SampleType::U8, std::uint8_t>,
                                      SampleKind<SampleType::U16, std::uint16_t>>;

// Run-time choices, one per axis of the dispatch.
struct LayoutKey {
    SampleType type = SampleType::U8;
    int channels = 1;  // samples per pixel: 1, 3 or 4
    ValueKind value = ValueKind::Plain;
    BinMode bins = BinMode::Identity;
};

// The same at compile time.
template <typename T, int C, ValueKind V = ValueKind::Plain, BinMode M = BinMode::Identity>
struct Layout {
    using Sample = T;
    static constexpr int kChannels = C;
    static constexpr ValueKind kValue = V;
    static constexpr BinMode kBins = M;
};

// The samples the integer kernels read (16-byte groups of 8- or 16-bit samples, samples.cuh).
template <typename T>
inline constexpr bool kIntegerSample =
    std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>;

// The Accept of callers that serve every layout of 8- or 16-bit samples.
struct IntegerSamples {
    template <typename L>
    static constexpr bool serves() {
        return kIntegerSample<typename L::Sample>;
    }
};

namespace visit_detail {

template <auto... Vs>
struct Values {};

// Calls f(std::integral_constant<.., v>) for the entry of `Vs` equal to `v` (the run-time value);
// false when none is.
template <auto... Vs, typename V, typename F>
bool pick(Values<Vs...>, V v, F&& f) {
    return ((v == Vs && (f(std::integral_constant<decltype(Vs), Vs>{}), true)) || ...);
}
template <typename... Kinds, typename F>
bool pick(SampleKinds<Kinds...>, SampleType t, F&& f) {
    return ((t == Kinds::kType && (f(Kinds{}), true)) || ...);
}

using ChannelCounts = Values<1, 3, 4>;
using AllValueKinds = Values<ValueKind::Plain, ValueKind::Luma, ValueKind::Joint>;
using AllBinModes = Values<BinMode::Identity, BinMode::Table, BinMode::EvenShift, BinMode::EvenDiv,
                           BinMode::Even32, BinMode::Even64, BinMode::Edges>;

template <typename Accept, typename ValueAxis, typename ModeAxis, typename F>
bool visit(const LayoutKey& key, F&& f) {
    bool found = false;
    pick(KernelSampleTypes{}, key.type, [&](auto sample) {
        using T = typename decltype(sample)::Type;
        pick(ChannelCounts{}, key.channels, [&](auto c) {
            pick(ValueAxis{}, key.value, [&](auto v) {
                pick(ModeAxis{}, key.bins, [&](auto m) {
                    using L = Layout<T, decltype(c)::value, decltype(v)::value, decltype(m)::value>;
                    if constexpr (Accept::template serves<L>()) {
                        f(L{});
                        found = true;
                    }
                });
            });
        });
    });
    return found;
}

}  // namespace visit_detail

// f(Layout<T, C, V, M>) for the key; false (f not called) when Accept serves no such layout.
template <typename Accept, typename F>
bool visit_layout(const LayoutKey& key, F&& f) {
    return visit_detail::visit<Accept, visit_detail::AllValueKinds, visit_detail::AllBinModes>(key,
                                                                                               f);
}

// f(Layout<T, C, V>) for the sample type, samples per pixel and value kind.
template <typename Accept, typename F>
bool visit_values(SampleType type, int channels, ValueKind value, F&& f) {
    return visit_detail::visit<Accept, visit_detail::AllValueKinds,
                               visit_detail::Values<BinMode::Identity>>(
        {type, channels, value, BinMode::Identity}, f);
}

// f(Layout<T, C>) for the sample type and samples per pixel.
template <typename Accept, typename F>
bool visit_samples(SampleType type, int channels, F&& f) {
    return visit_detail::visit<Accept, visit_detail::Values<ValueKind::Plain>,
                               visit_detail::Values<BinMode::Identity>>(
        {type, channels, ValueKind::Plain, BinMode::Identity}, f);
}

// Whether the kernels are built for samples of `type` at all.
inline bool kernel_sample_type(SampleType type) {
    return visit_detail::pick(KernelSampleTypes{}, type, [](auto) {});
}

// The SampleType of samples of C++ type T (one of KernelSampleTypes).
template <typename T, typename... Kinds>
constexpr SampleType sample_type_in(SampleKinds<Kinds...>) {
    SampleType t{};
    static_cast<void>(
        ((std::is_same_v<T, typename Kinds::Type> && (t = Kinds::kType, true)) || ...));
    return t;
}
template <typename T>
inline constexpr SampleType kSampleTypeOf = sample_type_in<T>(KernelSampleTypes{});

// "8-bit", "16-bit" or the type's name, for refusals.
inline std::string sample_words(SampleType type) {
    // Not a switch: a sample type added to core must not break this file's build.
    if (type == SampleType::U8) return "8-bit";
    if (type == SampleType::U16) return "16-bit";
    return to_string(type);
}

// The refusal of a layout no kernel of `who` serves.
inline UnsupportedError no_kernel_for(const std::string& who, SampleType type, int channels,
                                      const char* what = "") {
    return UnsupportedError(who + " has no kernel for " + sample_words(type) + " samples, " +
                            std::to_string(channels) + " per pixel" + what);
}

// visit_samples(), or no_kernel_for(who, ...) thrown when Accept serves no such layout.
template <typename Accept, typename F>
void visit_samples_of(const char* who, SampleType type, int channels, F&& f) {
    if (!visit_samples<Accept>(type, channels, f)) throw no_kernel_for(who, type, channels);
}

// The key of an image of 8- or 16-bit samples (`u16`), as the kernels' arguments hold it.
constexpr SampleType integer_sample_type(bool u16) {
    return u16 ? SampleType::U16 : SampleType::U8;
}

constexpr unsigned value_kind_bit(ValueKind v) {
    return 1u << static_cast<unsigned>(v);
}

inline constexpr unsigned kAllValueKinds = value_kind_bit(ValueKind::Plain) |
                                           value_kind_bit(ValueKind::Luma) |
                                           value_kind_bit(ValueKind::Joint);

template <typename Args, unsigned Values, BinModes Modes8, BinModes ModesWide>
struct KernelFamily {
    using Pointer = void (*)(Args);
    static constexpr unsigned kValues = Values;
    static constexpr BinModes kModes8 = Modes8;
    static constexpr BinModes kModesWide = ModesWide;
};

// The bin modes of `family` for values of `kind` from samples of `u16`.
template <typename Family>
constexpr BinModes family_bin_modes(bool u16, ValueKind kind) {
    return !u16 && kind != ValueKind::Joint ? Family::kModes8 : Family::kModesWide;
}

// The layouts a kernel family serves: 8- or 16-bit samples; its value kinds, luma and joint
// colours from 3 or 4 samples per pixel, joint colours from 8-bit ones; its bin modes.
template <typename Family>
struct FamilyLayouts {
    template <typename L>
    static constexpr bool serves() {
        using T = typename L::Sample;
        constexpr ValueKind V = L::kValue;
        if constexpr (!kIntegerSample<T>)
            return false;
        else
            return (Family::kValues & value_kind_bit(V)) != 0 &&
                   (V == ValueKind::Plain || L::kChannels >= 3) &&
                   (V != ValueKind::Joint || sizeof(T) == 1) &&
                   (family_bin_modes<Family>(sizeof(T) == 2, V) & bin_mode_bit(L::kBins)) != 0;
    }
};

// The kernel of `Family` for samples of `u16`, `channels` samples per pixel, values of `kind`
// binned by `mode`; nullptr when the family has none.
template <typename Family>
typename Family::Pointer find_kernel(bool u16, int channels, ValueKind kind, BinMode mode) {
    typename Family::Pointer kernel = nullptr;
    visit_layout<FamilyLayouts<Family>>(
        {integer_sample_type(u16), channels, kind, mode}, [&](auto layout) {
            using L = decltype(layout);
            kernel = Family::template get<typename L::Sample, L::kChannels, L::kValue, L::kBins>();
        });
    return kernel;
}

// The same, or hs::UnsupportedError naming `who` when the family has none.
template <typename Family>
typename Family::Pointer pick_kernel(bool u16, int channels, ValueKind kind, BinMode mode,
                                     const char* who) {
    const typename Family::Pointer kernel = find_kernel<Family>(u16, channels, kind, mode);
    if (kernel == nullptr)
        throw no_kernel_for(who, integer_sample_type(u16), channels, ", and this channel and bins");
    return kernel;
}

}  // namespace hs::cuda::detail
