// Where one run per thread breaks as the state count N grows (issue 13, measured first): the batch
// kernel for Lorenz-96 (rk4, final state) and the 1-D Brusselator (rodas4: the N x N Jacobian by
// forward AD and its LU), compiled in for one N and precision, so that ptxas reports each kernel's
// registers, stack frame and spills, and the build's time is the nvcc time of that N. The same
// systems as benchmarks/large_systems.sh writes as model text. Nothing is launched.
//   for n in 4 8 16 32 64; do /usr/bin/time -f "%e s" nvcc -O3 -arch=sm_90 -std=c++17 \
//     --expt-relaxed-constexpr -DBATCHODE_WITH_CUDA=1 -Ikernels/include -Ibenchmarks -DN_=$n -DT_=double \
//     -Xptxas -v -c -o /dev/null benchmarks/large_systems/register_use.cu; done
// (-DWORKLOAD_=1: Lorenz-96 only, 2: the Brusselator only; default both. -DBAND_=0: the Brusselator
// without its declared band, so rodas4 takes the dense N x N path; default 1: the band of
// kernels/linalg/band.hpp, L = U = 2.)
#include "batchode/kernels/launch/batch_kernel.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "large_systems/systems.hpp"

#ifndef N_
#define N_ 16
#endif
#ifndef T_
#define T_ double
#endif
#ifndef WORKLOAD_
#define WORKLOAD_ 3
#endif

using batchode_bench::Brusselator;
using batchode_bench::Lorenz96;

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
