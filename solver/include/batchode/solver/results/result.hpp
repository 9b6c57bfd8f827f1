// solver/results/: the result of a batch solve: every run's final state, saved series, status and counters,
// kept together with their layout, plus where the batch ran and why (execution_record.hpp).
//
// Layouts (all run-major: run r's values are contiguous):
//   final_state()  n_runs x n_states             index r * n_states + s
//   series()       n_runs x n_saves x W          index (r * n_saves + k) * W + c: W = n_series_states()
//                  columns, every state or those SolveOptions::save_variables chose (series_states())
//   times()        n_saves                       t0 + k * save_every, or save_at
//                  n_runs x n_saves              save_at_per_run (times_per_run(): index r * n_saves + k)
//   statuses(), stop_times(), counters()  n_runs
//   observables()  n_runs x n_saves x n_observables  index (r * n_saves + k) * n_observables + o (the
//                  saved ones: every observable, or those save_variables chose)
//   events          n_runs x n_events x event_slots x (1 + n_states)   (time, then the state)
//   event_counts    n_runs x n_events
// Points a failed run never reached hold NaN in series(). stop_times() holds the time of each run's
// final state: t_end, a terminal event's, or where a failed run stopped. statuses() and stop_times()
// (kept together), and counters(), are empty when SolveOptions.outputs.status / .counters were off
// (their accessors then throw std::logic_error).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/arrays/result_memory.hpp"
#include "batchode/arrays/result_view.hpp"
#include "batchode/checks/checked_size.hpp"
#include "batchode/solver/results/execution_record.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/setup/backend_settings.hpp"
#include "batchode/solver/setup/series_layout.hpp"
#include "batchode/solver/setup/summary_layout.hpp"
#include "batchode/kernels/core/status.hpp"

