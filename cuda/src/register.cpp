#include "histoscope/cuda/register.hpp"

#include "kernels/strategies.hpp"

namespace hs::cuda {

void register_engines(EngineRegistry& registry) {
    registry.add(detail::make_block_shared_engine());
}

}  // namespace hs::cuda
