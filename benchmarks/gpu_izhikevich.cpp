// benchmarks/gpu_izhikevich: events that change the state at batch scale (issue 49), against what one
// writes by hand. Izhikevich neurons (regular spiking: v' = 0.04 v^2 + 5 v + 140 - u + I,
// u' = 0.02 (0.2 v - u); at v = 30, v = -65 and u = u + 8), I = linspace(0, 15, N) (silent to ~60 Hz),
// t in [0, 1000] ms, v0 = -65, u0 = -13, final state and spike count only; float and double.
//   hand      a plain kernel: RK4 at dt, and the reset where a step ends with v >= 30 (the usual code)
//   batchode  RK4 at the same dt, each spike located on the step's dense output (Illinois, to the event
//             tolerance) and the run restarted there from the reset state; and dopri5 at 1e-6
// Against a reference (dopri5, rtol = atol = 1e-10, double): the runs whose spike count is off, and the
// first spike's time error. Kernel times from GPU events (batchode's TimeLogger), medians of --reps.
//
//   gpu_izhikevich [--reps R] [--log2 K] [--dt DT]
#include <algorithm>
#include <batchode/backends/gpu/launch.hpp>
#include <batchode/batchode.hpp>
#include <batchode/gpu/buffers.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace batchode_bench {

/// Named, not in an anonymous namespace: its call operator's dual-number instantiation (Rosenbrock
/// methods' Jacobian), which no kernel here uses, would be an unreferenced internal function (an error
/// under -Werror).
struct Izhikevich {
  static constexpr std::size_t n_states = 2, n_params = 1, n_events = 1;
  static constexpr std::uint32_t event_assignments = 1;
  static constexpr batchode::Method compiled_methods[] = {batchode::Method::rk4, batchode::Method::dopri5};
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = T(0.04) * y[0] * y[0] + T(5) * y[0] + T(140) - y[1] + p[0];
    dydt[1] = T(0.02) * (T(0.2) * y[0] - y[1]);
  }
  template <class T>
  BATCHODE_HOST_DEVICE void events(T, const T* y, const T*, T* g) const {
    g[0] = y[0] - T(30);
  }
  template <class T>
  BATCHODE_HOST_DEVICE void event_assign(std::size_t, T, T* y, const T*) const {
    y[0] = T(-65);
    y[1] += T(8);
  }
};

}  // namespace batchode_bench

namespace {

using batchode_bench::Izhikevich;

template <class T>
__global__ void hand_rk4_izhikevich(const T* current, T* out, unsigned* spikes, std::size_t n, int steps,
                                    T dt) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const T I = current[i];
  T v = -65, u = -13;
  unsigned count = 0;
  const auto dv = [I](T v_, T u_) { return T(0.04) * v_ * v_ + T(5) * v_ + T(140) - u_ + I; };
  const auto du = [](T v_, T u_) { return T(0.02) * (T(0.2) * v_ - u_); };
  for (int k = 0; k < steps; ++k) {
    const T k1v = dv(v, u), k1u = du(v, u);
    const T k2v = dv(v + dt / 2 * k1v, u + dt / 2 * k1u), k2u = du(v + dt / 2 * k1v, u + dt / 2 * k1u);
    const T k3v = dv(v + dt / 2 * k2v, u + dt / 2 * k2u), k3u = du(v + dt / 2 * k2v, u + dt / 2 * k2u);
    const T k4v = dv(v + dt * k3v, u + dt * k3u), k4u = du(v + dt * k3v, u + dt * k3u);
    v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    u += dt / 6 * (k1u + 2 * k2u + 2 * k3u + k4u);
    if (v >= T(30)) {
      v = -65;
      u += 8;
      ++count;
    }
  }
  out[i] = v;
  out[n + i] = u;
  spikes[i] = count;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

template <class T>
double hand_ms(const std::vector<T>& current, double dt, int reps, std::vector<unsigned>& spikes) {
  const std::size_t n = current.size();
  batchode::gpu::DeviceBuffer<T> d_current(n), d_out(2 * n);
  batchode::gpu::DeviceBuffer<unsigned> d_spikes(n);
  batchode::gpu::Stream stream;
  batchode::gpu::copy_to_device_async(d_current.data(), current.data(), n * sizeof(T), stream.get());
  batchode::gpu::Event start, stop;
  std::vector<double> times;
  const int steps = static_cast<int>(std::lround(1000.0 / dt));
  for (int rep = -1; rep < reps; ++rep) {
    start.record(stream.get());
    hand_rk4_izhikevich<T><<<unsigned((n + 127) / 128), 128, 0, batchode::gpu::native_stream(stream.get())>>>(
        d_current.data(), d_out.data(), d_spikes.data(), n, steps, T(dt));
    batchode::gpu::check_last_launch("hand_rk4_izhikevich", __FILE__, __LINE__);
    stop.record(stream.get());
    stop.synchronize();
    if (rep >= 0) times.push_back(batchode::gpu::elapsed_ms(start, stop));
  }
  spikes.resize(n);
  batchode::gpu::copy_to_host_async(spikes.data(), d_spikes.data(), n * sizeof(unsigned), stream.get());
  stream.synchronize();
  return median(times);
}

struct Measured {
  double kernel_ms;
  std::vector<unsigned> spikes;
  std::vector<double> first_spike;
};

template <class T>
Measured batchode_ms(const std::vector<T>& current, batchode::Method method, double dt, double tol,
                     int reps) {
  std::ostringstream quiet;
  batchode::TimeLogger log(&quiet, batchode::Verbosity::normal);
  batchode::register_solver_events(log);
  batchode::SolveOptions o;
  o.method = method;
  o.t_end = 1000.0;
  if (method == batchode::Method::rk4) o.dt = dt;
  o.rtol = o.atol = tol;
  o.backend = batchode::Backend::gpu;
  o.outputs.counters = false;
  o.events = {{"spike", batchode::EventDirection::rising, batchode::EventAction::record, 1}};
  const std::size_t n = current.size();
  batchode::Batch<T> batch{std::vector<T>(2 * n), current, n};
  for (std::size_t i = 0; i < n; ++i) batch.y0[2 * i] = T(-65), batch.y0[2 * i + 1] = T(-13);
  batchode::Solver<Izhikevich, T> solver(Izhikevich{}, o, log);
  std::vector<double> kernel;
  Measured m;
  for (int rep = -1; rep < reps; ++rep) {
    log.reset();
    const auto result = solver.solve(batch);
    if (!result.all_succeeded()) {
      std::fprintf(stderr, "warning: %zu runs failed\n", n - result.count(batchode::Status::success));
    }
    if (rep >= 0) kernel.push_back(log.stats(batchode::events::kernel_launch).total_gpu_ms);
    if (rep == reps - 1) {
      m.spikes.resize(n);
      m.first_spike.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        m.spikes[i] = result.event_count(i, 0);
        m.first_spike[i] = m.spikes[i] > 0 ? double(result.event_time(i, 0, 0)) : 0.0;
      }
    }
  }
  m.kernel_ms = median(kernel);
  return m;
}