namespace batchode {

class EnsembleStatistics;  // solver/results/ensemble_statistics.hpp: included where they are read

/// What a batch solve returns (Solver::solve, solve_ivp): every run's final state and status, and the
/// series, observables, events, summaries and counters its SolveOptions asked for, in precision T,
/// with where each part of the batch ran (execution()). The arrays are run-major, laid out as the
/// comment at the top of batchode/solver/results/result.hpp says; a failed run is never
/// dropped (its status says why).
template <class T>
class SolveResult {
 public:
  SolveResult() = default;
  /// A result shaped for a solve; its large arrays come from `memory` when given (a Solver's pool).
  /// `observable_names`: the saved observables (kernels/outputs/observables.hpp), kept at every save: the
  /// system's, or those `series` chose. `series`: the series' columns (solver/setup/series_layout.hpp);
  /// null: every state. `series_moments`: the GPU reduces the series and observables into it
  /// (ResultView::series_moments), so the result holds neither, only their shape and save times.
  /// Throws InvalidInput when an array's size does not fit in size_t, std::bad_alloc.
  SolveResult(std::size_t n_runs, std::size_t n_states, std::size_t n_saves, const SolveOptions& options,
              const std::shared_ptr<ResultMemoryPool>& memory = nullptr,
              std::vector<std::string> observable_names = {},
              std::shared_ptr<const SummaryLayout> summaries = nullptr,
              std::shared_ptr<const SeriesLayout> series = nullptr,
              arrays::SeriesMomentsSink* series_moments = nullptr)
      : n_runs_(n_runs),
        n_states_(n_states),
        n_saves_(n_saves),
        method_(options.method),
        final_state_(DefaultInitAllocator<T>(memory)),
        series_(DefaultInitAllocator<T>(memory)),
        status_(DefaultInitAllocator<Status>(memory)),
        stop_time_(DefaultInitAllocator<T>(memory)),
        counters_(DefaultInitAllocator<RunCounters>(memory)),
        events_(DefaultInitAllocator<T>(memory)),
        event_counts_(DefaultInitAllocator<std::uint32_t>(memory)),
        observables_(DefaultInitAllocator<T>(memory)),
        observable_names_(std::move(observable_names)),
        summaries_(DefaultInitAllocator<T>(memory)),
        summary_layout_(summaries != nullptr && !summaries->empty() ? std::move(summaries) : nullptr),
        series_layout_(std::move(series)),
        series_moments_(series_moments) {
    if (series_layout_ != nullptr && !series_layout_->all) {
      series_states_ = series_layout_->states;
    } else {
      series_states_.resize(n_states);
      for (std::size_t s = 0; s < n_states; ++s) series_states_[s] = s;
    }
    // Every size before any allocation: an overflow is refused before memory is touched, and each
    // run's own save times must be the batch's (one row per run, n_saves each).
    if (saves_per_run(options)) {
      check_options_for_batch(options, n_runs);
      if (options.save_at_per_run.n_saves() != n_saves) {
        throw std::logic_error("SolveResult: " + std::to_string(n_saves) + " saves for per-run save times of " +
                               std::to_string(options.save_at_per_run.n_saves()));
      }
    }
    const std::size_t final_values =
        checks::checked_mul(n_runs, n_states, "result final states (n_runs x n_states)");
    const std::size_t series_values = checks::checked_product({n_runs, n_saves, series_states_.size()},
                                                              "result series (n_runs x n_saves x saved states)");
    const EventShape shape = event_shape(options);
    const std::size_t event_values = checks::checked_product(
        {n_runs, shape.n_events, shape.slots, 1 + n_states}, "result events (n_runs x n_events x slots x (1 + n_states))");
    const std::size_t observable_values = checks::checked_product(
        {n_runs, n_saves, observable_names_.size()}, "result observables (n_runs x n_saves x n_observables)");
    const std::size_t summary_values =
        summary_layout_ == nullptr ? 0
                                   : checks::checked_product({n_runs, summary_layout_->windows, summary_layout_->slots},
                                                             "result summaries (n_runs x windows x values per window)");
    final_state_.resize(final_values);
    summaries_.resize(summary_values);
    if (series_moments_ == nullptr) {
      series_.resize(series_values);
      observables_.resize(observable_values);
    }
    events_.resize(event_values);
    event_counts_.resize(n_runs * shape.n_events);
    event_slots_ = shape.slots;
    for (std::size_t e = 0; e < shape.n_events; ++e) {
      event_names_.push_back(event_name(options, e));
      event_specs_.push_back(options.events[e]);
      event_specs_.back().name = event_names_.back();
    }
    if (saves_per_run(options)) {  // the batch's own rows: one per run (checked above)
      times_per_run_ = true;
      const std::vector<double>& own = options.save_at_per_run.times();
      times_.resize(own.size());
      std::transform(own.begin(), own.end(), times_.begin(), [](double t) { return static_cast<T>(t); });
    } else if (n_saves > 0 && !options.save_at.empty()) {
      times_.resize(n_saves);
      for (std::size_t k = 0; k < n_saves; ++k) times_[k] = static_cast<T>(options.save_at[k]);
    } else if (n_saves > 0) {
      times_.resize(n_saves);
      // Settings of their own: the solve's point at these times (made after them). save_time is the one
      // formula; with summaries the series is every series_every-th sample, at the sample's time.
      const RunSettings<T> settings = make_run_settings<T>(options, nullptr, summary_layout_.get());
      for (std::size_t k = 0; k < n_saves; ++k) {
        times_[k] = save_time(settings, static_cast<std::uint32_t>(k * settings.series_every));
      }
    }
    if (options.outputs.status) {
      status_.resize(n_runs);
      stop_time_.resize(n_runs);
    }
    if (options.outputs.counters) counters_.resize(n_runs);
  }

  std::size_t n_runs() const noexcept { return n_runs_; }
  std::size_t n_states() const noexcept { return n_states_; }
  std::size_t n_saves() const noexcept { return n_saves_; }
  Method method() const noexcept { return method_; }

