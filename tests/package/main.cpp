// tests/package/: the consumer project's program: includes the umbrella header, solves a small batch,
// and prints what the library was built with; run_consumer_test.cmake checks the output.
#include <batchode/batchode.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

struct Decay {
  static constexpr std::size_t n_states = 1;
  static constexpr std::size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    dydt[0] = -p[0] * y[0];
  }
};

int main() {
  std::printf("backend=%s\n", batchode::gpu::compiled_backend());
  // 1 when batchode_target_gpu() handed this file to the GPU compiler (hipcc/nvcc), 0 otherwise.
  std::printf("gpu_compiler=%d\n", BATCHODE_GPU_COMPILER);
  batchode::SolveOptions options;
  options.verbosity = batchode::Verbosity::none;
  const std::vector<double> y0{1.0, 1.0}, rate{1.0, 2.0};
  const auto result = batchode::solve_ivp(Decay{}, y0, rate, options);
  const double error = std::fabs(result.final_state(1, 0) - std::exp(-2.0));
  std::printf("solve_error=%.3g\n", error);
  return error < 1e-5 && result.all_succeeded() ? 0 : 1;
}
