// solver/scheduling/: the scheduler's decision logic: which backends may run a batch (their capabilities),
// the strategy the user asked for, and the plan that splits a batch into parts, each with the real
// reason it runs where it runs and its predicted duration. Pure logic with no runtime calls, so it
// is tested with fake backends of known speeds; the Solver's planner (planner.hpp) feeds it the
// capabilities it found and the costs the calibrator measured. Every backend decision of a solve is
// made here, forced parts included.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "batchode/checks/invalid_input.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/solver/setup/backend_id.hpp"
#include "batchode/solver/setup/options.hpp"
#include "batchode/solver/setup/reason.hpp"

namespace batchode::sched {

/// How the planner chooses among the capable backends.
enum class StrategyKind {
  automatic,      ///< lowest predicted time: CPU, one GPU, or a split over GPUs (+ CPU when it helps)
  gpu_preferred,  ///< the first capable GPU, else the CPU
  cpu_preferred,  ///< the CPU
  backend_only,   ///< exactly the named backend (BackendId::cpu(), BackendId::gpu(1))
};

struct Strategy {
  StrategyKind kind = StrategyKind::automatic;
  BackendId backend;  ///< for backend_only

  static Strategy automatic() { return {StrategyKind::automatic, {}}; }
  static Strategy gpu_preferred() { return {StrategyKind::gpu_preferred, {}}; }
  static Strategy cpu_preferred() { return {StrategyKind::cpu_preferred, {}}; }
  static Strategy backend_only(BackendId id) { return {StrategyKind::backend_only, id}; }
};

/// SolveOptions::backend as a strategy: automatic -> automatic, cpu -> backend_only(cpu),
/// gpu -> backend_only(gpu:<options.gpu.device>).
inline Strategy strategy_for(const SolveOptions& options) {
  switch (options.backend) {
    case Backend::cpu: return Strategy::backend_only(BackendId::cpu());
    case Backend::gpu: return Strategy::backend_only(BackendId::gpu(options.gpu.device));
    case Backend::automatic: break;
  }
  return Strategy::automatic();
}

/// Predicted wall time of n runs on one backend: fixed_ms + n * per_run_ms.
struct LinearCost {
  double fixed_ms = 0;
  double per_run_ms = 0;
  double predict_ms(std::size_t runs) const { return fixed_ms + per_run_ms * static_cast<double>(runs); }
};

/// The batch size n* >= 0 from which `gpu` beats `cpu` for every larger batch, solving
/// cpu(n*) = gpu(n*): 0 when the GPU is never slower (fixed and per-run cost both not above the
/// CPU's), +infinity when large batches do not favour it (no better throughput).
inline double crossover_runs(const LinearCost& cpu, const LinearCost& gpu) {
  const double fixed_gap = gpu.fixed_ms - cpu.fixed_ms;  // what the GPU must win back
  const double per_run_gain = cpu.per_run_ms - gpu.per_run_ms;
  if (fixed_gap <= 0) return per_run_gain >= 0 ? 0.0 : HUGE_VAL;  // GPU cheaper to start: wins at once
  if (per_run_gain <= 0) return HUGE_VAL;
  return fixed_gap / per_run_gain;
}

/// What a backend can do (the capability provider's answer). The CPU can always run; a GPU entry
/// exists only for a device that was found and whose path is compiled.
struct BackendCapabilities {
  BackendId id;
  std::vector<Method> methods;  ///< empty: every method
  bool single = true;           ///< float
  bool double_precision = true;
  std::size_t memory_bytes = 0;  ///< GPU: the memory budget for this solve (unused for the CPU)
  int device_count = 0;          ///< GPUs visible to this backend's runtime
  std::optional<LinearCost> cost;  ///< measured prediction for this batch's configuration, when known

