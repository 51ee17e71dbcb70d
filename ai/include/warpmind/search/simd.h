// warpmind::search::Simd — the instruction sets of the learned evaluations' integer arithmetic
// (chess_network.h, connect6_network.h). Every path gives the same integers (tests hold them equal);
// best_simd() is AVX2 where the processor has it, else SSE2 on x86-64, else the scalar code.
#pragma once

namespace warpmind::search {

enum class Simd { Scalar, Sse2, Avx2 };
Simd best_simd();
bool supported(Simd s);

}  // namespace warpmind::search
