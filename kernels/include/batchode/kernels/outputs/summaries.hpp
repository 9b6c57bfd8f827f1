// kernels/outputs/: summary metrics accumulated as a run goes (issue 11): mean, std, rms, extrema, peaks and
// derivative extremes of chosen states and observables, per window of samples, never storing the
// series (the kinds and one variable's accumulators: summary_metrics.hpp). A sink wrapped around the
// series sink (SummarySink): its points are the summary samples (t0 + j * sample_summaries_every, landed
// or interpolated like any saved point); those that are also series saves (every series_every-th) go on
// to the series sink. The loops (kernels/loop/) know no summary: they call the sink interface, save()
// and, for a sink that takes its samples window by window (takes_windows), its five window calls.
//
// Samples and windows: sample 0 is the state at t0; it only starts the history (the previous values
// peaks and derivatives need). Window w holds samples w n + 1 .. (w + 1) n (n = summary_samples), the
// span (t0 + w T, t0 + (w + 1) T]. Every metric of a window is of its n samples: mean, std (population),
// rms, max, min, max_magnitude, the times of the max and the min (first sample of a tie); dxdt_* of the
// n backward differences (x_j - x_{j-1}) / dt; d2xdt2_* of the second differences (x_j - 2 x_{j-1} +
// x_{j-2}) / dt^2 (window 0 has n - 1: sample -1 does not exist); peaks[N] (negative_peaks[N]): the
// times of the first N samples greater (smaller) than both neighbours, strictly, in the window, NaN in
// the slots left. A sample is a peak once its next sample is seen, so the peaks of window w are
// complete only at window w + 1's first sample (which may add one at window w's last sample). A window
// a run never completes (failed, stopped by an event) holds NaN.
//
// Registers or memory: the accumulators a kernel carries are those of the kinds it was built for
// (`Kinds`, a mask of SummaryKind bits), for every variable that could be chosen (the first
// summary_variable_limit states and observables); the runtime mask picks which variables are written.
// A kernel built for exactly the solve's kinds (a runtime-compiled model's; a compiled-in system's
// for the kinds it declares, summary_kinds_v) knows them when compiling: no branch tests them, the
// loops over the variables are unrolled and the accumulators are registers. One built for every kind
// tests the plan's at run time and keeps its accumulators in the thread's local memory (loops not
// unrolled, indexed by the loop's counter; in registers they took a kernel to 158 registers, sm_90,
// and were slower). Measured (benchmarks/RESULTS.md, RK4 Lorenz, mean, max,
// peaks[3] every 10 steps): local memory 2.4x the plain kernel, its traffic going to L2 at every
// sample; registers with the kinds tested at run time 3.2x (the branches' merges copy every
// accumulator, ~80 moves a sample, and 143 registers); built for the kinds, see RESULTS.md. In
// registers every variable's accumulators are updated by selects, with no branch around them (each
// such branch's merge copied all of them), and the first sample's path (save 0) is not in the
// fixed-step loop (save_past_first); only the chosen variables' values are written. Fixed steps take
// such a kernel's samples window by window (open_window, take_sample, close_window: no sample tests
// where in its window it falls), which made it 1.23x the plain kernel instead of 1.42x (float, H100
// and H200). A kernel without summaries has none of it (the series kernel is another instantiation,
// kernels/launch/batch_kernel.hpp).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/outputs/observables.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_settings.hpp"
#include "batchode/kernels/outputs/summary_metrics.hpp"