  /// n_runs x n_states, run-major.
  const ResultArray<T>& final_state() const noexcept { return final_state_; }
  /// Final value of state `s` of run `r`. Throws std::out_of_range.
  T final_state(std::size_t r, std::size_t s) const { return final_state_.at(index(r, s)); }

  /// Save times (empty when none was set): n_saves shared by every run, or n_runs x n_saves, run-major,
  /// when each run has its own (times_per_run()). The plan's save times point here.
  const std::vector<T>& times() const noexcept { return times_; }
  /// Whether each run has save times of its own (SolveOptions::save_at_per_run).
  bool times_per_run() const noexcept { return times_per_run_; }
  /// Time of save k of run r (the shared times' k-th, or run r's own). Throws std::out_of_range.
  T time(std::size_t r, std::size_t k) const {
    if (r >= n_runs_ || k >= n_saves_) {
      throw std::out_of_range("time(" + std::to_string(r) + ", " + std::to_string(k) + ") outside " +
                              std::to_string(n_runs_) + " runs x " + std::to_string(n_saves_) + " saves");
    }
    return times_[times_per_run_ ? r * n_saves_ + k : k];
  }
  /// n_runs x n_saves x n_series_states(), run-major.
  const ResultArray<T>& series() const noexcept { return series_; }
  /// Column `c` of the series (state series_states()[c]; state c when every state is saved) of run `r`
  /// at save `k`. Throws std::out_of_range.
  T state_at(std::size_t r, std::size_t k, std::size_t c) const {
    const std::size_t w = n_series_states();
    if (r >= n_runs_ || k >= n_saves_ || c >= w) {
      throw std::out_of_range("state_at(" + std::to_string(r) + ", " + std::to_string(k) + ", " +
                              std::to_string(c) + ") outside " + std::to_string(n_runs_) + " runs x " +
                              std::to_string(n_saves_) + " saves x " + std::to_string(w) + " saved states");
    }
    return series_[(r * n_saves_ + k) * w + c];
  }
  /// The series' columns (SolveOptions::save_variables): how many states each save keeps, and which
  /// (their indices in the system, in its order; 0 .. n_states - 1 when every state is saved).
  std::size_t n_series_states() const noexcept { return series_states_.size(); }
  const std::vector<std::size_t>& series_states() const noexcept { return series_states_; }
  /// The names of the system's states, in order: the final state's columns (empty for a result made
  /// without the system's names; files then call state s "y<s>").
  const std::vector<std::string>& state_names() const noexcept {
    static const std::vector<std::string> none;
    return series_layout_ ? series_layout_->system_state_names : none;
  }
  /// The saved states' names, in column order (empty for a result made without the system's names).
  const std::vector<std::string>& series_state_names() const noexcept {
    static const std::vector<std::string> none;
    return series_layout_ ? series_layout_->state_names : none;
  }
  /// The column of the saved state called `name`. Throws std::out_of_range naming the saved ones.
  std::size_t series_column(const std::string& name) const {
    return index_of(series_state_names(), name, "saved state");
  }
  /// Whether the series keeps every state and observable (no SolveOptions::save_variables choice).
  bool saves_every_variable() const noexcept { return series_layout_ == nullptr || series_layout_->all; }
  /// The series' columns as the Solver resolved them (null for a result made without them: every state).
  const SeriesLayout* series_layout() const noexcept { return series_layout_.get(); }
  std::shared_ptr<const SeriesLayout> shared_series_layout() const noexcept { return series_layout_; }

