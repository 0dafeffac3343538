// Strategy "packed-sat": the saturating kernels of packed.cuh (planning and launch are shared
// with "packed" in packed.cu; the engine is in packed_sat_engine.cpp). Instantiated in a file
// of their own so that the two kernel families compile in parallel.

#include "kernels/packed.cuh"

namespace hs::cuda::detail {

PackedKernelPtr packed_saturating_kernel(const PackedArgs& a) {
    return packed_pick<true>(a);
}

}  // namespace hs::cuda::detail
