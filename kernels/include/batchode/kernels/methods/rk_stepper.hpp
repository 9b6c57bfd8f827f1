// kernels/methods/: the GPU side of batchode: the register-resident Runge-Kutta stepper, the output sinks,
// and the batch kernel (kernels/launch/batch_kernel.hpp). Everything here is host+device code written in
// HIP; it also compiles as plain C++, which lets CPU tests pin the stepper against Boost.Odeint.
// This file: one explicit RK step of any tableau in kernels/methods/tableaux.hpp, with stages in registers.
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"
#include "batchode/kernels/core/run_pack.hpp"
#include "batchode/kernels/core/static_for.hpp"
#include "batchode/kernels/core/tolerance.hpp"
#include "batchode/kernels/methods/dense_form.hpp"
#include "batchode/kernels/methods/tableaux.hpp"

namespace batchode {

/// A fixed-size state vector usable on host and device (std::array's operator[] is not device code
/// under every compiler we support).
template <class T, port::size_t N>
struct Vec {
  T v[N];
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T& operator[](port::size_t i) { return v[i]; }
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE const T& operator[](port::size_t i) const { return v[i]; }
  static constexpr port::size_t size() { return N; }
};

/// Whether tableau Tab has its own continuous extension (Tab::dense: dense_form.hpp).
template <class Tab>
struct has_own_dense_output : port::bool_constant<tableau::dense_form_v<Tab> != tableau::DenseForm::none> {};

/// Explicit Runge-Kutta stepper over tableau Tab (kernels/methods/tableaux.hpp) for an N-state system in
/// precision T. The stage derivatives k[s][i] are indexed only with compile-time constants after
/// unrolling, so they live in registers; zero coefficients generate no code.
template <class Tab, class T, port::size_t N>
class RkStepper {
 public:
  using state_type = Vec<T, N>;
  static constexpr bool adaptive = Tab::adaptive;
  static constexpr int order = Tab::order;
  static constexpr int error_order = Tab::error_order;
  static constexpr int stages = Tab::stages;
  static constexpr bool keeps_derivative = true;  ///< derivative() is current after accept (dense output)
  /// interpolate() is the method's own dense output (kernels/loop/step_outputs.hpp's DenseStep uses it).
  static constexpr bool own_dense_output = has_own_dense_output<Tab>::value;
  /// Stages the dense output adds to the step's (dop853's 3, vern7's 6, vern9's 10: dense_form.hpp),
  /// evaluated by prepare_dense() only on a step that is interpolated.
  static constexpr int dense_extra_stages = tableau::dense_stages_v<Tab> - stages;

  template <class System>
  BATCHODE_HOST_DEVICE void reset(const System& sys, T t, const state_type& y, const T* p) {
    sys(t, &y[0], p, k_[0]);
  }

  /// The run's tolerances (integrate_run passes them), for the tables that combine two estimates in
  /// the norm (tableau::combines_estimates_v: dop853); the others have no such member.
  template <class U = T, port::enable_if_t<tableau::combines_estimates_v<Tab> && sizeof(U) != 0, int> = 0>
  BATCHODE_HOST_DEVICE void use_tolerances(T rtol, T atol) {
    tolerances_[0] = rtol;
    tolerances_[1] = atol;
  }

  /// f(t, y) at the current point (valid after reset and after every accept).
  BATCHODE_HOST_DEVICE const state_type& derivative() const {
    return *reinterpret_cast<const state_type*>(&k_[0][0]);
  }