  bool supports(Method m, bool is_double) const {
    if (is_double ? !double_precision : !single) return false;
    return methods.empty() || std::find(methods.begin(), methods.end(), m) != methods.end();
  }
};

/// A contiguous slice of the batch assigned to one backend.
struct Part {
  BackendId backend;
  Reason reason = Reason::gpu_available;
  std::size_t first_run = 0;
  std::size_t runs = 0;
  std::optional<double> predicted_ms;  ///< absent when no cost model was consulted
};

/// The planner's decision: the parts (disjoint, covering [0, runs) in run order), the overall reason,
/// the estimated cost and, for cost_model, both estimates in words.
struct Selection {
  std::string backend;  ///< the parts' backends joined by '+', e.g. "gpu:0+gpu:1+cpu"
  Reason reason = Reason::gpu_available;
  std::optional<double> predicted_ms;  ///< the slowest part's prediction
  std::string detail;
  std::vector<Part> parts;
};

/// What the batch needs, besides the strategy.
struct Request {
  std::size_t runs = 0;
  Method method = Method::dopri5;
  bool is_double = true;
  std::size_t device_bytes_per_run = 0;  ///< a GPU whose budget is below this cannot hold one run
  /// A co-executing CPU part is added only when it shortens the predicted time by this fraction.
  double cpu_share_min_gain = 0.1;
  /// Why no GPU is listed, when the caller knows (no device found, GPU path not compiled): the
  /// detail of a CPU chosen for want of a GPU. Empty: "no capable GPU".
  std::string no_gpu_detail;
  /// Why no cost was measured, when the caller knows (a runtime model whose CPU code is not compiled):
  /// the detail of GPUs used as available. Empty: "no cost model".
  std::string no_cost_detail;
};

namespace detail {

/// Runs per backend so that all finish together: n_i = (T - f_i) / r_i with sum n_i = runs. A backend
/// whose share would be below one run (its fixed cost exceeds T) is dropped and T recomputed.
inline std::vector<std::size_t> balanced_split(const std::vector<LinearCost>& costs, std::size_t runs) {
  std::vector<bool> used(costs.size(), true);
  std::vector<std::size_t> share(costs.size(), 0);
  for (;;) {
    double inv = 0, offset = 0;
    for (std::size_t i = 0; i < costs.size(); ++i) {
      if (!used[i]) continue;
      const double r = std::max(costs[i].per_run_ms, 1e-12);
      inv += 1.0 / r;
      offset += costs[i].fixed_ms / r;
    }
    const double t = (static_cast<double>(runs) + offset) / inv;
    bool dropped = false;
    for (std::size_t i = 0; i < costs.size(); ++i) {
      if (used[i] && (t - costs[i].fixed_ms) / std::max(costs[i].per_run_ms, 1e-12) < 1.0 &&
          std::count(used.begin(), used.end(), true) > 1) {
        used[i] = false;
        dropped = true;
        break;
      }
    }
    if (dropped) continue;
    std::size_t assigned = 0, last = 0;
    for (std::size_t i = 0; i < costs.size(); ++i) {
      if (!used[i]) continue;
      const double n = (t - costs[i].fixed_ms) / std::max(costs[i].per_run_ms, 1e-12);
      share[i] = std::min(runs - assigned, static_cast<std::size_t>(std::max(0.0, std::floor(n))));
      assigned += share[i];
      last = i;
    }
    share[last] += runs - assigned;  // rounding remainder
    return share;
  }
}

inline double split_time(const std::vector<LinearCost>& costs, const std::vector<std::size_t>& share) {
  double t = 0;
  for (std::size_t i = 0; i < costs.size(); ++i) {
    if (share[i] > 0) t = std::max(t, costs[i].predict_ms(share[i]));
  }
  return t;
}

inline std::string fmt_ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g ms", ms);
  return buf;
}

}  // namespace detail