  /// The saved observables (kernels/outputs/observables.hpp; the system's, or those save_variables chose),
  /// beside the state at every save.
  std::size_t n_observables() const noexcept { return observable_names_.size(); }
  const std::vector<std::string>& observable_names() const noexcept { return observable_names_; }
  /// n_runs x n_saves x n_observables, run-major (empty without saves or observables).
  const ResultArray<T>& observables() const noexcept { return observables_; }
  /// Observable `o` of run `r` at save `k` (NaN where the run never got there). Throws std::out_of_range.
  T observable_at(std::size_t r, std::size_t k, std::size_t o) const {
    if (r >= n_runs_ || k >= n_saves_ || o >= n_observables()) {
      throw std::out_of_range("observable_at(" + std::to_string(r) + ", " + std::to_string(k) + ", " +
                              std::to_string(o) + ") outside " + std::to_string(n_runs_) + " runs x " +
                              std::to_string(n_saves_) + " saves x " + std::to_string(n_observables()) +
                              " observables");
    }
    return observables_[(r * n_saves_ + k) * n_observables() + o];
  }
  /// The index of the observable called `name`. Throws std::out_of_range naming those there are.
  std::size_t observable_index(const std::string& name) const {
    return index_of(observable_names_, name, "observable");
  }

  /// The solve's summaries (SolveOptions::summaries; solver/setup/summary_layout.hpp): null when none were
  /// asked for.
  const SummaryLayout* summary_layout() const noexcept { return summary_layout_.get(); }
  std::shared_ptr<const SummaryLayout> shared_summary_layout() const noexcept { return summary_layout_; }
  /// Windows per run (0 without summaries).
  std::size_t n_summary_windows() const noexcept { return summary_layout_ ? summary_layout_->windows : 0; }
  /// The summarised states and observables, by name, in their values' order.
  const std::vector<std::string>& summary_variables() const noexcept {
    static const std::vector<std::string> none;
    return summary_layout_ ? summary_layout_->variable_names : none;
  }
  /// n_runs x windows x values per window, run-major (SummaryLayout places the values of a window).
  const ResultArray<T>& summaries() const noexcept { return summaries_; }
  /// Value c (0: the only one; extrema: 0 max, 1 min; peaks[n]: the c-th) of summary `name` of the
  /// summarised variable `v` (summary_variables()' index) in window w of run r; NaN where the run never
  /// completed the window, or no such peak was found. Throws std::out_of_range.
  T summary_at(std::size_t r, std::size_t w, const std::string& name, std::size_t v, std::size_t c = 0) const {
    const SummaryOutput& out = summary_output(name);
    const std::size_t vars = summary_layout_->variables.size();
    if (r >= n_runs_ || w >= summary_layout_->windows || v >= vars || c >= out.width) {
      throw std::out_of_range("summary_at(" + std::to_string(r) + ", " + std::to_string(w) + ", " + name + ", " +
                              std::to_string(v) + ", " + std::to_string(c) + ") outside " + std::to_string(n_runs_) +
                              " runs x " + std::to_string(summary_layout_->windows) + " windows x " +
                              std::to_string(vars) + " variables x " + std::to_string(out.width) + " values");
    }
    return summaries_[(r * summary_layout_->windows + w) * summary_layout_->slots + out.offset + v * out.width + c];
  }
  /// Summary `name` of every run as one dense array, n_runs x windows x summarised variables x its
  /// width (what the writers and Python give). Throws std::out_of_range.
  std::vector<T> summary(const std::string& name) const {
    const SummaryOutput& out = summary_output(name);
    const std::size_t block = summary_layout_->variables.size() * out.width;
    const std::size_t rows = n_runs_ * summary_layout_->windows;
    std::vector<T> values(rows * block);
    for (std::size_t i = 0; i < rows; ++i) {
      const T* from = summaries_.data() + i * summary_layout_->slots + out.offset;
      std::copy(from, from + block, values.begin() + static_cast<std::ptrdiff_t>(i * block));
    }
    return values;
  }
  /// The summary asked for as `name`. Throws std::out_of_range (naming those there are).
  const SummaryOutput& summary_output(const std::string& name) const {
    if (!summary_layout_) throw std::out_of_range("no summary '" + name + "': this solve kept no summaries");
    return summary_layout_->output(name);
  }