  /// One attempt from (t, y) with step h. Each stage argument is y + sum_j (h a_sj) k_j: the products
  /// h a_sj are shared by all states, so every term is one fused multiply-add (a zero coefficient
  /// costs nothing, a unit one no multiply).
  template <class System>
  BATCHODE_HOST_DEVICE void step(const System& sys, T t, const state_type& y, const T* p, T h,
                                 state_type& y_new, state_type& err) {
    if constexpr (dense_extra_stages > 0) dense_current_ = false;
    BATCHODE_UNROLL
    for (int s = 1; s < stages; ++s) {
      T arg[N];
      BATCHODE_UNROLL
      for (port::size_t i = 0; i < N; ++i) {
        T sum = y[i];
        BATCHODE_UNROLL
        for (int j = 0; j < s; ++j) {
          if (Tab::a(s, j) != 0.0) sum += (h * T(Tab::a(s, j))) * k_[j][i];
        }
        arg[i] = sum;
      }
      sys(t + T(Tab::c(s)) * h, arg, p, k_[s]);
    }
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) {
      if constexpr (integer_weights()) {
        // Weights that are integer multiples m_s of the first nonzero one b_r (RK4: 1, 2, 2, 1 times
        // 1/6): y + (h b_r) sum_s m_s k_s, as RK4 is written by hand. As many operations, but the
        // last stage enters the sum by a plain add, which the compiler fuses with the system's last
        // multiply where it ends in one (Lorenz: sigma (y - x)): one instruction less per step, and a
        // shorter dependency chain into the next step.
        T sum = k_[first_weight()][i];
        BATCHODE_UNROLL
        for (int s = first_weight() + 1; s < stages; ++s) {
          if (Tab::b(s) != 0.0) sum += T(Tab::b(s) / Tab::b(first_weight())) * k_[s][i];
        }
        y_new[i] = y[i] + (h * T(Tab::b(first_weight()))) * sum;
      } else {
        T sum = y[i];
        BATCHODE_UNROLL
        for (int s = 0; s < stages; ++s) {
          if (Tab::b(s) != 0.0) sum += (h * T(Tab::b(s))) * k_[s][i];
        }
        y_new[i] = sum;
      }
    }
    if constexpr (adaptive) {
      BATCHODE_UNROLL
      for (port::size_t i = 0; i < N; ++i) {
        T sum = 0;
        BATCHODE_UNROLL
        for (int s = 0; s < stages; ++s) {
          if (Tab::e(s) != 0.0) sum += (h * T(Tab::e(s))) * k_[s][i];
        }
        err[i] = sum;
      }
      if constexpr (tableau::combines_estimates_v<Tab>) combine_estimates(h, y, y_new, err);
    } else {
      (void)err;
    }
  }

  /// The dense output's own stages (dense_extra_stages) for the attempt just made from (t, y) with
  /// step h, between step() and accept() and before interpolate(); once an attempt. Returns the
  /// right-hand-side evaluations it made: 0 where they were made for this attempt already (a step
  /// that locates an event and saves points), or where the table has none.
  template <class System>
  BATCHODE_HOST_DEVICE port::uint32_t prepare_dense(const System& sys, T t, T h, const state_type& y,
                                                    const T* p) {
    if constexpr (dense_extra_stages > 0) {
      if (dense_current_) return 0;
      detail::static_for<stages, dense_stages>(
          [&](auto stage) { evaluate_dense_stage<decltype(stage)::value>(sys, t, y, p, h); });
      dense_current_ = true;
      return static_cast<port::uint32_t>(dense_extra_stages);
    } else {
      (void)sys, (void)t, (void)h, (void)y, (void)p;
      return 0;
    }
  }