namespace batchode {

/// A series sink (Base: strided_outputs.hpp's, or NoSeries) that also keeps summaries of the
/// variables plan.summary_variables chooses, through `Out`: Out::at(w, slot) places value `slot` of
/// window w (the device's runs-fastest layout or the result's run-major rows). Value c of kind K of the
/// i-th chosen variable is slot plan.summary_offset[K] + i * plan.summary_stride[K] + c. Built for the
/// kinds `Kinds`: all of them (the plan's metrics chosen at run time) or exactly the plan's
/// (summary_kernel_serves; the host launches it only then), which are then known when compiling.
template <class Base, class System, class T, class Out, port::uint32_t Kinds = all_summary_kinds>
struct SummarySink : Base {
  static constexpr bool active = true;
  static constexpr port::size_t N = System::n_states;
  static constexpr port::size_t O = n_observables_v<System>;
  static constexpr port::size_t V = N + O < summary_variable_limit ? N + O : summary_variable_limit;
  static constexpr bool in_registers = summaries_in_registers(Kinds);
  // (Names of their own: the series and event sinks around and beneath this one have sys, p, out, plan.)
  const System* summarised_system;
  const T* summary_params;
  Out summary_out;
  const RunSettings<T>* settings;
  detail::SummaryAccumulator<T> acc[V] = {};
  T t_previous{};
  port::uint32_t in_window = 0;  // samples of the current window taken
  port::uint32_t window = 0;     // the current window

  // The metrics each group of accumulators serves.
  static constexpr port::uint32_t squares = summary_bit(SummaryKind::std) | summary_bit(SummaryKind::rms);
  static constexpr port::uint32_t moments = summary_bit(SummaryKind::mean) | squares;
  static constexpr port::uint32_t extremes = summary_bit(SummaryKind::max) | summary_bit(SummaryKind::min) |
                                             summary_bit(SummaryKind::max_magnitude) |
                                             summary_bit(SummaryKind::max_time) |
                                             summary_bit(SummaryKind::min_time);
  static constexpr port::uint32_t slopes =
      summary_bit(SummaryKind::dxdt_max) | summary_bit(SummaryKind::dxdt_min);
  static constexpr port::uint32_t curvatures =
      summary_bit(SummaryKind::d2xdt2_max) | summary_bit(SummaryKind::d2xdt2_min);
  static constexpr port::uint32_t turns =
      summary_bit(SummaryKind::peaks) | summary_bit(SummaryKind::negative_peaks);

  /// Point k: a series save when it is one, and a summary sample (k = 0, the state at t0, only starts
  /// the history).
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void save(port::uint32_t k, T t, const T* y) {
    if (k != 0) {
      save_past_first(k, t, y);
      return;
    }
    series_save(0, t, y);
    T sample[V];
    variables(t, y, sample);
    if constexpr (in_registers) {
      BATCHODE_UNROLL
      for (port::size_t v = 0; v < V; ++v) start(acc[v], sample[v]);
    } else {
      BATCHODE_NO_UNROLL
      for (port::size_t v = 0; v < V; ++v) start(acc[v], sample[v]);
    }
    t_previous = t;
  }

  /// Point k >= 1 (kernels/loop/loop_parts.hpp's save_past_first: the fixed-step loop calls it, so no test of
  /// k == 0 and no merge with the first sample's path is in that loop).
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void save_past_first(port::uint32_t k, T t, const T* y) {
    const RunSettings<T>& pl = *settings;
    series_save(k, t, y);
    T sample[V];
    variables(t, y, sample);
    // A kernel built for a few kinds keeps exactly those: constants, so the branches on them fold
    // away (tested at run time they cost a copy of every accumulator at each merge: ~80 moves a
    // sample, sm_90).
    const port::uint32_t metrics = Kinds == all_summary_kinds ? pl.summary_metrics : Kinds;
    const bool first_of_window = in_window == 0;
    ++in_window;
    const bool writing = window < pl.summary_windows;
    if constexpr (in_registers) {
      // Samples past the last whole window are accumulated and never written, and a window closes
      // inside each variable's update: a branch around either would merge two copies of every
      // accumulator at each sample.
      const bool closing = in_window == pl.summary_samples;
      port::uint32_t rank = 0;
      BATCHODE_UNROLL
      for (port::size_t v = 0; v < V; ++v)
        take(v, sample[v], t, k, metrics, first_of_window, writing, closing, rank);
      t_previous = t;
      window += closing ? 1u : 0u;
      in_window = closing ? 0u : in_window;
    } else {
      // In memory there are no such copies: past the last whole window nothing is taken, and the
      // window closes in a loop of its own (inside this one it took 4 to 10 more registers, sm_90,
      // and fewer blocks fit an SM).
      if (!writing) return;
      port::uint32_t rank = 0;
      BATCHODE_NO_UNROLL
      for (port::size_t v = 0; v < V; ++v) take(v, sample[v], t, k, metrics, first_of_window, true, false, rank);
      t_previous = t;
      if (in_window == pl.summary_samples) close_window();
    }
  }