  /// Status of run `r`. Throws std::logic_error when statuses were not selected, std::out_of_range.
  Status status(std::size_t r) const {
    require_statuses();
    return status_.at(r);
  }
  const ResultArray<Status>& statuses() const noexcept { return status_; }
  /// The time of run `r`'s final state: t_end for a run that reached it, the event's time for one a
  /// terminal event stopped, else the time the run failed at. Kept with the statuses: throws
  /// std::logic_error when they were not selected, std::out_of_range.
  T stop_time(std::size_t r) const {
    require_statuses();
    return stop_time_.at(r);
  }
  /// Every run's stop time; empty when SolveOptions.outputs.status was off.
  const ResultArray<T>& stop_times() const noexcept { return stop_time_; }
  /// Counters of run `r`. Throws std::logic_error when counters were not selected, std::out_of_range.
  const RunCounters& counters(std::size_t r) const {
    if (counters_.empty() && n_runs_ > 0) {
      throw std::logic_error("counters were not selected for this solve (SolveOptions.outputs.counters)");
    }
    return counters_.at(r);
  }
  /// Every run's counters; empty when SolveOptions.outputs.counters was off.
  const ResultArray<RunCounters>& counters() const noexcept { return counters_; }

  /// Number of runs that ended with `s`. Throws std::logic_error when statuses were not selected.
  std::size_t count(Status s) const {
    require_statuses();
    std::size_t n = 0;
    for (Status x : status_) n += (x == s);
    return n;
  }
  /// Whether every run finished: reached t_end, or stopped at a terminal event (finished(Status)).
  bool all_succeeded() const {
    require_statuses();
    return static_cast<std::size_t>(std::count_if(status_.begin(), status_.end(), finished)) == n_runs_;
  }

  /// Event functions of the system (SolveOptions::events), their names, and the crossings stored
  /// per event and run (the largest max).
  std::size_t n_events() const noexcept { return event_names_.size(); }
  const std::vector<std::string>& event_names() const noexcept { return event_names_; }
  std::size_t event_slots() const noexcept { return event_slots_; }
  /// The index of the event called `name`. Throws std::out_of_range naming the events there are.
  std::size_t event_index(const std::string& name) const { return index_of(event_names_, name, "event"); }
  /// Crossings of event e that run r met: stored up to the event's max, counted past it (a count above
  /// max says later crossings were not stored). Throws std::out_of_range.
  std::uint32_t event_count(std::size_t r, std::size_t e) const {
    check_event(r, e, 0, "event_count");
    return event_counts_[r * n_events() + e];
  }
  /// Time of the j-th stored crossing of event e in run r; NaN where none was stored. Throws
  /// std::out_of_range.
  T event_time(std::size_t r, std::size_t e, std::size_t j) const {
    check_event(r, e, j, "event_time");
    return events_[event_at(r, e, j)];
  }
  /// State s at that crossing (interpolated on the step's dense output); NaN where none was stored.
  T event_state(std::size_t r, std::size_t e, std::size_t j, std::size_t s) const {
    check_event(r, e, j, "event_state");
    if (s >= n_states_) throw std::out_of_range("event_state: state " + std::to_string(s) + " of " + std::to_string(n_states_));
    return events_[event_at(r, e, j) + 1 + s];
  }
  /// The crossings of event e stored per run (its EventSpec::max; slots past it stay NaN).
  std::size_t event_max(std::size_t e) const { return event_specs_.at(e).max; }
  /// Event e as the solve had it (its name as event_names() gives it, direction, action, max): what
  /// writers record beside its crossings.
  const EventSpec& event_spec(std::size_t e) const { return event_specs_.at(e); }
  /// Whether event e ends its run (EventAction::terminal).
  bool event_terminal(std::size_t e) const {
    return event_specs_.at(e).action == EventAction::terminal;
  }
  /// The terminal event that ended run r (Status::stopped_by_event): the first terminal event the
  /// run met (two that cross at the same point are both counted; the lower index is named), or
  /// n_events() when r did not stop at an event. Throws std::logic_error without statuses.
  std::size_t stopping_event(std::size_t r) const {
    if (status(r) != Status::stopped_by_event) return n_events();
    for (std::size_t e = 0; e < n_events(); ++e) {
      if (event_specs_[e].action == EventAction::terminal && event_counts_[r * n_events() + e] > 0) return e;
    }
    return n_events();
  }
  /// Every run's event records (layout above) and counts.
  const ResultArray<T>& events() const noexcept { return events_; }
  const ResultArray<std::uint32_t>& event_counts() const noexcept { return event_counts_; }

