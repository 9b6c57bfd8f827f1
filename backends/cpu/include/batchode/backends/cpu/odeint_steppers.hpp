// backends/cpu/: the CPU path's steppers: Boost.Odeint doing the Runge-Kutta arithmetic, behind the
// stepper interface that integrate_run (kernels/loop/run_integrator.hpp) drives, so step control, save
// landing and statuses are the same code as on the GPU.
// odeint's own steppers serve the methods it has (euler, rk4, cash_karp54, dopri5, fehlberg78);
// bogacki_shampine32 runs through odeint's generic explicit_error_generic_rk fed with our tableau
// (kernels/methods/tableaux.hpp); tsit5 can too (the tests' reference), but the CPU path runs it on the
// register stepper (run_range.hpp: its dense output needs the stages). Tests pin odeint's built-in
// coefficients to those tableaux too.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <boost/array.hpp>
#include <boost/fusion/include/make_vector.hpp>
#include <boost/numeric/odeint.hpp>

#include "batchode/kernels/methods/tableaux.hpp"

// odeint's generic error stepper defines its error sum only up to 6 stages; Tsit5 has 7. This is the
// missing specialisation, written exactly like odeint's own for 1..6 stages.
namespace boost::numeric::odeint::detail {
template <class Operations, class Fac, class Time>
struct generic_rk_scale_sum_err<7, Operations, Fac, Time> : public Operations::template scale_sum7<Time> {
  generic_rk_scale_sum_err(const boost::array<Fac, 7>& a, Time dt)
      : Operations::template scale_sum7<Time>(a[0] * dt, a[1] * dt, a[2] * dt, a[3] * dt, a[4] * dt, a[5] * dt,
                                              a[6] * dt) {}
  typedef void result_type;
};
}  // namespace boost::numeric::odeint::detail

namespace batchode::cpu {

namespace odeint = boost::numeric::odeint;

/// A run's parameters as the right-hand side sees them: a copy held by value when there are few,
/// else a pointer into the batch. The copy matters: through a pointer the compiler must assume
/// every store to a stage vector may change them and reload them after it, which put those loads
/// on the stage chain (Lorenz dopri5, one core: 8.9M -> 10.9M run-steps/s from this alone).
template <class T, std::size_t P, bool ByValue = (P <= 16)>
struct OdeintParams {
  std::array<T, (P > 0 ? P : 1)> values{};
  explicit OdeintParams(const T* p) {
    if (p)
      for (std::size_t i = 0; i < P; ++i) values[i] = p[i];
  }
  const T* data() const { return values.data(); }
};
template <class T, std::size_t P>
struct OdeintParams<T, P, false> {
  const T* values;
  explicit OdeintParams(const T* p) : values(p) {}
  const T* data() const { return values; }
};

/// Our system seen as an odeint system: dxdt = f(x, t), with the run's parameters bound.
/// It counts nothing: OdeintStepper knows how many evaluations each call makes (a counter behind
/// a pointer here was a load and a store around every stage).
template <class System, class T>
struct OdeintRhs {
  using state_type = std::array<T, System::n_states>;
  const System* system;
  OdeintParams<T, System::n_params> params;
  void operator()(const state_type& x, state_type& dxdt, T t) const {
    (*system)(t, x.data(), params.data(), dxdt.data());
  }
};

/// odeint's generic error stepper built from one of our tableaux.
template <class Tab, class T, std::size_t N>
class GenericErrorStepper {
 public:
  using state_type = std::array<T, N>;
  using odeint_type = odeint::explicit_error_generic_rk<Tab::stages, Tab::order, Tab::order, Tab::error_order,
                                                        state_type, T, state_type, T>;
  static odeint_type make() {
    typename odeint_type::coef_b_type b, db, c;
    for (int s = 0; s < Tab::stages; ++s) {
      b[s] = T(Tab::b(s));
      db[s] = T(Tab::e(s));
      c[s] = T(Tab::c(s));
    }
    return odeint_type(a_rows(std::make_index_sequence<Tab::stages - 1>{}), b, db, c);
  }

