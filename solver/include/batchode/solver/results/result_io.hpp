// solver/results/: writing a SolveResult where a scientist can load it: CSV (one row per run and saved time,
// columns named by the model's names) and NPY (numpy.load gives arrays shaped (n_runs, n_saves,
// n_states) and (n_runs, n_states)), with each run's status and stop time, and the event records and
// the summaries in files of their own. Every file is written whole or not at all (files::AtomicFile).
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <type_traits>
#include <vector>

#include "batchode/checks/checked_size.hpp"
#include "batchode/files/atomic_file.hpp"
#include "batchode/solver/results/result.hpp"

namespace batchode {

namespace detail {

/// "No space left on device (errno 28)", or "no OS error reported" for 0.
inline std::string os_error(int error) {
  if (error == 0) return "no OS error reported";
  return std::generic_category().message(error) + " (errno " + std::to_string(error) + ")";
}


/// Flushes and closes `out`, opened on `path`; throws std::runtime_error naming the path and the OS
/// error when any write failed. Data is buffered, so a full disk or a failing device (/dev/full) often
/// shows only here, when the buffer is written out at the flush or the close, not at the writes.
inline void finish_writing(std::ofstream& out, const std::string& path) {
  // A write that failed already (when the buffer filled) left its OS error as the last one.
  int error = out ? 0 : errno;
  bool failed = !out;
  if (!failed) {
    errno = 0;
    out.flush();
    failed = !out;
    error = errno;
  }
  if (!failed) errno = 0;
  out.close();  // writes what is left and closes the file; sets failbit when either fails
  if (!failed && out.fail()) {
    failed = true;
    error = errno;
  }
  if (failed) throw std::runtime_error("writing '" + path + "' failed: " + os_error(error));
}

/// Writes the file `path` whole or not at all: `write(out)` fills a stream on a temporary file beside
/// it (files::AtomicFile), which replaces `path` once written, flushed and closed without error.
/// Throws std::runtime_error naming `path` and the OS error when it cannot be opened or written; an
/// old file at `path` is then as it was and nothing partial is left.
template <class Write>
void write_file(const std::string& path, std::ios::openmode mode, Write&& write) {
  files::AtomicFile file(path);
  std::ofstream out;
  errno = 0;
  out.open(file.write_path(), mode | std::ios::out | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot open '" + path + "' for writing: " + os_error(errno));
  write(out);
  finish_writing(out, path);
  file.commit();
}

/// A CSV column for the state or observable `name` (`kind`: "state" or "observable"): the name as it
/// is, or "<kind>.<name>" when it is one of the file's own columns (`fixed`: run, t, status, ...),
/// which a model's names may be (no model name holds a dot).
inline std::string csv_column(const std::string& name, const char* kind, const std::vector<std::string>& fixed) {
  return std::find(fixed.begin(), fixed.end(), name) == fixed.end() ? name : std::string(kind) + "." + name;
}

/// The CSV columns of the result's states, in the system's order: their names (csv_column), or "y<s>"
/// for a result without the system's names.
template <class T>
std::vector<std::string> csv_state_columns(const SolveResult<T>& r, const std::vector<std::string>& fixed) {
  std::vector<std::string> columns;
  const std::vector<std::string>& names = r.state_names();
  for (std::size_t s = 0; s < r.n_states(); ++s) {
    columns.push_back(names.size() == r.n_states() ? csv_column(names[s], "state", fixed) : "y" + std::to_string(s));
  }
  return columns;
}

/// NPY format version 1.0: magic, header length, a Python dict literal padded to 64 bytes.
template <class T>
void write_npy_array(const std::string& path, const T* data, const std::vector<std::size_t>& shape) {
  static_assert(std::is_arithmetic_v<T>);
  std::string descr = std::is_floating_point_v<T> ? (sizeof(T) == 4 ? "<f4" : "<f8")
                                                  : (std::is_signed_v<T> ? "<i" : "<u") + std::to_string(sizeof(T));
  std::string dims;
  for (std::size_t d : shape) dims += std::to_string(d) + ",";
  if (shape.size() > 1) dims.pop_back();
  const std::size_t values = checks::checked_product(shape.begin(), shape.end(), "NPY array values");
  const std::size_t bytes = checks::checked_mul(values, sizeof(T), "NPY array bytes");
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  write_file(path, std::ios::binary, [&](std::ofstream& out) {
    const char magic[] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0};
    out.write(magic, sizeof magic);
    const std::uint16_t length = static_cast<std::uint16_t>(header.size());
    const char length_bytes[2] = {static_cast<char>(length & 0xff), static_cast<char>(length >> 8)};
    out.write(length_bytes, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  });
}

/// Event e's stored crossings of every run, gathered from the result's records: times (n_runs, max)
/// and states (n_runs, max, n_states), NaN where a run stored fewer.
template <class T>
struct EventColumns {
  std::vector<T> t, state;
};
template <class T>
EventColumns<T> event_columns(const SolveResult<T>& r, std::size_t e) {
  const std::size_t k_max = r.event_max(e), n = r.n_states();
  EventColumns<T> c;
  c.t.resize(checks::checked_mul(r.n_runs(), k_max, "event times"));
  c.state.resize(checks::checked_product({r.n_runs(), k_max, n}, "event states"));
  for (std::size_t i = 0; i < r.n_runs(); ++i) {
    for (std::size_t k = 0; k < k_max; ++k) {
      c.t[i * k_max + k] = r.event_time(i, e, k);
      for (std::size_t s = 0; s < n; ++s) c.state[(i * k_max + k) * n + s] = r.event_state(i, e, k, s);
    }
  }
  return c;
}

}  // namespace detail

/// Writes event e's records as `<prefix>_event_<name>_t.npy` (n_runs, max), `..._state.npy`
/// (n_runs, max, n_states), NaN where a run stored fewer crossings, and `..._count.npy` (n_runs,)
/// uint32, the crossings met (above max: not all stored). Errors as write_npy.
template <class T>
void write_event_npy(const SolveResult<T>& r, std::size_t e, const std::string& prefix) {
  const std::string stem = prefix + "_event_" + r.event_names().at(e);
  const detail::EventColumns<T> c = detail::event_columns(r, e);
  detail::write_npy_array(stem + "_t.npy", c.t.data(), {r.n_runs(), r.event_max(e)});
  detail::write_npy_array(stem + "_state.npy", c.state.data(), {r.n_runs(), r.event_max(e), r.n_states()});
  std::vector<std::uint32_t> count(r.n_runs());
  for (std::size_t i = 0; i < r.n_runs(); ++i) count[i] = r.event_count(i, e);
  detail::write_npy_array(stem + "_count.npy", count.data(), {r.n_runs()});
}

/// Writes each summary the result kept (SolveOptions::summaries) as `<prefix>_summary_<name>.npy`
/// ("mean", "extrema", "peaks" for peaks[n]), shaped (n_runs, n_windows, n_variables), or
/// (n_runs, n_windows, n_variables, width) for one of several values per variable (extrema: max, min;
/// peaks[n]: n), in the result's precision: result.summary(name). Nothing without summaries. Errors as
/// write_npy.
template <class T>
void write_summary_npy(const SolveResult<T>& r, const std::string& prefix) {
  const SummaryLayout* layout = r.summary_layout();
  if (layout == nullptr) return;
  for (const SummaryOutput& out : layout->outputs) {
    std::vector<std::size_t> shape{r.n_runs(), layout->windows, layout->variables.size()};
    if (!out.value_names.empty()) shape.push_back(out.width);  // named values: their own axis (as Python)
    const std::vector<T> values = r.summary(out.name);
    detail::write_npy_array(prefix + "_summary_" + out.name + ".npy", values.data(), shape);
  }
}

/// Writes `<prefix>_status.npy` (n_runs,) int32, each run's Status code (0 success, 1
/// max_steps_reached, 2 step_size_underflow, 3 non_finite_state, 4 singular_matrix, 5 not_solved, 6
/// stopped_by_event: kernels/core/status.hpp), and `<prefix>_t_stop.npy` (n_runs,), the time of each run's
/// final state, in the result's precision; nothing when statuses were not kept. Errors as write_npy.
template <class T>
void write_status_npy(const SolveResult<T>& r, const std::string& prefix) {
  if (r.statuses().empty()) return;
  std::vector<std::int32_t> status(r.n_runs());
  for (std::size_t i = 0; i < r.n_runs(); ++i) status[i] = static_cast<std::int32_t>(r.status(i));
  detail::write_npy_array(prefix + "_status.npy", status.data(), {r.n_runs()});
  detail::write_npy_array(prefix + "_t_stop.npy", r.stop_times().data(), {r.n_runs()});
}

/// Writes `<prefix>_final.npy` (n_runs, n_states), the statuses and stop times (write_status_npy), when a
/// series was saved `<prefix>_series.npy` (n_runs, n_saves, saved states: every state, or those
/// SolveOptions::save_variables chose; no file when it chose none) and `<prefix>_times.npy` ((n_saves,), or
/// (n_runs, n_saves) when each run has its own) and, for a system with observables,
/// `<prefix>_observables.npy` (n_runs, n_saves, n_observables); each event's files (write_event_npy); and
/// each summary's (write_summary_npy). Throws std::runtime_error naming the file and the OS error when one
/// cannot be opened or written (errors that show only when the file is flushed or closed included).
template <class T>
void write_npy(const SolveResult<T>& r, const std::string& prefix) {
  detail::write_npy_array(prefix + "_final.npy", r.final_state().data(), {r.n_runs(), r.n_states()});
  write_status_npy(r, prefix);
  if (r.n_saves() > 0) {
    if (r.n_series_states() > 0) {
      detail::write_npy_array(prefix + "_series.npy", r.series().data(), {r.n_runs(), r.n_saves(), r.n_series_states()});
    }
    if (r.times_per_run()) {
      detail::write_npy_array(prefix + "_times.npy", r.times().data(), {r.n_runs(), r.n_saves()});
    } else {
      detail::write_npy_array(prefix + "_times.npy", r.times().data(), {r.n_saves()});
    }
    if (r.n_observables() > 0) {
      detail::write_npy_array(prefix + "_observables.npy", r.observables().data(),
                              {r.n_runs(), r.n_saves(), r.n_observables()});
    }
  }
  for (std::size_t e = 0; e < r.n_events(); ++e) write_event_npy(r, e, prefix);
  write_summary_npy(r, prefix);
}

/// Writes one CSV row per stored event crossing (run, event, k, t, then the state by name), runs in
/// order, then events, then crossings; a header only when there were none. Errors as write_csv.
template <class T>
void write_events_csv(const SolveResult<T>& r, const std::string& path) {
  detail::write_file(path, std::ios::openmode{}, [&](std::ofstream& out) {
    out.precision(std::is_same_v<T, float> ? 9 : 17);
    out << "run,event,k,t";
    for (const std::string& name : detail::csv_state_columns(r, {"run", "event", "k", "t"})) out << ',' << name;
    out << '\n';
    for (std::size_t i = 0; i < r.n_runs(); ++i) {
      for (std::size_t e = 0; e < r.n_events(); ++e) {
        const std::size_t stored = std::min<std::size_t>(r.event_count(i, e), r.event_max(e));
        for (std::size_t k = 0; k < stored; ++k) {
          out << i << ',' << r.event_names()[e] << ',' << k << ',' << r.event_time(i, e, k);
          for (std::size_t s = 0; s < r.n_states(); ++s) out << ',' << r.event_state(i, e, k, s);
          out << '\n';
        }
      }
    }
  });
}

/// Writes the result's summaries (SolveOptions::summaries) as CSV, one row per run, window and summarised
/// variable, runs in order, then windows, then variables:
///   `run,window,window_end,variable,<value>,<value>,...`
/// window_end is t0 + (window + 1) summarise_every (`t0`: the solve's); variable its name; then one
/// column per value of each summary in the order asked for: a summary of one value is named by the
/// summary ("mean"), one with named values by them ("max,min" for extrema, "peaks[0],peaks[1]" for
/// peaks[2], "peaks[0]" for peaks[1]); NaN where a run never completed the window or found fewer peaks. A
/// header alone for a result without summaries (or runs). Errors as write_csv.
template <class T>
void write_summaries_csv(const SolveResult<T>& r, const std::string& path, double t0) {
  detail::write_file(path, std::ios::openmode{}, [&](std::ofstream& out) {
    out.precision(std::is_same_v<T, float> ? 9 : 17);
    out << "run,window,window_end,variable";
    const SummaryLayout* layout = r.summary_layout();
    if (layout != nullptr) {
      for (const SummaryOutput& s : layout->outputs) {
        if (s.value_names.empty()) out << ',' << s.name;
        for (const std::string& value : s.value_names) out << ',' << value;
      }
    }
    out << '\n';
    if (layout == nullptr) return;
    for (std::size_t i = 0; i < r.n_runs(); ++i) {
      for (std::size_t w = 0; w < layout->windows; ++w) {
        for (std::size_t v = 0; v < layout->variables.size(); ++v) {
          out << i << ',' << w << ',' << layout->window_end(t0, w) << ',' << layout->variable_names[v];
          for (const SummaryOutput& s : layout->outputs) {
            const T* values = r.summaries().data() + (i * layout->windows + w) * layout->slots + s.offset;
            for (std::size_t c = 0; c < s.width; ++c) out << ',' << values[v * s.width + c];
          }
          out << '\n';
        }
      }
    }
  });
}

/// Writes the result as CSV, every run with its status and the time its final state is at (t_stop:
/// t_end, a terminal event's time, or where a failed run stopped), the states and observables named
/// as the system names them ("y<s>" for a system without names; a name that is one of the file's own
/// columns as "state.<name>" / "observable.<name>"):
///   no series:  one row per run, at its stop time:        `run,t,status,<states>`
///   a series:   one row per run and saved time (NaN past where a run stopped):
///                                                         `run,t,status,t_stop,<saved states>,<observables>`
/// (the saved states: every one, or those SolveOptions::save_variables chose). status is the name
/// ("success", "step_size_underflow", ...); without statuses (SolveOptions.outputs.status off) status
/// is "-" and the stop time "nan". Summaries are not in this file: write them with
/// write_summaries_csv (the command line writes `<output without .csv>_summaries.csv`). The file is
/// written whole or not at all (files::AtomicFile). Throws std::runtime_error naming the file and the
/// OS error when it cannot be opened or written (errors that show only when flushed or closed too);
/// an old file at `path` is then as it was.
template <class T>
void write_csv(const SolveResult<T>& r, const std::string& path) {
  detail::write_file(path, std::ios::openmode{}, [&](std::ofstream& out) {
    out.precision(std::is_same_v<T, float> ? 9 : 17);
    const bool series = r.n_saves() > 0;
    out << (series ? "run,t,status,t_stop" : "run,t,status");
    const std::vector<std::string> fixed = {"run", "t", "status", "t_stop"};
    const std::vector<std::string> states = detail::csv_state_columns(r, fixed);
    if (series) {
      for (std::size_t s : r.series_states()) out << ',' << states[s];
      for (const std::string& name : r.observable_names()) out << ',' << detail::csv_column(name, "observable", fixed);
    } else {
      for (const std::string& name : states) out << ',' << name;
    }
    out << '\n';
    const bool kept = !r.statuses().empty();
    for (std::size_t i = 0; i < r.n_runs(); ++i) {
      const std::string status = kept ? to_string(r.status(i)) : "-";
      const T t_stop = kept ? r.stop_time(i) : std::numeric_limits<T>::quiet_NaN();
      if (!series) {
        out << i << ',' << t_stop << ',' << status;
        for (std::size_t s = 0; s < r.n_states(); ++s) out << ',' << r.final_state(i, s);
        out << '\n';
        continue;
      }
      for (std::size_t k = 0; k < r.n_saves(); ++k) {
        out << i << ',' << r.time(i, k) << ',' << status << ',' << t_stop;
        for (std::size_t c = 0; c < r.n_series_states(); ++c) out << ',' << r.state_at(i, k, c);
        for (std::size_t o = 0; o < r.n_observables(); ++o) out << ',' << r.observable_at(i, k, o);
        out << '\n';
      }
    }
  });
}

}  // namespace batchode