  /// Where the batch ran: one record per part (CPU, each GPU, fallbacks).
  const std::vector<ExecutionRecord>& execution() const noexcept { return execution_; }

  /// Statistics across the runs at every save time (SolveOptions::statistics): null when none were
  /// asked for.
  const EnsembleStatistics* statistics() const noexcept { return statistics_.get(); }
  std::shared_ptr<const EnsembleStatistics> shared_statistics() const noexcept { return statistics_; }
  void set_statistics(std::shared_ptr<const EnsembleStatistics> statistics) { statistics_ = std::move(statistics); }

  /// Drops the series, the saved observables and the save times (a solve whose series fed its ensemble
  /// statistics alone: OutputSelection::series off): n_saves() is 0 after, and their memory is freed.
  void drop_series() {
    n_saves_ = 0;
    ResultArray<T>(series_.get_allocator()).swap(series_);
    ResultArray<T>(observables_.get_allocator()).swap(observables_);
    times_.clear();
    times_.shrink_to_fit();
    times_per_run_ = false;
    series_moments_ = nullptr;
  }

  /// Copies the per-run rows of `part`, the result of runs [first_run, first_run + part.n_runs()) of this
  /// result's batch solved alone, into those rows: final states, statuses and stop times, counters,
  /// events and their counts, summaries, and the series and observables where this result keeps them
  /// (then with the same save times). Its execution records join this result's, moved to those runs.
  /// Throws std::logic_error when the two are not shaped alike.
  void place_runs(const SolveResult& part, std::size_t first_run) {
    if (first_run + part.n_runs_ > n_runs_ || part.n_states_ != n_states_ || part.event_slots_ != event_slots_ ||
        part.n_events() != n_events() || (n_saves_ > 0 && part.n_saves_ != n_saves_)) {
      throw std::logic_error("SolveResult::place_runs: a part shaped unlike the result");
    }
    auto rows = [&](auto& into, const auto& from) {
      if (into.empty() || part.n_runs_ == 0) return;
      const std::size_t width = from.size() / part.n_runs_;
      if (width * n_runs_ != into.size()) throw std::logic_error("SolveResult::place_runs: rows of another width");
      std::copy(from.begin(), from.end(), into.begin() + static_cast<std::ptrdiff_t>(first_run * width));
    };
    rows(final_state_, part.final_state_);
    rows(status_, part.status_);
    rows(stop_time_, part.stop_time_);
    rows(counters_, part.counters_);
    rows(events_, part.events_);
    rows(event_counts_, part.event_counts_);
    rows(summaries_, part.summaries_);
    if (n_saves_ > 0) {
      rows(series_, part.series_);
      rows(observables_, part.observables_);
    }
    for (ExecutionRecord record : part.execution_) {
      record.first_run += first_run;
      execution_.push_back(std::move(record));
    }
  }

  /// The pool the large arrays came from (null when none); the GPU path asks it which are pinned.
  const ResultMemoryPool* memory() const noexcept { return final_state_.get_allocator().pool.get(); }

