#pragma once
// Scope specs by what they show, for the tests of the scope engines (core's and the GPU's).

#include "histoscope/core/scopes.hpp"

namespace hs::test {

inline ScopeSpec waveform(Channel c, int levels = 256, int columns = 0) {
    ScopeSpec s;
    s.kind = ScopeKind::Waveform;
    s.channel = c;
    s.levels = levels;
    s.columns = columns;
    return s;
}

inline ScopeSpec parade(int levels = 256, int columns = 0) {
    ScopeSpec s = waveform(Channel::R, levels, columns);
    s.kind = ScopeKind::Parade;
    return s;
}

inline ScopeSpec vectorscope(int size, ChromaMatrix m = ChromaMatrix::Rec601) {
    ScopeSpec s;
    s.kind = ScopeKind::Vectorscope;
    s.size = size;
    s.matrix = m;
    return s;
}

}  // namespace hs::test