  /// Samples window by window (kernels/loop/fixed_step_loop.hpp's integrate_fixed_saving_every), in registers
  /// only: for each whole window open_window (its first sample), take_sample (each other one), close_window.
  /// None of them tests where in its window a sample falls, and the window's close and restart are
  /// not selects at every sample; in memory there are no merge copies to avoid (save_past_first).
  static constexpr bool takes_windows = in_registers;
  /// Samples per window (the integrator's loop over whole windows starts after save 0, which only
  /// starts the history).
  BATCHODE_HOST_DEVICE port::uint32_t samples_per_window() const { return settings->summary_samples; }
  /// The windows not yet closed.
  BATCHODE_HOST_DEVICE port::uint32_t windows_left() const {
    return window < settings->summary_windows ? settings->summary_windows - window : 0u;
  }
  /// The first sample k >= 1 of a window: a peak it completes is the window before's.
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void open_window(port::uint32_t k, T t, const T* y) { window_sample<true>(k, t, y); }
  /// A sample of a window past its first.
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void take_sample(port::uint32_t k, T t, const T* y) { window_sample<false>(k, t, y); }

  /// The current window's values of the chosen variables (when it is one of the plan's), and the
  /// next window started.
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void close_window() {
    const RunSettings<T>& pl = *settings;
    const port::uint32_t metrics = Kinds == all_summary_kinds ? pl.summary_metrics : Kinds;
    if constexpr (in_registers) {
      const bool writing = window < pl.summary_windows;
      BATCHODE_UNROLL
      for (port::size_t v = 0; v < V; ++v) {
        if (writing && chosen(v)) close_variable(acc[v], rank_of(v), metrics);
        detail::restart_window_if(true, acc[v], acc[v].previous);
      }
    } else {
      port::uint32_t rank = 0;
      BATCHODE_NO_UNROLL
      for (port::size_t v = 0; v < V; ++v) {
        if (!chosen(v)) continue;
        close_variable(acc[v], rank++, metrics);
        detail::restart_window_if(true, acc[v], acc[v].previous);
      }
    }
    ++window;
    in_window = 0;
  }

  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE void mark_unsaved(port::uint32_t k) {
    const RunSettings<T>& pl = *settings;
    if (pl.series_every != 0 && k % pl.series_every == 0 && k / pl.series_every < pl.n_series) {
      Base::mark_unsaved(k / pl.series_every);
    }
    // A window the run did not complete: all NaN (at its last point, so once per window).
    if (k == 0 || k % pl.summary_samples != 0) return;
    const port::uint32_t w = k / pl.summary_samples - 1;
    if (w >= pl.summary_windows) return;
    const T nan = T(0) / T(0);
    for (port::uint32_t s = 0; s < pl.summary_slots; ++s) summary_out.at(w, s) = nan;
  }

 private:
  /// Point k to the series sink beneath when it is a series save (every plan.series_every-th).
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void series_save(port::uint32_t k, T t, const T* y) {
    const RunSettings<T>& pl = *settings;
    if (pl.series_every != 0 && k % pl.series_every == 0 && k / pl.series_every < pl.n_series) {
      Base::save(k / pl.series_every, t, y);
    }
  }