 private:
  template <std::size_t Row>
  static boost::array<T, Row + 1> a_row() {
    boost::array<T, Row + 1> row;
    for (std::size_t j = 0; j <= Row; ++j) row[j] = T(Tab::a(int(Row) + 1, int(j)));
    return row;
  }
  template <std::size_t... Rows>
  static typename odeint_type::coef_a_type a_rows(std::index_sequence<Rows...>) {
    return typename odeint_type::coef_a_type(a_row<Rows>()...);
  }
};

/// Which odeint stepper carries out each method's arithmetic: none (no `type`) for the tables odeint has
/// no stepper of its own for, whose arithmetic the register stepper does on the CPU too (vern7, vern9:
/// odeint's generic stepper over 10 and 16 stages would be its Boost.Fusion unrolled that many times,
/// in every build of every system).
template <class Tab, class T, std::size_t N>
struct OdeintStepperFor {};
template <class T, std::size_t N>
struct OdeintStepperFor<tableau::Euler, T, N> {
  using type = odeint::euler<std::array<T, N>, T, std::array<T, N>, T>;
  static type make() { return type(); }
};
template <class T, std::size_t N>
struct OdeintStepperFor<tableau::Rk4, T, N> {
  using type = odeint::runge_kutta4<std::array<T, N>, T, std::array<T, N>, T>;
  static type make() { return type(); }
};
template <class T, std::size_t N>
struct OdeintStepperFor<tableau::CashKarp54, T, N> {
  using type = odeint::runge_kutta_cash_karp54<std::array<T, N>, T, std::array<T, N>, T>;
  static type make() { return type(); }
};
template <class T, std::size_t N>
struct OdeintStepperFor<tableau::Dopri5, T, N> {
  using type = odeint::runge_kutta_dopri5<std::array<T, N>, T, std::array<T, N>, T>;
  static type make() { return type(); }
};
template <class T, std::size_t N>
struct OdeintStepperFor<tableau::Fehlberg78, T, N> {
  using type = odeint::runge_kutta_fehlberg78<std::array<T, N>, T, std::array<T, N>, T>;
  static type make() { return type(); }
};
template <class T, std::size_t N>
struct OdeintStepperFor<tableau::Tsit5, T, N> {
  using type = typename GenericErrorStepper<tableau::Tsit5, T, N>::odeint_type;
  static type make() { return GenericErrorStepper<tableau::Tsit5, T, N>::make(); }
};
template <class T, std::size_t N>
struct OdeintStepperFor<tableau::BogackiShampine32, T, N> {
  using type = typename GenericErrorStepper<tableau::BogackiShampine32, T, N>::odeint_type;
  static type make() { return GenericErrorStepper<tableau::BogackiShampine32, T, N>::make(); }
};

/// True for the tables OdeintStepperFor gives an odeint stepper.
template <class Tab, class = void>
inline constexpr bool has_odeint_stepper_v = false;
template <class Tab>
inline constexpr bool
    has_odeint_stepper_v<Tab, std::void_t<typename OdeintStepperFor<Tab, double, 1>::type>> = true;

/// The RunStepper (kernels/loop/run_integrator.hpp) over an odeint stepper for method Tab. One object per
/// worker thread: it is re-`reset` for every run.
template <class Tab, class System, class T>
class OdeintStepper {
 public:
  static constexpr std::size_t N = System::n_states;
  using state_type = std::array<T, N>;
  static constexpr bool adaptive = Tab::adaptive;
  static constexpr int order = Tab::order;
  static constexpr int error_order = Tab::error_order;
  static constexpr bool keeps_derivative = true;  ///< derivative() is current after accept (dense output)
  /// dopri5 interpolates with odeint's own calc_state (its continuous extension, Hairer II.6):
  /// an implementation apart from the register stepper's, which the GPU path is checked against.
  static constexpr bool own_dense_output = adaptive && Tab::method == Method::dopri5;

  OdeintStepper() : stepper_(OdeintStepperFor<Tab, T, N>::make()) {}

  void reset(const System& sys, T t, const state_type& y, const T* p) { rhs(sys, p)(y, dxdt_, t); }
  const state_type& derivative() const { return dxdt_; }

  // flatten: odeint's do_step (its stages and their sums) and the right-hand side inlined into one
  // function, with the error estimate (Lorenz dopri5: 7 instructions fewer per step than calling it).
  [[gnu::flatten]] void step(const System& sys, T t, const state_type& y, const T* p, T h, state_type& y_new,
                             state_type& err) {
    const OdeintRhs<System, T> f = rhs(sys, p);
    if constexpr (!adaptive) {
      (void)err;
      stepper_.do_step(f, y, dxdt_, t, y_new, h);
    } else if constexpr (Tab::method == Method::dopri5) {
      stepper_.do_step(f, y, dxdt_, t, y_new, dxdt_new_, h, err);  // FSAL: returns f(t + h, y_new)
    } else {
      stepper_.do_step(f, y, dxdt_, t, y_new, h, err);
    }
  }

  /// The state at ts in [t, t + h] of the attempt just made (own_dense_output; before accept()).
  void interpolate(T t, T h, T ts, const state_type& y, const state_type& y_new, T* out) const {
    if constexpr (own_dense_output) {
      state_type x;
      stepper_.calc_state(ts, x, y, dxdt_, t, y_new, dxdt_new_, t + h);
      for (std::size_t i = 0; i < N; ++i) out[i] = x[i];
    } else {
      (void)t, (void)h, (void)ts, (void)y, (void)y_new, (void)out;
    }
  }

  void accept(const System& sys, T t, const state_type& y, const T* p) {
    if constexpr (adaptive && Tab::method == Method::dopri5) {
      dxdt_ = dxdt_new_;
    } else {
      // odeint's generic steppers keep their last stage private, so the next step's first stage
      // is one more evaluation here (bogacki_shampine32: 4 per step, not 3).
      rhs(sys, p)(y, dxdt_, t);
    }
  }

  /// Right-hand-side evaluations since reset(), from the step counts (integrate_run asks this, so no
  /// count is kept per step): reset() makes one, every step() the stages - 1 after the first (dopri5's
  /// last is its FSAL dxdt_new_), every accept() one more except dopri5's. As kernels/methods/rk_stepper.hpp.
  static constexpr std::uint32_t rhs_evaluations(std::uint32_t accepted, std::uint32_t rejected) {
    constexpr bool fsal = adaptive && Tab::method == Method::dopri5;
    return 1u + static_cast<std::uint32_t>(Tab::stages - 1) * (accepted + rejected) + (fsal ? 0u : accepted);
  }

 private:
  OdeintRhs<System, T> rhs(const System& sys, const T* p) { return {&sys, OdeintParams<T, System::n_params>(p)}; }

  typename OdeintStepperFor<Tab, T, N>::type stepper_;
  state_type dxdt_{}, dxdt_new_{};
};

}  // namespace batchode::cpu
