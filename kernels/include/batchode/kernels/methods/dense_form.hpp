// kernels/methods/: how a method's tableau describes its own continuous extension (tableaux.hpp,
// rosenbrock_tableaux.hpp), for the steppers' interpolate(); a tableau without `dense` has none, and
// dense output is then the Hermite cubic (dense_output.hpp).
#pragma once

#include "batchode/kernels/core/portable.hpp"

namespace batchode::tableau {

enum class DenseForm {
  none,
  /// Hairer's CONTD5 (dopri5): dense_d(s), from the step's ends, end slopes and one combination.
  contd5,
  /// Polynomial weights (tsit5, vern7, vern9, dop853): y0 + h sum_s b_s(theta) k_s, b_s(theta) =
  /// sum_m dense_weight(s, m) theta^(m + 1) for m < dense_degree, over the step's stages and, where
  /// Tab::dense_stages says more, stages of the interpolant's own (stage i >= stages: f at t + dense_c(i)
  /// h and y0 + h sum_j dense_a(i, j) k_j, j < i), evaluated only for steps that are interpolated.
  weights,
  /// Rosenbrock (Hairer's rodas.f, CONTRO; Steinebach's RODAS5P with a third row): y0 + theta (d +
  /// (1 - theta) (K1 + theta (K2 + theta K3 ...))) with d = y1 - y0 and K_r = sum_s dense_h(r, s) k_s
  /// over the stage variables, for r < dense_rows (2 where the tableau does not say).
  rosenbrock,
};

/// Tab::dense, or DenseForm::none when the tableau has no continuous extension of its own.
template <class Tab, class = void>
struct dense_form_of {
  static constexpr DenseForm value = DenseForm::none;
};
template <class Tab>
struct dense_form_of<Tab, port::void_t<decltype(Tab::dense)>> {
  static constexpr DenseForm value = Tab::dense;
};
template <class Tab>
inline constexpr DenseForm dense_form_v = dense_form_of<Tab>::value;

/// Tab::dense_stages: the stages a DenseForm::weights extension sums over (Tab::stages unless said).
template <class Tab, class = void>
struct dense_stages_of {
  static constexpr int value = Tab::stages;
};
template <class Tab>
struct dense_stages_of<Tab, port::void_t<decltype(Tab::dense_stages)>> {
  static constexpr int value = Tab::dense_stages;
};
template <class Tab>
inline constexpr int dense_stages_v = dense_stages_of<Tab>::value;

/// Tab::dense_rows: how many combinations K_r a DenseForm::rosenbrock extension has (2 unless said).
template <class Tab, class = void>
struct dense_rows_of {
  static constexpr int value = 2;
};
template <class Tab>
struct dense_rows_of<Tab, port::void_t<decltype(Tab::dense_rows)>> {
  static constexpr int value = Tab::dense_rows;
};
template <class Tab>
inline constexpr int dense_rows_v = dense_rows_of<Tab>::value;

}  // namespace batchode::tableau
