// python/: batchode.time_logger, the process's default TimeLogger (every solve from Python records
// into it): summaries, JSON, per-event statistics, verbosity and traces. What the logger prints goes
// to Python's sys.stderr (not the C++ stream beneath it), so notebooks and pytest see it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <iostream>
#include <mutex>
#include <streambuf>
#include <string>

#include "batchode/timing/time_logger.hpp"
#include "batchode/timing/verbosity.hpp"
#include "bindings.hpp"

namespace py = pybind11;

namespace batchode::python {

namespace {

/// Text written to it goes, line by line, to Python's sys.stderr. A thread that holds the GIL writes
/// at once. Any other thread (a solve's work thread prints its summary from inside the TimeLogger,
/// holding the logger's lock) only queues the text: waiting for the GIL there would deadlock against
/// a Python thread that holds the GIL and waits for the logger. The queue goes out from the thread
/// waiting for the solve (flush_python_output, with the GIL) and at exit. Before Python starts or
/// after it ends, text goes to std::cerr.
class PythonStderr : public std::streambuf {
 public:
  /// Writes the queued text; the caller holds the GIL.
  void flush_queued() {
    std::string text;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      text.swap(queued_);
    }
    write_holding_gil(text);
  }

 protected:
  int overflow(int c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    const char ch = static_cast<char>(c);
    xsputn(&ch, 1);
    return c;
  }
  std::streamsize xsputn(const char* text, std::streamsize n) override {
    std::string complete;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      partial_.append(text, static_cast<std::size_t>(n));
      const std::size_t end = partial_.rfind('\n');
      if (end == std::string::npos) return n;
      complete = partial_.substr(0, end + 1);
      partial_.erase(0, end + 1);
    }
    hand_on(std::move(complete));
    return n;
  }
  int sync() override {
    std::string rest;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      rest.swap(partial_);
    }
    hand_on(std::move(rest));
    return 0;
  }

 private:
  void hand_on(std::string text) {
    if (text.empty()) return;
    if (Py_IsInitialized() == 0) {
      std::cerr << text << std::flush;
    } else if (PyGILState_Check() != 0) {
      flush_queued();  // what other threads queued comes first
      write_holding_gil(text);
    } else {
      const std::lock_guard<std::mutex> lock(mutex_);
      queued_ += text;
    }
  }
  static void write_holding_gil(const std::string& text) {
    if (text.empty()) return;
    if (Py_IsInitialized() == 0) {
      std::cerr << text << std::flush;
      return;
    }
    const py::error_scope pending;  // a KeyboardInterrupt already raised stays as it is
    try {
      py::object stream = py::module_::import("sys").attr("stderr");
      stream.attr("write")(text);
      stream.attr("flush")();
    } catch (const py::error_already_set&) {
      std::cerr << text << std::flush;  // sys.stderr closed or replaced by something that fails
    }
  }

  std::mutex mutex_;
  std::string partial_, queued_;
};

PythonStderr& python_stderr_buffer() {
  static auto* buffer = new PythonStderr();  // never destroyed: a solve may print during shutdown
  return *buffer;
}

/// Made once and never destroyed: a solve may print while the interpreter shuts down.
std::ostream& python_stderr() {
  static auto* stream = new std::ostream(&python_stderr_buffer());
  return *stream;
}

}  // namespace

void flush_python_output() { python_stderr_buffer().flush_queued(); }

void bind_timing(py::module_& m) {
  py::module_ t = m.def_submodule("timing", "the default TimeLogger");
  default_timelogger().set_output(&python_stderr());
  t.def("_print_to_cpp_stderr", [] {
    flush_python_output();
    default_timelogger().set_output(nullptr);
  },
        "At exit: the logger prints to std::cerr again (Python's streams are going away).");
  t.def("_drop_output", [] {
    static std::ostream dropped(nullptr);  // no buffer: every write fails quietly
    flush_python_output();
    default_timelogger().set_output(&dropped);
  },
        "The logger prints nothing (it still records): MPI processes other than rank 0.");
  t.def(
      "summary", [](const std::string& category) { return default_timelogger().summary(category); },
      py::arg("category") = "",
      "The summary table of what was recorded, as text.\n\nParameters\n----------\ncategory : str, optional\n"
      "    Only this category's events (\"compile\", \"runtime\", ...); all when empty.\n\n"
      "Returns\n-------\nstr");
  t.def(
      "to_json", [] { return default_timelogger().to_json(); },
      "Every recorded occurrence and the aggregates, as JSON text.\n\nReturns\n-------\nstr");
  t.def(
      "reset", [] { default_timelogger().reset(); },
      "Forgets every finished occurrence (the registered events stay).");
  t.def(
      "set_verbosity",
      [](const std::string& level) { default_timelogger().set_verbosity(parse_verbosity(level)); },
      py::arg("level"),
      "Sets how much the default logger records and prints.\n\nParameters\n----------\nlevel : str\n"
      "    \"none\", \"default\" (or \"normal\"), \"verbose\" or \"debug\".\n\nRaises\n------\n"
      "ValueError\n    Another word.");
  t.def(
      "verbosity",
      [] {
        const Verbosity v = default_timelogger().verbosity();
        return std::string(v == Verbosity::none      ? "none"
                           : v == Verbosity::verbose ? "verbose"
                           : v == Verbosity::debug   ? "debug"
                                                     : "default");
      },
      "The default logger's level: \"none\", \"default\", \"verbose\" or "
      "\"debug\".\n\nReturns\n-------\nstr");
  t.def(
      "stats",
      [](const std::string& label) {
        const EventStats s = default_timelogger().stats(label);
        py::dict d;
        d["label"] = s.label;
        d["category"] = s.category;
        d["count"] = s.count;
        d["total_ms"] = s.total_ms;
        d["mean_ms"] = s.mean_ms;
        d["min_ms"] = s.min_ms;
        d["max_ms"] = s.max_ms;
        d["gpu_count"] = s.gpu_count;
        d["total_gpu_ms"] = s.total_gpu_ms;
        d["total_nbytes"] = s.total_nbytes;
        return d;
      },
      py::arg("label"),
      "The aggregate of one registered event.\n\nParameters\n----------\nlabel : str\n    The event's label "
      "(\"kernel_launch\", ...).\n\nReturns\n-------\ndict\n    label, category, count, total_ms, mean_ms, "
      "min_ms, max_ms, gpu_count, total_gpu_ms, total_nbytes.\n\nRaises\n------\nRuntimeError\n"
      "    A label that is not registered.");
  t.def(
      "is_registered", [](const std::string& label) { return default_timelogger().is_registered(label); },
      py::arg("label"),
      "Whether an event of this label is registered.\n\nParameters\n----------\nlabel : str\n\n"
      "Returns\n-------\nbool");
  t.def(
      "start_trace", [](const std::string& path) { default_timelogger().start_trace(path); }, py::arg("path"),
      "Writes every event from now on to a Chrome trace file (chrome://tracing, Perfetto).\n\n"
      "Parameters\n----------\npath : str\n    The JSON file; a trace already running is stopped first.\n\n"
      "Raises\n------\nRuntimeError\n    A path that cannot be written.");
  t.def(
      "stop_trace", [] { return default_timelogger().stop_trace(); },
      "Finishes the trace file (after the GPU parts still pending).\n\nReturns\n-------\nstr\n"
      "    Its path, or \"\" when no trace was running.");
}

}  // namespace batchode::python