/// Decides where the batch runs. `backends` lists the capable ones (the CPU first by convention;
/// one entry must be the CPU). Throws std::invalid_argument when backend_only names a backend that
/// is not listed or when no CPU entry is given.
inline Selection plan(const std::vector<BackendCapabilities>& backends, const Strategy& strategy, const Request& req) {
  const BackendCapabilities* cpu = nullptr;
  std::vector<const BackendCapabilities*> gpus;  // capable and with room for one run
  bool memory_excluded = false, any_gpu = false;
  for (const BackendCapabilities& b : backends) {
    if (!b.id.is_gpu()) {
      cpu = &b;
      continue;
    }
    if (!b.supports(req.method, req.is_double)) continue;
    any_gpu = true;
    if (b.memory_bytes < req.device_bytes_per_run) {
      memory_excluded = true;
      continue;
    }
    gpus.push_back(&b);
  }
  if (cpu == nullptr) throw std::invalid_argument("scheduler: no CPU backend listed");

  auto single = [&](const BackendCapabilities& b, Reason reason, std::string detail) {
    Selection s;
    s.backend = to_string(b.id);
    s.reason = reason;
    s.detail = std::move(detail);
    if (b.cost) s.predicted_ms = b.cost->predict_ms(req.runs);
    s.parts.push_back({b.id, reason, 0, req.runs, s.predicted_ms});
    return s;
  };
  auto no_gpu = [&]() {
    return single(*cpu, memory_excluded ? Reason::memory_constraint : Reason::gpu_unavailable,
                  memory_excluded ? "no GPU's memory budget holds one run (" + std::to_string(req.device_bytes_per_run) +
                                        " bytes)"
                                  : (any_gpu ? "" : req.no_gpu_detail.empty() ? "no capable GPU" : req.no_gpu_detail));
  };

  switch (strategy.kind) {
    case StrategyKind::backend_only: {
      for (const BackendCapabilities& b : backends) {
        if (b.id == strategy.backend) return single(b, Reason::user_preference, "");
      }
      throw std::invalid_argument("scheduler: backend '" + to_string(strategy.backend) + "' is not available");
    }
    case StrategyKind::cpu_preferred: return single(*cpu, Reason::user_preference, "");
    case StrategyKind::gpu_preferred:
      if (gpus.empty()) return no_gpu();
      return single(*gpus.front(), Reason::gpu_available, "");
    case StrategyKind::automatic: break;
  }

  if (gpus.empty()) return no_gpu();
  bool costed = cpu->cost.has_value();
  for (const BackendCapabilities* g : gpus) costed = costed && g->cost.has_value();
  if (!costed) {
    const std::string why = req.no_cost_detail.empty() ? "no cost model" : req.no_cost_detail;
    if (gpus.size() == 1)
      return single(*gpus.front(), Reason::gpu_available, why + ": GPU used as available");
    // Several GPUs and no costs: as many runs on each (the GPUs of one node are most often alike).
    Selection s;
    s.reason = Reason::gpu_available;
    s.detail = why + ": runs split evenly over " + std::to_string(gpus.size()) + " GPUs";
    const std::vector<std::size_t> share =
        detail::balanced_split(std::vector<LinearCost>(gpus.size(), LinearCost{0, 1}), req.runs);
    std::size_t first = 0;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      if (share[i] == 0) continue;
      s.parts.push_back({gpus[i]->id, Reason::gpu_available, first, share[i], std::nullopt});
      first += share[i];
      s.backend += (s.backend.empty() ? "" : "+") + to_string(gpus[i]->id);
    }
    return s;
  }

  // Candidates: the CPU alone, the fastest GPU alone, all GPUs split, all GPUs and the CPU split.
  const double cpu_ms = cpu->cost->predict_ms(req.runs);
  const BackendCapabilities* best_gpu = gpus.front();
  for (const BackendCapabilities* g : gpus) {
    if (g->cost->predict_ms(req.runs) < best_gpu->cost->predict_ms(req.runs)) best_gpu = g;
  }
  const double gpu_ms = best_gpu->cost->predict_ms(req.runs);
  std::string estimates =
      "predicted cpu " + detail::fmt_ms(cpu_ms) + ", " + to_string(best_gpu->id) + " " + detail::fmt_ms(gpu_ms);

  std::vector<LinearCost> costs;
  std::vector<const BackendCapabilities*> members;
  for (const BackendCapabilities* g : gpus) {
    costs.push_back(*g->cost);
    members.push_back(g);
  }
  std::vector<std::size_t> gpu_share = detail::balanced_split(costs, req.runs);
  const double gpus_ms = detail::split_time(costs, gpu_share);
  costs.push_back(*cpu->cost);
  members.push_back(cpu);
  std::vector<std::size_t> all_share = detail::balanced_split(costs, req.runs);
  const double all_ms = detail::split_time(costs, all_share);

  Selection s;
  s.reason = Reason::cost_model;
  double best = std::min(cpu_ms, gpu_ms);
  std::vector<std::size_t> share(members.size(), 0);
  if (cpu_ms <= gpu_ms) {
    share.back() = req.runs;
  } else {
    share[static_cast<std::size_t>(std::find(members.begin(), members.end(), best_gpu) - members.begin())] = req.runs;
  }
  if (gpus.size() > 1 && gpus_ms < best) {
    best = gpus_ms;
    std::copy(gpu_share.begin(), gpu_share.end(), share.begin());
    share.back() = 0;
    estimates += ", split over GPUs " + detail::fmt_ms(gpus_ms);
  }
  if (all_share.back() > 0 && all_ms < (1.0 - req.cpu_share_min_gain) * best) {
    best = all_ms;
    share = all_share;
    estimates += ", split over GPUs and CPU " + detail::fmt_ms(all_ms);
  }
  std::size_t first = 0;
  for (std::size_t i = 0; i < members.size(); ++i) {
    if (share[i] == 0) continue;
    s.parts.push_back({members[i]->id, Reason::cost_model, first, share[i], members[i]->cost->predict_ms(share[i])});
    first += share[i];
    s.backend += (s.backend.empty() ? "" : "+") + to_string(members[i]->id);
  }
  s.predicted_ms = best;
  s.detail = estimates;
  return s;
}

/// The selection of parts the user forced (Solver::force_parts): each recorded with reason
/// user_preference. Throws InvalidInput when they do not cover [0, runs) in run order.
inline Selection forced(const std::vector<Part>& parts, std::size_t runs) {
  Selection s;
  s.reason = Reason::user_preference;
  std::size_t next = 0;
  for (Part p : parts) {
    if (p.first_run != next) throw InvalidInput("forced parts must cover the batch in run order");
    next += p.runs;
    p.reason = Reason::user_preference;
    s.backend += (s.backend.empty() ? "" : "+") + to_string(p.backend);
    s.parts.push_back(p);
  }
  if (next != runs) {
    throw InvalidInput("forced parts cover " + std::to_string(next) + " runs, the batch has " + std::to_string(runs));
  }
  return s;
}

}  // namespace batchode::sched