  // Writable views for the backends that fill the result.
  T* final_state_data() noexcept { return final_state_.data(); }
  T* series_data() noexcept { return series_.data(); }
  /// nullptr when statuses were not selected.
  Status* status_data() noexcept { return status_.empty() ? nullptr : status_.data(); }
  /// nullptr when statuses were not selected.
  T* stop_time_data() noexcept { return stop_time_.empty() ? nullptr : stop_time_.data(); }
  /// nullptr when counters were not selected.
  RunCounters* counters_data() noexcept { return counters_.empty() ? nullptr : counters_.data(); }
  /// The writable view the backends fill.
  ResultView<T> view() noexcept {
    return ResultView<T>{final_state_data(),
                         series_.empty() ? nullptr : series_.data(),
                         status_data(),
                         counters_data(),
                         n_runs_,
                         n_states_,
                         n_saves_,
                         memory(),
                         events_.empty() ? nullptr : events_.data(),
                         event_counts_.empty() ? nullptr : event_counts_.data(),
                         n_events(),
                         event_slots_,
                         observables_.empty() ? nullptr : observables_.data(),
                         observables_.empty() && series_moments_ == nullptr ? 0 : n_observables(),
                         summaries_.empty() ? nullptr : summaries_.data(),
                         summaries_.empty() ? 0 : summary_layout_->windows,
                         summaries_.empty() ? 0 : summary_layout_->slots,
                         n_series_states(),
                         stop_time_data(),
                         series_moments_};
  }
  void add_execution(ExecutionRecord record) { execution_.push_back(std::move(record)); }

 private:
  /// The index of `name` in `names`; std::out_of_range "no <what> 'name' (<what>s: a, b)" otherwise.
  static std::size_t index_of(const std::vector<std::string>& names, const std::string& name, const char* what) {
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    std::string listed;
    for (const std::string& n : names) listed += (listed.empty() ? "" : ", ") + n;
    throw std::out_of_range("no " + std::string(what) + " '" + name + "' (" + what + "s: " +
                            (listed.empty() ? "none" : listed) + ")");
  }

  void require_statuses() const {
    if (status_.empty() && n_runs_ > 0) {
      throw std::logic_error("statuses were not selected for this solve (SolveOptions.outputs.status)");
    }
  }

  void check_event(std::size_t r, std::size_t e, std::size_t j, const char* what) const {
    if (r >= n_runs_ || e >= n_events() || j >= std::max<std::size_t>(event_slots_, 1)) {
      throw std::out_of_range(std::string(what) + "(" + std::to_string(r) + ", " + std::to_string(e) + ", " +
                              std::to_string(j) + ") outside " + std::to_string(n_runs_) + " runs x " +
                              std::to_string(n_events()) + " events x " + std::to_string(event_slots_) + " slots");
    }
  }
  std::size_t event_at(std::size_t r, std::size_t e, std::size_t j) const {
    return ((r * n_events() + e) * event_slots_ + j) * (n_states_ + 1);
  }

  std::size_t index(std::size_t r, std::size_t s) const {
    if (r >= n_runs_ || s >= n_states_) {
      throw std::out_of_range("final_state(" + std::to_string(r) + ", " + std::to_string(s) + ") outside " +
                              std::to_string(n_runs_) + " runs x " + std::to_string(n_states_) + " states");
    }
    return r * n_states_ + s;
  }

  std::size_t n_runs_ = 0, n_states_ = 0, n_saves_ = 0;
  Method method_ = Method::dopri5;
  ResultArray<T> final_state_, series_;
  std::vector<T> times_;
  bool times_per_run_ = false;
  ResultArray<Status> status_;
  ResultArray<T> stop_time_;
  ResultArray<RunCounters> counters_;
  ResultArray<T> events_;
  ResultArray<std::uint32_t> event_counts_;
  ResultArray<T> observables_;
  std::vector<std::string> observable_names_;
  ResultArray<T> summaries_;  // n_runs x windows x values per window
  std::shared_ptr<const SummaryLayout> summary_layout_;  // null: no summaries
  std::shared_ptr<const SeriesLayout> series_layout_;    // null: every state (a result made without one)
  arrays::SeriesMomentsSink* series_moments_ = nullptr;  // set: the GPU reduces the series (no rows here)
  std::vector<std::size_t> series_states_;               // the series' columns: saved states' indices
  std::vector<std::string> event_names_;
  std::vector<EventSpec> event_specs_;
  std::size_t event_slots_ = 0;
  std::vector<ExecutionRecord> execution_;
  std::shared_ptr<const EnsembleStatistics> statistics_;  // null: none asked for
};

}  // namespace batchode
