// Strategy "warp-private": see warp_private.cuh.

#include "kernels/warp_private.cuh"
#include "shared_memory.hpp"

#include <algorithm>
#include <iomanip>
#include <sstream>
#include <string>

#include "cuda_check.hpp"
#include "histoscope/core/error.hpp"
#include "kernels/common/dispatch.cuh"
#include "kernels/common/launch.hpp"

namespace hs::cuda::detail {

namespace {

extern __shared__ std::uint32_t warp_private_smem[];

template <typename T, int C, ValueKind V, BinMode M>
__global__ void __launch_bounds__(1024) warp_private_kernel(const WarpPrivateArgs a) {
    const int passes = a.passes;
    const int pass = static_cast<int>(blockIdx.x % static_cast<unsigned>(passes));
    const unsigned part = blockIdx.x / static_cast<unsigned>(passes);
    const unsigned parts = gridDim.x / static_cast<unsigned>(passes);
    const int start = pass * a.chunk;                   // first bin of this pass
    const int len = min(a.chunk, a.bins.bins - start);  // bins of this pass
    const int shift = a.copies_log2;                    // M = 1 << shift
    const int words = len << shift;                     // counters of this pass
    const auto tid = static_cast<int>(threadIdx.x);
    const auto nthreads = static_cast<int>(blockDim.x);

    std::uint32_t* hist = warp_private_smem;
    for (int i = tid; i < words; i += nthreads) hist[i] = 0;
    const std::int32_t* aux = a.aux;
    if constexpr (M == BinMode::Table || M == BinMode::Edges) {
        if (a.aux_shared) {
            auto* aux_s = reinterpret_cast<std::int32_t*>(warp_private_smem + (a.chunk << shift));
            const int n = bin_aux_entries(M, a.bins.bins);
            for (int i = tid; i < n; i += nthreads) aux_s[i] = a.aux[i];
            aux = aux_s;
        }
    }
    __syncthreads();

    // Thread t updates copy t % M: word (bin - start) * M + t % M.
    const unsigned copy = threadIdx.x & ((1u << shift) - 1u);
    const std::uint64_t first = static_cast<std::uint64_t>(part) * blockDim.x + threadIdx.x;
    const std::uint64_t step = static_cast<std::uint64_t>(parts) * blockDim.x;
    for_each_pixel<T, C>(a.samples, a.pixels, first, step, [&](const std::uint32_t* w, int p) {
        const int bin = bin_of<M>(group_value<T, C, V>(w, p, a.value), a.bins, aux);
        // bin = -1 (outside) and bins of other passes give rel >= len.
        const auto rel = static_cast<unsigned>(bin - start);
        if (rel < static_cast<unsigned>(len)) atomicAdd(&hist[(rel << shift) + copy], 1u);
    });
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

struct Family : KernelFamily<WarpPrivateArgs, kAllValueKinds, kTableModes, kWideModes> {
    template <typename T, int C, ValueKind V, BinMode M>
    static Pointer get() {
        return &warp_private_kernel<T, C, V, M>;
    }
};

Family::Pointer pick(const WarpPrivateArgs& a) {
    return pick_kernel<Family>(a.u16, a.channels, a.value.kind, a.bins.mode,
                               "engine 'warp-private'");
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
    const Family::Pointer kernel = pick(a);
    reserve_dynamic_smem(kernel, t.smem_bytes, limits.shared_per_block_optin, "warp-private");
    const BlockShape shape =
        most_resident(kernel, {256, 512, 1024}, t.smem_bytes, true, "warp-private");
    if (shape.threads == 0)
        throw DeviceError("warp-private: no block fits on an SM with " +
                          std::to_string(t.smem_bytes) + " bytes of shared memory");
    t.threads = shape.threads;
    t.blocks_per_sm = shape.blocks_per_sm;
    t.parts =
        warp_private_parts(a.pixels, a.u16, t.threads, t.blocks_per_sm, t.passes, limits.sm_count);
}

int warp_private_parts(std::uint64_t pixels, bool u16, int threads, int blocks_per_sm, int passes,
                       int sm_count) {
    const std::uint64_t resident = static_cast<std::uint64_t>(blocks_per_sm) *
                                   static_cast<std::uint64_t>(std::max(1, sm_count));
    const auto p = static_cast<std::uint64_t>(passes);
    // The resident blocks shared by the passes, and enough blocks per pass that none counts more
    // than kWarpPrivateMaxPixelsPerBlock pixels (a block of a pass handles at most
    // ceil(groups / (parts * threads)) groups per thread).
    const std::uint64_t parts =
        grid_blocks(group_count(pixels, u16), static_cast<std::uint64_t>(threads),
                    std::max<std::uint64_t>(1, (resident + p - 1) / p),
                    pixels / kWarpPrivateMaxPixelsPerBlock + 1);
    if (parts > 0x7FFFFFFFull / p)
        throw UnsupportedError("warp-private: " + std::to_string(parts * p) +
                               " blocks exceed the grid limit");
    return static_cast<int>(parts);
}

void launch_warp_private(const WarpPrivateArgs& a, const WarpPrivateTuning& t,
                         cudaStream_t stream) {
    const auto blocks = static_cast<unsigned>(static_cast<std::uint64_t>(t.parts) *
                                              static_cast<std::uint64_t>(t.passes));
    pick(a)<<<blocks, static_cast<unsigned>(t.threads), t.smem_bytes, stream>>>(a);
    check(cudaGetLastError(), "warp-private kernel launch");
}

std::string warp_private_probe() {
    return probe_kernel(&warp_private_kernel<std::uint8_t, 1, ValueKind::Plain, BinMode::Table>,
                        "the warp-private kernel");
}

}  // namespace hs::cuda::detail