  /// The method's own dense output (own_dense_output): the state at ts in [t, t + h] of the attempt
  /// just made from (t, y) to y_new, from its stages (and prepare_dense's, where the table has more).
  /// Only between step() and accept(), which overwrites the first stage (the formulas: dense_form.hpp;
  /// dopri5's CONTD5, the weights of tsit5, vern7, vern9 and dop853).
  BATCHODE_HOST_DEVICE void interpolate(T t, T h, T ts, const state_type& y, const state_type& y_new,
                                        T* out) const {
    if constexpr (tableau::dense_form_v<Tab> == tableau::DenseForm::weights) {
      // Stage and power are compile-time constants (static_for), so every coefficient is one: a
      // lookup left to the optimiser was a call per coefficient in GCC's float code (vern7 on the CPU,
      // 54 % of a solve interpolating 101 points).
      const T theta = (ts - t) / h;
      T b[dense_stages];
      detail::static_for<0, dense_stages>([&](auto stage) {
        constexpr int s = decltype(stage)::value;
        T w = 0;  // Horner in theta, then the common factor theta
        detail::static_for<0, Tab::dense_degree>([&](auto power) {
          constexpr double coefficient = Tab::dense_weight(s, Tab::dense_degree - 1 - decltype(power)::value);
          w = w * theta + T(coefficient);
        });
        b[s] = h * theta * w;
      });
      BATCHODE_UNROLL
      for (port::size_t i = 0; i < N; ++i) {
        T sum = y[i];
        detail::static_for<0, dense_stages>([&](auto stage) {
          constexpr int s = decltype(stage)::value;
          if constexpr (dense_weighs(s)) sum += b[s] * k_[s][i];
        });
        out[i] = sum;
      }
      (void)y_new;
    } else if constexpr (tableau::dense_form_v<Tab> == tableau::DenseForm::contd5) {
      const T theta = (ts - t) / h, rest = T(1) - theta;
      BATCHODE_UNROLL
      for (port::size_t i = 0; i < N; ++i) {
        T q = 0;
        BATCHODE_UNROLL
        for (int s = 0; s < stages; ++s) {
          if (Tab::dense_d(s) != 0.0) q += T(Tab::dense_d(s)) * k_[s][i];
        }
        const T d = y_new[i] - y[i];
        const T e = h * k_[0][i] - d;
        const T g = d - h * k_[stages - 1][i] - e;
        out[i] = y[i] + theta * (d + rest * (e + theta * (g + rest * (h * q))));
      }
    } else {
      (void)t, (void)h, (void)ts, (void)y, (void)y_new, (void)out;
    }
  }

  /// The attempt was accepted and the run is now at (t_new, y_new): the next step's first stage is
  /// f(t_new, y_new). FSAL methods evaluated it as their last stage; the others evaluate it here, so
  /// step() needs no "is the first stage current" test (a rejected attempt leaves it current).
  template <class System>
  BATCHODE_HOST_DEVICE void accept(const System& sys, T t_new, const state_type& y_new, const T* p) {
    if constexpr (Tab::fsal) {
      BATCHODE_UNROLL
      for (port::size_t i = 0; i < N; ++i) k_[0][i] = k_[stages - 1][i];
    } else {
      sys(t_new, &y_new[0], p, k_[0]);
    }
  }

  /// Right-hand-side evaluations since reset() of a run that made `accepted` + `rejected` attempts:
  /// one in reset(), stages - 1 per attempt, and one per accepted step unless the method is FSAL (the
  /// dense output's own stages are counted by the loop that asks for them: prepare_dense).
  /// integrate_run computes it from the run's step counters: a count kept per step is one more
  /// value carried through the hot loop, and costs registers (8 of 40 for RK4 Lorenz in float on
  /// sm_90), hence occupancy.
  BATCHODE_HOST_DEVICE static constexpr port::uint32_t rhs_evaluations(port::uint32_t accepted,
                                                                       port::uint32_t rejected) {
    return 1u + static_cast<port::uint32_t>(stages - 1) * (accepted + rejected) + (Tab::fsal ? 0u : accepted);
  }

