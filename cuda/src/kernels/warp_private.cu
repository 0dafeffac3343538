// Strategy "warp-private": see warp_private.cuh.

#include "kernels/warp_private.cuh"
#include "shared_memory.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"

namespace hs::cuda::detail {

namespace {

extern __shared__ std::uint32_t warp_private_smem[];

template <typename T, int C, WpValue V, WpBinMode B>
__global__ void __launch_bounds__(1024) warp_private_kernel(const WarpPrivateArgs a) {
    constexpr int kPixels = 16 / static_cast<int>(sizeof(T));  // pixels per group
    constexpr int kWords = 4 * C;                              // 32-bit words per group

    const int passes = a.passes;
    const int pass = static_cast<int>(blockIdx.x % static_cast<unsigned>(passes));
    const unsigned part = blockIdx.x / static_cast<unsigned>(passes);
    const unsigned parts = gridDim.x / static_cast<unsigned>(passes);
    const int start = pass * a.chunk;              // first bin of this pass
    const int len = min(a.chunk, a.bins - start);  // bins of this pass
    const int shift = a.copies_log2;               // M = 1 << shift
    const int words = len << shift;                // counters of this pass
    const auto tid = static_cast<int>(threadIdx.x);
    const auto nthreads = static_cast<int>(blockDim.x);

    std::uint32_t* hist = warp_private_smem;
    for (int i = tid; i < words; i += nthreads) hist[i] = 0;
    const std::int32_t* aux = a.aux;
    if constexpr (B == WpBinMode::Table || B == WpBinMode::Edges) {
        if (a.aux_shared) {
            auto* aux_s = reinterpret_cast<std::int32_t*>(warp_private_smem + (a.chunk << shift));
            const int n = warp_private_aux_entries(B, a.bins);
            for (int i = tid; i < n; i += nthreads) aux_s[i] = a.aux[i];
            aux = aux_s;
        }
    }
    __syncthreads();

    // Thread t updates copy t % M: word (bin - start) * M + t % M.
    const unsigned copy = threadIdx.x & ((1u << shift) - 1u);
    const auto* in = static_cast<const uint4*>(a.samples);
    const std::uint64_t groups = (a.pixels + kPixels - 1) / kPixels;
    const std::uint64_t step = static_cast<std::uint64_t>(parts) * blockDim.x;
    for (std::uint64_t g = static_cast<std::uint64_t>(part) * blockDim.x + threadIdx.x; g < groups;
         g += step) {
        std::uint32_t w[kWords];
#pragma unroll
        for (int k = 0; k < C; ++k) {
            const uint4 v = __ldg(in + g * C + k);
            w[4 * k + 0] = v.x;
            w[4 * k + 1] = v.y;
            w[4 * k + 2] = v.z;
            w[4 * k + 3] = v.w;
        }
        const std::uint64_t left = a.pixels - g * kPixels;
        const int valid = left < kPixels ? static_cast<int>(left) : kPixels;
#pragma unroll
        for (int p = 0; p < kPixels; ++p) {
            if (p >= valid) break;
            const int bin = wp::bin_of<B>(wp::value<T, C, V>(w, p, a), a, aux);
            // bin = -1 (outside) and bins of other passes give rel >= len.
            const auto rel = static_cast<unsigned>(bin - start);
            if (rel < static_cast<unsigned>(len)) atomicAdd(&hist[(rel << shift) + copy], 1u);
        }
    }
    __syncthreads();

    // Merge: each warp reads 32 contiguous counters (32 >> shift whole bins, one bank each),
    // sums the M copies of every bin with shuffles inside aligned groups of M lanes, and the
    // first lane of each group adds the sum to the global counter.
    const unsigned lane = threadIdx.x & 31u;
    const unsigned m_mask = (1u << shift) - 1u;
    for (int base = tid & ~31; base < words; base += nthreads) {
        const int i = base + static_cast<int>(lane);
        std::uint32_t c = i < words ? hist[i] : 0u;
        for (unsigned o = (1u << shift) >> 1; o > 0; o >>= 1)
            c += __shfl_xor_sync(0xFFFFFFFFu, c, o);
        if ((lane & m_mask) == 0 && i < words && c != 0)
            atomicAdd(&a.counts[start + (i >> shift)], static_cast<unsigned long long>(c));
    }
}

using Kernel = void (*)(WarpPrivateArgs);

template <typename T, int C, WpValue V>
Kernel pick_mode(WpBinMode mode) {
    if constexpr (sizeof(T) == 1 && V != WpValue::Joint) {
        // 8-bit plain and luma values always use the table.
        if (mode == WpBinMode::Table) return &warp_private_kernel<T, C, V, WpBinMode::Table>;
        throw UnsupportedError("warp-private: 8-bit values use the bin table");
    } else {
        switch (mode) {
            case WpBinMode::EvenDiv:
                return &warp_private_kernel<T, C, V, WpBinMode::EvenDiv>;
            case WpBinMode::Even32:
                return &warp_private_kernel<T, C, V, WpBinMode::Even32>;
            case WpBinMode::Even64:
                return &warp_private_kernel<T, C, V, WpBinMode::Even64>;
            case WpBinMode::Edges:
                return &warp_private_kernel<T, C, V, WpBinMode::Edges>;
            case WpBinMode::Table:
                break;
        }
        throw UnsupportedError("warp-private: a bin table serves only 8-bit plain or luma values");
    }
}

template <typename T>
Kernel pick_layout(const WarpPrivateArgs& a) {
    if (a.value == WpValue::Luma || a.value == WpValue::Joint) {
        if constexpr (sizeof(T) == 1) {
            if (a.value == WpValue::Joint) {
                if (a.channels == 3) return pick_mode<T, 3, WpValue::Joint>(a.mode);
                if (a.channels == 4) return pick_mode<T, 4, WpValue::Joint>(a.mode);
                throw UnsupportedError("warp-private: joint colour needs 3 or 4 channels");
            }
        } else {
            if (a.value == WpValue::Joint)
                throw UnsupportedError("warp-private: joint colour needs 8-bit samples");
        }
        if (a.channels == 3) return pick_mode<T, 3, WpValue::Luma>(a.mode);
        if (a.channels == 4) return pick_mode<T, 4, WpValue::Luma>(a.mode);
        throw UnsupportedError("warp-private: luma needs 3 or 4 channels");
    }
    switch (a.channels) {
        case 1:
            return pick_mode<T, 1, WpValue::Plain>(a.mode);
        case 3:
            return pick_mode<T, 3, WpValue::Plain>(a.mode);
        case 4:
            return pick_mode<T, 4, WpValue::Plain>(a.mode);
        default:
            throw UnsupportedError("warp-private: images must have 1, 3 or 4 channels");
    }
}

Kernel pick(const WarpPrivateArgs& a) {
    return a.u16 ? pick_layout<std::uint16_t>(a) : pick_layout<std::uint8_t>(a);
}

}  // namespace

WarpPrivateRace warp_private_race(const std::vector<std::int32_t>& warp_bins) {
    WarpPrivateRace race;
    const std::size_t steps = warp_bins.size() / 32;
    race.steps = static_cast<int>(steps);
    if (steps == 0) return race;
    for (std::size_t s = 0; s < steps; ++s) {
        const std::int32_t* lanes = warp_bins.data() + s * 32;
        for (int lane = 0; lane < 32; ++lane) race.counted += lanes[lane] >= 0 ? 1 : 0;
        for (int k = 0; k < kWarpPrivateCopyChoices; ++k) {
            const int m = 1 << k;
            // Lanes l and l' hit the same counter when their bins agree and l % M == l' % M.
            int rounds = 0;
            for (int l = 0; l < 32; ++l) {
                if (lanes[l] < 0) continue;
                int same = 0;
                for (int o = l % m; o < 32; o += m) same += lanes[o] == lanes[l] ? 1 : 0;
                rounds = std::max(rounds, same);
            }
            race.rounds[static_cast<std::size_t>(k)] += rounds;
        }
    }
    for (double& r : race.rounds) r /= static_cast<double>(steps);
    return race;
}

WarpPrivateTuning choose_warp_private(const WarpPrivateRace& race, int bins, int aux_entries,
                                      int bytes_per_pixel, int pixels_per_group,
                                      std::uint64_t pixels, std::size_t smem_limit,
                                      const DeviceLimits& limits) {
    const std::size_t aux_bytes = 4u * static_cast<std::size_t>(aux_entries);
    // The table or the thresholds go to shared memory when they take at most an eighth of it;
    // larger threshold arrays are searched in global memory (L1/L2 cached).
    const bool aux_shared = aux_entries > 0 && aux_bytes <= smem_limit / 8;
    const std::size_t counter_bytes = smem_limit - (aux_shared ? aux_bytes : 0);
    const double n = static_cast<double>(std::max<std::uint64_t>(pixels, 1));
    const auto ppg = static_cast<std::uint64_t>(pixels_per_group);
    const std::uint64_t groups = (pixels + ppg - 1) / ppg;
    const auto sms = static_cast<std::uint64_t>(std::max(1, limits.sm_count));

    WarpPrivateTuning best;
    best.race = race;
    best.aux_shared = aux_shared;
    bool found = false;
    for (int k = 0; k < kWarpPrivateCopyChoices; ++k) {
        const int m = 1 << k;
        const std::size_t max_chunk = counter_bytes / (4u * static_cast<std::size_t>(m));
        if (max_chunk == 0) break;
        const auto ubins = static_cast<std::size_t>(bins);
        std::size_t passes = (ubins + max_chunk - 1) / max_chunk;
        const std::size_t chunk = (ubins + passes - 1) / passes;  // balanced, <= max_chunk
        passes = (ubins + chunk - 1) / chunk;
        const std::size_t smem =
            4u * chunk * static_cast<std::size_t>(m) + (aux_shared ? aux_bytes : 0);
        // Cost per pixel, in units of reading one byte of a pixel: every pass reads the
        // pixels; one atomic round of a warp step (32 pixels) costs about as much as reading
        // 32 bytes; each block zeroes and merges chunk * M counters (about 2.5 units each)
        // and adds up to `chunk` sums to global memory (about 4 units each). Blocks per pass:
        // the resident ones (assuming 1024 threads, at most 2 blocks per SM) shared by the
        // passes, no more than the groups need.
        const std::uint64_t per_sm =
            std::clamp<std::uint64_t>(limits.shared_per_sm / (smem + 1024), 1, 2);
        const std::uint64_t useful = std::max<std::uint64_t>(1, (groups + 1023) / 1024);
        const std::uint64_t parts =
            std::clamp<std::uint64_t>((sms * per_sm + passes - 1) / passes, 1, useful);
        const double p = static_cast<double>(passes);
        const double merge =
            static_cast<double>(parts) * p * static_cast<double>(chunk) * (2.5 * m + 4.0) / n;
        const double cost = p * bytes_per_pixel + race.rounds[static_cast<std::size_t>(k)] + merge;
        if (!found || cost < best.cost) {
            found = true;
            best.copies = m;
            best.passes = static_cast<int>(passes);
            best.chunk = static_cast<int>(chunk);
            best.smem_bytes = smem;
            best.cost = cost;
        }
    }
    if (!found)
        throw UnsupportedError("warp-private: the kernel's shared memory per block (" +
                               std::to_string(smem_limit) + " bytes) holds no counter");
    return best;
}

std::string WarpPrivateTuning::describe() const {
    std::ostringstream os;
    os << std::fixed << std::setprecision(2) << "M=" << copies << " sub-histograms, S=" << passes
       << (passes == 1 ? " pass" : " passes") << " of " << chunk << " bins, " << smem_bytes
       << " B shared" << (aux_shared ? " (incl. table)" : "") << ", " << threads << " threads x "
       << parts << " blocks per pass (" << blocks_per_sm
       << "/SM); race factor (rounds per warp step, M=1..32):";
    for (double r : race.rounds) os << ' ' << r;
    os << " from " << race.steps * 32 << " samples (" << race.counted << " inside); cost " << cost;
    return os.str();
}

std::size_t warp_private_smem_limit(const WarpPrivateArgs& a, std::size_t optin) {
    return dynamic_smem_limit(pick(a), optin);
}

void plan_warp_private(const WarpPrivateArgs& a, const DeviceLimits& limits, WarpPrivateTuning& t) {
    const Kernel kernel = pick(a);
    reserve_dynamic_smem(kernel, t.smem_bytes, limits.shared_per_block_optin, "warp-private");
    t.threads = 0;
    t.blocks_per_sm = 0;
    for (const int threads : kWarpPrivateThreadCandidates) {
        int per_sm = 0;
        check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                  &per_sm, reinterpret_cast<const void*>(kernel), threads, t.smem_bytes),
              "cudaOccupancyMaxActiveBlocksPerMultiprocessor(warp-private)");
        if (per_sm * threads >= t.blocks_per_sm * t.threads && per_sm > 0) {
            t.threads = threads;
            t.blocks_per_sm = per_sm;
        }
    }
    if (t.blocks_per_sm == 0)
        throw DeviceError("warp-private: no block fits on an SM with " +
                          std::to_string(t.smem_bytes) + " bytes of shared memory");

    t.parts =
        warp_private_parts(a.pixels, a.u16, t.threads, t.blocks_per_sm, t.passes, limits.sm_count);
}

