// kernels/outputs/: observables. A system may define named auxiliary quantities computed from (t, y, p) (its
// n_observables and an observables() member; kernels/core/system.hpp, n_observables_v); wherever a run
// saves its state (at a save time, landed or interpolated) it also saves them, computed from the saved
// state. The saving is a sink wrapped around the series sink (ObservableSink), so the integrator
// (run_integrator.hpp) knows nothing of it, and systems without observables, or solves without saves,
// compile none of it.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/outputs/saved_variables.hpp"

namespace batchode {

/// A series sink (Base: the device's or the CPU's) that also saves the system's observables at every
/// saved point, through `Out`, which places column c of W observables of save k: Out::at(k, c, W) (the
/// device's runs-fastest layout or the result's run-major rows). Every observable is saved (W = O), or
/// those the plan chose (its series_variables, where observable o is variable n_states + o;
/// saved_variables.hpp), each at its rank among them. Forwards everything else to Base (events wrap
/// this sink in turn). The observables are computed from the saved state, so an interpolated point's
/// observables are those of its interpolated state; a point never reached holds NaN.
template <class Base, class System, class T, class Out>
struct ObservableSink : Base {
  static constexpr port::size_t O = n_observables_v<System>;
  const System* sys;
  const T* p;
  Out out;
  const RunSettings<T>* selection;  ///< the plan: its choice of variables (on a GPU: the kernel's parameter)
  // Base and Out are the CPU's (host only) or the device's: nvcc must not check the host pair.
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void save(port::uint32_t k, T t, const T* y) {
    Base::save(k, t, y);
    if (selection->series_chosen != 0 && selection->series_observables == 0) return;  // none chosen: none computed
    T values[O > 0 ? O : 1];
    sys->observables(t, y, p, values);
    if (selection->series_chosen == 0) {
      BATCHODE_UNROLL
      for (port::size_t o = 0; o < O; ++o) out.at(k, o, O) = values[o];
    } else {
      const port::size_t width = selection->series_observables;
      port::size_t c = 0;
      BATCHODE_UNROLL
      for (port::size_t o = 0; o < O; ++o) {
        if (variable_chosen(selection->series_variables, System::n_states + o)) out.at(k, c++, width) = values[o];
      }
    }
  }
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void mark_unsaved(port::uint32_t k) {
    Base::mark_unsaved(k);
    const T nan = T(0) / T(0);
    const port::size_t width = selection->series_chosen == 0 ? O : selection->series_observables;
    for (port::size_t c = 0; c < width; ++c) out.at(k, c, width) = nan;
  }
};

}  // namespace batchode