  /// The values of the variables that may be summarised at (t, y): the states, then the observables
  /// (computed only when one is chosen), copied by constant indices (y stays in registers).
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void variables(T t, const T* y, T (&sample)[V]) const {
    T observed[O > 0 ? O : 1] = {};  // (zero when no observable is chosen: the copy below reads them)
    if constexpr (O > 0) {
      const RunSettings<T>& pl = *settings;
      if (N >= summary_variable_limit || (pl.summary_variables >> N) != 0)
        summarised_system->observables(t, y, summary_params, observed);
    }
    BATCHODE_UNROLL
    for (port::size_t v = 0; v < V; ++v) sample[v] = v < N ? y[v] : observed[v - N];
  }

  /// slot = value where `replace`: a select in registers (no branch whose merge would copy it), a
  /// conditional store in local memory (a select would store at every sample).
  template <class U>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE static void replace_if(bool replace, U& slot, U value) {
    if constexpr (in_registers) {
      slot = replace ? value : slot;
    } else if (replace) {
      slot = value;
    }
  }

  /// Whether a group of accumulators is kept by `metrics` (Kinds, a constant, in a kernel built for a
  /// few kinds; the plan's in one built for every kind).
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE static bool kept(port::uint32_t metrics, port::uint32_t group) {
    return (metrics & group) != 0;
  }

  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE static void start(detail::SummaryAccumulator<T>& a, T x) {
    a.previous = x;
    a.before_previous = x;
    a.peaks = 0;
    a.troughs = 0;
    detail::restart_window_if(true, a, x);
  }

  /// Sample x (at t, the k-th) of variable v, the rank-th chosen, if chosen. In registers every
  /// variable's accumulators are updated and only the chosen ones' values written, with no branch
  /// around the updates (whose merges would copy the accumulators), and with `closing` (the window's
  /// last sample) the window's values are written (when `writing`) and the next window started; in
  /// memory the variables not chosen are skipped and close_window closes the window.
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void take(port::size_t v, T x, T t, port::uint32_t k,
                                                      port::uint32_t metrics,
                                                      bool first_of_window, bool writing, bool closing,
                                                      port::uint32_t& rank) {
    const RunSettings<T>& pl = *settings;
    const bool is_chosen = chosen(v);
    if (!in_registers && !is_chosen) return;
    const port::uint32_t i = rank;
    rank += is_chosen ? 1u : 0u;
    const bool write = writing && is_chosen;
    detail::SummaryAccumulator<T>& a = acc[v];
    if (kept(metrics, turns)) {
      // The previous sample is a peak (a trough) of its own window once this one is seen. (Never at
      // sample 1: the history starts with previous = before_previous, sample 0.)
      const port::uint32_t its_window = first_of_window ? window - 1 : window;
      if (kept(metrics, summary_bit(SummaryKind::peaks))) {
        const bool peak = a.previous > x && a.previous > a.before_previous && a.peaks < pl.summary_peaks;
        if (peak && write) summary_out.at(its_window, slot(SummaryKind::peaks, i, a.peaks)) = t_previous;
        replace_if(peak, a.peaks, a.peaks + 1u);
      }
      if (kept(metrics, summary_bit(SummaryKind::negative_peaks))) {
        const bool trough =
            a.previous < x && a.previous < a.before_previous && a.troughs < pl.summary_negative_peaks;
        if (trough && write) {
          summary_out.at(its_window, slot(SummaryKind::negative_peaks, i, a.troughs)) = t_previous;
        }
        replace_if(trough, a.troughs, a.troughs + 1u);
      }
      replace_if(first_of_window, a.peaks, 0u);
      replace_if(first_of_window, a.troughs, 0u);
    }
    accumulate(a, x, t, metrics, k >= 2);  // (sample 1 has no second difference: sample -1 does not exist)
    if constexpr (in_registers) {
      if (closing && write) close_variable(a, i, metrics);
      detail::restart_window_if(closing, a, x);
    }
  }

