// batchode: integrate large batches of independent ODE problems on GPUs (HIP) and CPUs
// (Boost.Odeint). The umbrella header: everything a user needs.
#pragma once

#include "batchode/arrays/stop_request.hpp"
#include "batchode/gpu/device.hpp"
#include "batchode/gpu/runtime.hpp"
#include "batchode/models/model.hpp"
#include "batchode/solver/grid.hpp"
#include "batchode/kernels/method_registry.hpp"
#include "batchode/solver/options.hpp"
#include "batchode/solver/output_types.hpp"
#include "batchode/solver/result.hpp"
#include "batchode/solver/result_io.hpp"
#include "batchode/solver/runtime_model.hpp"
#include "batchode/solver/solver.hpp"
#include "batchode/solver/series_layout.hpp"
#include "batchode/solver/summaries.hpp"
#include "batchode/kernels/status.hpp"
#include "batchode/kernels/system.hpp"
#include "batchode/timing/events.hpp"
#include "batchode/timing/kernel_timer.hpp"
#include "batchode/timing/scoped_timer.hpp"
#include "batchode/timing/time_logger.hpp"
