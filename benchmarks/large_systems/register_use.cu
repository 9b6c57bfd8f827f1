// Where one run per thread breaks as the state count N grows (issue 13, measured first): the batch
// kernel for Lorenz-96 (rk4, final state) and the 1-D Brusselator (rodas4: the N x N Jacobian by
// forward AD and its LU), compiled in for one N and precision, so that ptxas reports each kernel's
// registers, stack frame and spills, and the build's time is the nvcc time of that N. The same
// systems as benchmarks/large_systems.sh writes as model text. Nothing is launched.
//   for n in 4 8 16 32 64; do /usr/bin/time -f "%e s" nvcc -O3 -arch=sm_90 -std=c++17 \
//     --expt-relaxed-constexpr -DBATCHODE_WITH_CUDA=1 -Ikernels/include -DN_=$n -DT_=double \
//     -Xptxas -v -c -o /dev/null benchmarks/large_systems/register_use.cu; done
// (-DWORKLOAD_=1: Lorenz-96 only, 2: the Brusselator only; default both.)
#include "batchode/kernels/batch_kernel.hpp"
#include "batchode/kernels/method_registry.hpp"

#ifndef N_
#define N_ 16
#endif
#ifndef T_
#define T_ double
#endif
#ifndef WORKLOAD_
#define WORKLOAD_ 3
#endif

namespace {
using batchode::port::size_t;

/// Lorenz-96: dx_i = (x_{i+1} - x_{i-2}) x_{i-1} - x_i + F, p = {F}.
template <size_t N>
struct Lorenz96 {
  static constexpr size_t n_states = N;
  static constexpr size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    BATCHODE_UNROLL
    for (size_t i = 0; i < N; ++i)
      dydt[i] = (y[(i + 1) % N] - y[(i + N - 2) % N]) * y[(i + N - 1) % N] - y[i] + p[0];
  }
};

/// The 1-D Brusselator on M = N / 2 points (u_i, v_i interleaved), alpha = 1/50, p = {A}.
template <size_t N>
struct Brusselator {
  static constexpr size_t n_states = N;
  static constexpr size_t n_params = 1;
  template <class T>
  BATCHODE_HOST_DEVICE void operator()(T, const T* y, const T* p, T* dydt) const {
    constexpr size_t M = N / 2;
    const T c = T((M + 1) * (M + 1)) / T(50);
    BATCHODE_UNROLL
    for (size_t i = 0; i < M; ++i) {
      const T u = y[2 * i], v = y[2 * i + 1];
      const T ul = i == 0 ? T(1) : y[2 * i - 2], ur = i + 1 == M ? T(1) : y[2 * i + 2];
      const T vl = i == 0 ? T(3) : y[2 * i - 1], vr = i + 1 == M ? T(3) : y[2 * i + 3];
      dydt[2 * i] = p[0] + u * u * v - T(4) * u + c * (ul - T(2) * u + ur);
      dydt[2 * i + 1] = T(3) * u - u * u * v + c * (vl - T(2) * v + vr);
    }
  }
};
}  // namespace

#if WORKLOAD_ & 1
template __global__ void batchode::kernels::integrate_chunk<batchode::tableau::Rk4, false, Lorenz96<N_>, T_,
                                                            0u>(Lorenz96<N_>, batchode::RunSettings<T_>,
                                                                batchode::kernels::DeviceInputs<T_>,
                                                                batchode::kernels::DeviceOutputs<T_>);
#endif
#if WORKLOAD_ & 2
template __global__ void batchode::kernels::integrate_chunk<batchode::tableau::Rodas4, false, Brusselator<N_>,
                                                            T_, 0u>(Brusselator<N_>,
                                                                    batchode::RunSettings<T_>,
                                                                    batchode::kernels::DeviceInputs<T_>,
                                                                    batchode::kernels::DeviceOutputs<T_>);
#endif
