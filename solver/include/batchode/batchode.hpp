// solver/: batchode.hpp, the umbrella header, everything a user needs to integrate large batches of
// independent ODE problems on GPUs (HIP, CUDA) and CPUs (Boost.Odeint).
#pragma once

#include "batchode/arrays/stop_request.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/models/model.hpp"
#include "batchode/solver/setup/grid.hpp"
#include "batchode/kernels/methods/method_registry.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/results/output_types.hpp"
#include "batchode/solver/results/result.hpp"
#include "batchode/solver/results/result_io.hpp"
#include "batchode/solver/systems/runtime_model.hpp"
#include "batchode/solver/solver.hpp"
#include "batchode/solver/setup/series_layout.hpp"
#include "batchode/solver/setup/summary_layout.hpp"
#include "batchode/kernels/core/status.hpp"
#include "batchode/kernels/core/system.hpp"
#include "batchode/timing/timed_events.hpp"
#include "batchode/timing/kernel_timer.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