  /// Whether variable v is summarised (RunSettings::summary_variables).
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool chosen(port::size_t v) const {
    return ((settings->summary_variables >> v) & 1u) != 0;
  }

  /// Where variable v is among the chosen ones (0 for the first); v a constant in an unrolled loop.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE port::uint32_t rank_of(port::size_t v) const {
    port::uint32_t rank = 0;
    for (port::size_t u = 0; u < v; ++u) rank += chosen(u) ? 1u : 0u;
    return rank;
  }

  /// A sample of the loop over whole windows (registers): every variable's accumulators updated with
  /// no test of the window's bounds (Opening: the window's first sample).
  BATCHODE_HD_TEMPLATE
  template <bool Opening>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void window_sample(port::uint32_t k, T t, const T* y) {
    series_save(k, t, y);
    T sample[V];
    variables(t, y, sample);
    BATCHODE_UNROLL
    for (port::size_t v = 0; v < V; ++v) update<Opening>(v, sample[v], t, k);
    t_previous = t;
    ++in_window;
  }

  /// Sample x (at t, the k-th) of variable v in a whole window (registers, Kinds known): the
  /// accumulators updated by selects; a peak (trough) of the sample before written where it is found.
  BATCHODE_HD_TEMPLATE
  template <bool Opening>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void update(port::size_t v, T x, T t, port::uint32_t k) {
    const RunSettings<T>& pl = *settings;
    constexpr port::uint32_t metrics = Kinds;
    detail::SummaryAccumulator<T>& a = acc[v];
    if (kept(metrics, turns)) {
      // The sample before is of the window before when this one opens a window.
      const port::uint32_t its_window = Opening ? window - 1 : window;
      if (kept(metrics, summary_bit(SummaryKind::peaks)) && a.previous > x && a.previous > a.before_previous) {
        note_turn(v, SummaryKind::peaks, its_window, a.peaks, pl.summary_peaks);
      }
      if (kept(metrics, summary_bit(SummaryKind::negative_peaks)) && a.previous < x &&
          a.previous < a.before_previous) {
        note_turn(v, SummaryKind::negative_peaks, its_window, a.troughs, pl.summary_negative_peaks);
      }
      if (Opening) {
        a.peaks = 0;
        a.troughs = 0;
      }
    }
    accumulate(a, x, t, metrics, !Opening || k >= 2);  // (only sample 1, which opens window 0, has no d2x)
  }

  /// A peak (trough, by kind) of variable v at the sample before, in window w: its time into the
  /// next of the window's `limit` slots (count of them taken) while one is left. (A branch taken
  /// at a few samples of a window; everything it needs beyond the test is computed inside.)
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void note_turn(port::size_t v, SummaryKind kind, port::uint32_t w,
                                                           port::uint32_t& count, port::uint32_t limit) {
    if (count >= limit) return;
    if (w < settings->summary_windows && chosen(v)) summary_out.at(w, slot(kind, rank_of(v), count)) = t_previous;
    ++count;
  }

  /// Sample x (at t) into a's accumulators but the peaks', those of the groups `metrics` keeps (the
  /// same branch for every run of a warp; none in a kernel built for a few kinds), and into the
  /// history. `second`: the sample has a second difference (all but sample 1).
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE static void accumulate(detail::SummaryAccumulator<T>& a, T x, T t,
                                                                   port::uint32_t metrics, bool second) {
    if (kept(metrics, moments)) {
      const T s = x - a.shift;
      a.sum += s;
      if (kept(metrics, squares)) a.sum_squares += s * s;
    }
    if (kept(metrics, extremes)) {
      const bool above = x > a.max, below = x < a.min;
      replace_if(above, a.max, x);
      replace_if(above, a.t_max, t);
      replace_if(below, a.min, x);
      replace_if(below, a.t_min, t);
    }
    if (kept(metrics, slopes)) {
      const T dx = x - a.previous;
      replace_if(dx > a.dx_max, a.dx_max, dx);
      replace_if(dx < a.dx_min, a.dx_min, dx);
    }
    if (kept(metrics, curvatures)) {
      const T d2x = (x - a.previous) - (a.previous - a.before_previous);
      replace_if(second && d2x > a.d2x_max, a.d2x_max, d2x);
      replace_if(second && d2x < a.d2x_min, a.d2x_min, d2x);
    }
    a.before_previous = a.previous;
    a.previous = x;
  }

  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE port::uint32_t slot(SummaryKind kind, port::uint32_t i,
                                                                port::uint32_t c) const {
    const port::uint32_t k = static_cast<port::uint32_t>(kind);
    return settings->summary_offset[k] + i * settings->summary_stride[k] + c;
  }

