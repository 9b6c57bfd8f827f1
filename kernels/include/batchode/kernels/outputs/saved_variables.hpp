// kernels/outputs/: the series' choice of variables (SolveOptions::save_variables). A series saves every
// state and observable, or the chosen ones of a mask (RunSettings::series_variables), each at its rank among
// the chosen: its column in the result. The sinks (strided_outputs.hpp, the device's and the CPU's;
// observables.hpp) test this one helper, so every layout places a value in the same column.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"

namespace batchode {

/// Whether variable v (state v, else observable v - n_states) is set in `words` (a series_variables mask).
/// The sinks test it in loops unrolled over a compile-time count, so each variable's word and bit are
/// constants and the state stays in registers (an index table would index it at run time and push it
/// to local memory); a chosen value goes to the next column.
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool variable_chosen(const port::uint32_t* words, port::size_t v) {
  return v < series_variable_limit && ((words[v / 32] >> (v % 32)) & 1u) != 0;
}

}  // namespace batchode
