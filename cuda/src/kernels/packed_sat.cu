// Strategy "packed-sat": the saturating kernels of packed_kernel.cuh (planning and launch are
// shared with "packed" in packed.cu, both engines are in packed_engine.cpp). Instantiated in a
// file of their own so that the two kernel families compile in parallel.

#include "kernels/packed_kernel.cuh"

namespace hs::cuda::detail {

PackedKernelPtr packed_saturating_kernel(const PackedArgs& a) {
    return packed_pick<true>(a);
}

}  // namespace hs::cuda::detail