  /// Value `value` of kind `kind` of the i-th chosen variable into the current window, if kept.
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void put(port::uint32_t metrics, port::uint32_t i,
                                                     SummaryKind kind, T value) {
    if (kept(metrics, summary_bit(kind))) summary_out.at(window, slot(kind, i, 0)) = value;
  }

  /// The window's values of the i-th chosen variable (accumulated in a).
  BATCHODE_HD_TEMPLATE
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void close_variable(const detail::SummaryAccumulator<T>& a,
                                                                port::uint32_t i, port::uint32_t metrics) {
    const RunSettings<T>& pl = *settings;
    const T n = static_cast<T>(pl.summary_samples);
    const T dt = pl.save_every;
    const T nan = T(0) / T(0);
    const T m = a.sum / n;
    const T q = a.sum_squares / n;
    const T variance = q - m * m;
    put(metrics, i, SummaryKind::mean, a.shift + m);
    put(metrics, i, SummaryKind::std, port::sqrt(variance > T(0) ? variance : T(0)));
    const T mean_square = q + T(2) * a.shift * m + a.shift * a.shift;  // of x = s + shift
    put(metrics, i, SummaryKind::rms, port::sqrt(mean_square > T(0) ? mean_square : T(0)));
    put(metrics, i, SummaryKind::max, a.max);
    put(metrics, i, SummaryKind::min, a.min);
    put(metrics, i, SummaryKind::max_magnitude,
        port::fabs(a.max) > port::fabs(a.min) ? port::fabs(a.max) : port::fabs(a.min));
    put(metrics, i, SummaryKind::max_time, a.t_max);
    put(metrics, i, SummaryKind::min_time, a.t_min);
    put(metrics, i, SummaryKind::dxdt_max, a.dx_max / dt);
    put(metrics, i, SummaryKind::dxdt_min, a.dx_min / dt);
    // Window 0 of one sample has no second difference: NaN, not -inf / dt^2.
    const bool has_d2 = window > 0 || pl.summary_samples > 1;
    put(metrics, i, SummaryKind::d2xdt2_max, has_d2 ? a.d2x_max / (dt * dt) : nan);
    put(metrics, i, SummaryKind::d2xdt2_min, has_d2 ? a.d2x_min / (dt * dt) : nan);
    // The slots no peak took: NaN (a peak at this window's last sample may still take one). Loops
    // of a few stores, not unrolled (unrolled, their set-up cost more than the stores, once a window).
    if (kept(metrics, summary_bit(SummaryKind::peaks))) {
      BATCHODE_NO_UNROLL
      for (port::uint32_t c = a.peaks; c < pl.summary_peaks; ++c)
        summary_out.at(window, slot(SummaryKind::peaks, i, c)) = nan;
    }
    if (kept(metrics, summary_bit(SummaryKind::negative_peaks))) {
      BATCHODE_NO_UNROLL
      for (port::uint32_t c = a.troughs; c < pl.summary_negative_peaks; ++c) {
        summary_out.at(window, slot(SummaryKind::negative_peaks, i, c)) = nan;
      }
    }
  }
};

}  // namespace batchode