int warp_private_parts(std::uint64_t pixels, bool u16, int threads_per_block, int blocks_per_sm,
                       int passes_, int sm_count) {
    const auto ppg = static_cast<std::uint64_t>(warp_private_pixels_per_group(u16));
    const std::uint64_t groups = (pixels + ppg - 1) / ppg;
    const auto threads = static_cast<std::uint64_t>(threads_per_block);
    const auto passes = static_cast<std::uint64_t>(passes_);
    const std::uint64_t useful = std::max<std::uint64_t>(1, (groups + threads - 1) / threads);
    const std::uint64_t resident = static_cast<std::uint64_t>(blocks_per_sm) *
                                   static_cast<std::uint64_t>(std::max(1, sm_count));
    // Enough blocks per pass that none counts more than kWarpPrivateMaxPixelsPerBlock pixels
    // (a block of a pass handles at most ceil(groups / (parts * threads)) groups per thread).
    const std::uint64_t exact = pixels / kWarpPrivateMaxPixelsPerBlock + 1;
    const std::uint64_t share = std::max<std::uint64_t>(1, (resident + passes - 1) / passes);
    const std::uint64_t parts = std::max(std::min(share, useful), std::min(exact, useful));
    if (parts > 0x7FFFFFFFull / passes)
        throw UnsupportedError("warp-private: " + std::to_string(parts * passes) +
                               " blocks exceed the grid limit");
    return static_cast<int>(parts);
}

void launch_warp_private(const WarpPrivateArgs& a, const WarpPrivateTuning& t,
                         cudaStream_t stream) {
    const Kernel kernel = pick(a);
    const auto blocks = static_cast<unsigned>(static_cast<std::uint64_t>(t.parts) *
                                              static_cast<std::uint64_t>(t.passes));
    kernel<<<blocks, static_cast<unsigned>(t.threads), t.smem_bytes, stream>>>(a);
    check(cudaGetLastError(), "warp-private kernel launch");
}

std::string warp_private_probe() {
    cudaFuncAttributes attr{};
    const cudaError_t e = cudaFuncGetAttributes(
        &attr, reinterpret_cast<const void*>(
                   &warp_private_kernel<std::uint8_t, 1, WpValue::Plain, WpBinMode::Table>));
    if (e == cudaSuccess) return {};
    static_cast<void>(cudaGetLastError());
    if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction ||
        e == cudaErrorUnsupportedPtxVersion)
        return "this build has no kernel code for the device (" + describe(e) +
               "); rebuild with its architecture in CMAKE_CUDA_ARCHITECTURES";
    return "cannot load the warp-private kernel: " + describe(e);
}

}  // namespace hs::cuda::detail