 private:
  /// dop853.f's norm of two estimates: with s5 = sum (err5_i / sc_i)^2 and s3 the same of the order-3
  /// estimate (sc_i = atol + rtol max(|y_i|, |y_new_i|), the loop's scale), its error is
  /// s5 / sqrt(N (s5 + 0.01 s3)). err5 scaled by sqrt(s5 / (s5 + 0.01 s3)) has that norm in the loop's
  /// error_norm_squared (the mean of the squares), so the loop and its controller stay as they are.
  BATCHODE_HOST_DEVICE void combine_estimates(T h, const state_type& y, const state_type& y_new,
                                              state_type& err) const {
    T s5 = 0, s3 = 0;
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) {
      T e3 = 0;
      BATCHODE_UNROLL
      for (int s = 0; s < stages; ++s) {
        if (Tab::e3(s) != 0.0) e3 += (h * T(Tab::e3(s))) * k_[s][i];
      }
      const T scale = kernels::tolerance_scale(tolerances_[1], tolerances_[0], y[i], y_new[i]);
      s5 += (err[i] / scale) * (err[i] / scale);
      s3 += (e3 / scale) * (e3 / scale);
    }
    const T factor = estimate_factor(s5, s3);
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) err[i] *= factor;
  }

  /// sqrt(s5 / (s5 + 0.01 s3)) (1 where both are 0), a block's lanes each by the run's formula.
  BATCHODE_HOST_DEVICE static T estimate_factor(T s5, T s3) {
    const auto factor = [](auto a, auto b) {
      using U = decltype(a);
      const U denominator = a + U(0.01) * b;
      return denominator > U(0) ? port::sqrt(a / denominator) : U(1);
    };
    if constexpr (kernels::is_run_pack<T>::value) {
      return zip(s5, s3, factor);
    } else {
      return factor(s5, s3);
    }
  }

  static constexpr int dense_stages = tableau::dense_stages_v<Tab>;

  /// The dense output's own stage S (>= stages): k_[S] = f(t + c_S h, y + sum_{j<S} (h a_Sj) k_j), S and j
  /// compile-time constants (static_for), so each coefficient is one, a zero none (a lookup left to the
  /// optimiser was a call per coefficient in GCC's float code: see interpolate()).
  template <int S, class System>
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE void evaluate_dense_stage(const System& sys, T t,
                                                                      const state_type& y, const T* p, T h) {
    T arg[N];
    BATCHODE_UNROLL
    for (port::size_t i = 0; i < N; ++i) {
      T sum = y[i];
      detail::static_for<0, S>([&](auto prev) {
        constexpr double a = Tab::dense_a(S, decltype(prev)::value);
        if constexpr (a != 0.0) sum += (h * T(a)) * k_[decltype(prev)::value][i];
      });
      arg[i] = sum;
    }
    constexpr double c = Tab::dense_c(S);
    sys(t + T(c) * h, arg, p, k_[S]);
  }

  /// Whether stage s enters the dense output (vern7's interpolant gives stages 1, 2 and 9 no weight).
  BATCHODE_HOST_DEVICE static constexpr bool dense_weighs(int s) {
    for (int m = 0; m < Tab::dense_degree; ++m) {
      if (Tab::dense_weight(s, m) != 0.0) return true;
    }
    return false;
  }

  /// The first stage with a nonzero weight b_s.
  BATCHODE_HOST_DEVICE static constexpr int first_weight() {
    int s = 0;
    while (s + 1 < stages && Tab::b(s) == 0.0) ++s;
    return s;
  }
  /// Whether every weight is an exact integer multiple of the first nonzero one (RK4, Euler).
  BATCHODE_HOST_DEVICE static constexpr bool integer_weights() {
    const double r = Tab::b(first_weight());
    if (r == 0.0) return false;
    for (int s = 0; s < stages; ++s) {
      const double m = Tab::b(s) / r;
      if (!(m >= 0.0 && m <= 64.0) || m != static_cast<double>(static_cast<int>(m)) || m * r != Tab::b(s))
        return false;
    }
    return true;
  }

  T k_[tableau::dense_stages_v<Tab>][N];  // the step's stages, then the dense output's own
  bool dense_current_ = false;            // prepare_dense's stages are this attempt's
  // rtol, atol, set by use_tolerances before the first step and read only by combine_estimates; one
  // unused value for the other tables (the compilers drop it).
  T tolerances_[tableau::combines_estimates_v<Tab> ? 2 : 1];
};

}  // namespace batchode
