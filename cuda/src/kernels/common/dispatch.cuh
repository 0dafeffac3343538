#pragma once
// The one dispatch from a request's run-time choices (sample type, samples per pixel, value
// kind, bin mode) to a strategy's kernel template, instantiating exactly the combinations the
// strategy serves. A strategy describes its kernel family as
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

#include "histoscope/core/error.hpp"

#include "kernels/common/bins.cuh"
#include "kernels/common/samples.cuh"

namespace hs::cuda::detail {

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

namespace dispatch {

template <typename F, typename T, int C, ValueKind V, BinMode M>
typename F::Pointer one() {
    if constexpr ((family_bin_modes<F>(sizeof(T) == 2, V) & bin_mode_bit(M)) != 0)
        return F::template get<T, C, V, M>();
    else
        return nullptr;
}

template <typename F, typename T, int C, ValueKind V>
typename F::Pointer modes(BinMode m) {
    switch (m) {
        case BinMode::Identity:
            return one<F, T, C, V, BinMode::Identity>();
        case BinMode::Table:
            return one<F, T, C, V, BinMode::Table>();
        case BinMode::EvenShift:
            return one<F, T, C, V, BinMode::EvenShift>();
        case BinMode::EvenDiv:
            return one<F, T, C, V, BinMode::EvenDiv>();
        case BinMode::Even32:
            return one<F, T, C, V, BinMode::Even32>();
        case BinMode::Even64:
            return one<F, T, C, V, BinMode::Even64>();
        case BinMode::Edges:
            return one<F, T, C, V, BinMode::Edges>();
    }
    return nullptr;
}

template <typename F, typename T, int C>
typename F::Pointer values(ValueKind v, BinMode m) {
    if (v == ValueKind::Plain && (F::kValues & value_kind_bit(ValueKind::Plain)) != 0)
        return modes<F, T, C, ValueKind::Plain>(m);
    if constexpr (C >= 3) {
        if (v == ValueKind::Luma && (F::kValues & value_kind_bit(ValueKind::Luma)) != 0)
            return modes<F, T, C, ValueKind::Luma>(m);
        if constexpr (sizeof(T) == 1)
            if (v == ValueKind::Joint && (F::kValues & value_kind_bit(ValueKind::Joint)) != 0)
                return modes<F, T, C, ValueKind::Joint>(m);
    }
    return nullptr;
}

template <typename F, typename T>
typename F::Pointer channels(int c, ValueKind v, BinMode m) {
    switch (c) {
        case 1:
            return values<F, T, 1>(v, m);
        case 3:
            return values<F, T, 3>(v, m);
        case 4:
            return values<F, T, 4>(v, m);
        default:
            return nullptr;
    }
}

}  // namespace dispatch

// The kernel of `Family` for samples of `u16`, `channels` samples per pixel, values of `kind`
// binned by `mode`; nullptr when the family has none.
template <typename Family>
typename Family::Pointer find_kernel(bool u16, int channels, ValueKind kind, BinMode mode) {
    return u16 ? dispatch::channels<Family, std::uint16_t>(channels, kind, mode)
               : dispatch::channels<Family, std::uint8_t>(channels, kind, mode);
}

// The same, or hs::UnsupportedError naming `who` when the family has none.
template <typename Family>
typename Family::Pointer pick_kernel(bool u16, int channels, ValueKind kind, BinMode mode,
                                     const char* who) {
    const typename Family::Pointer kernel = find_kernel<Family>(u16, channels, kind, mode);
    if (kernel == nullptr)
        throw UnsupportedError(std::string(who) + " has no kernel for " +
                               (u16 ? "16-bit" : "8-bit") + " samples, " +
                               std::to_string(channels) + " per pixel, and this channel and bins");
    return kernel;
}

}  // namespace hs::cuda::detail