/// Runs whose spike count differs from the reference's, and the largest first-spike time error.
void compare(const char* what, double ms, const std::vector<unsigned>& spikes,
             const std::vector<double>* first, const Measured& reference) {
  std::size_t off = 0;
  double total = 0, worst_first = 0;
  for (std::size_t i = 0; i < spikes.size(); ++i) {
    off += spikes[i] != reference.spikes[i];
    total += spikes[i];
    if (first != nullptr && reference.spikes[i] > 0 && spikes[i] > 0) {
      worst_first = std::max(worst_first, std::fabs((*first)[i] - reference.first_spike[i]));
    }
  }
  std::printf("  %-34s %9.2f ms %8.2f spikes/run  count off in %6.3f %% of runs", what, ms,
              total / double(spikes.size()), 100.0 * double(off) / double(spikes.size()));
  if (first != nullptr) std::printf("  first spike off by <= %.2e ms", worst_first);
  std::printf("\n");
}

template <class T>
void run(std::size_t n, double dt, int reps, const Measured& reference) {
  const std::vector<T> current = batchode::linspace<T>(0.0, 15.0, n);
  std::printf("%s, %zu runs, t in [0, 1000] ms\n", sizeof(T) == 4 ? "float" : "double", n);
  std::vector<unsigned> hand_spikes;
  const double hand = hand_ms(current, dt, reps, hand_spikes);
  compare(("hand RK4, reset at step ends, dt " + std::to_string(dt)).c_str(), hand, hand_spikes, nullptr,
          reference);
  const Measured rk4 = batchode_ms(current, batchode::Method::rk4, dt, 1e-6, reps);
  compare("batchode RK4, spikes located", rk4.kernel_ms, rk4.spikes, &rk4.first_spike, reference);
  const double tol = sizeof(T) == 4 ? 1e-4 : 1e-6;
  const Measured dopri5 = batchode_ms(current, batchode::Method::dopri5, 0, tol, reps);
  compare(sizeof(T) == 4 ? "batchode dopri5, 1e-4" : "batchode dopri5, 1e-6", dopri5.kernel_ms, dopri5.spikes,
          &dopri5.first_spike, reference);
  std::printf("  batchode RK4 kernel / hand kernel: %.2f\n", rk4.kernel_ms / hand);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5, log2 = 20;
  double dt = 0.05;
  for (int a = 1; a + 1 < argc; a += 2) {
    const std::string k = argv[a];
    if (k == "--reps")
      reps = std::atoi(argv[a + 1]);
    else if (k == "--log2")
      log2 = std::atoi(argv[a + 1]);
    else if (k == "--dt")
      dt = std::atof(argv[a + 1]);
    else {
      std::fprintf(stderr, "gpu_izhikevich: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  const std::size_t n = std::size_t(1) << log2;
  const std::vector<double> current = batchode::linspace<double>(0.0, 15.0, n);
  const Measured reference = batchode_ms(current, batchode::Method::dopri5, 0, 1e-10, 1);
  run<float>(n, dt, reps, reference);
  run<double>(n, dt, reps, reference);
  return 0;
}
