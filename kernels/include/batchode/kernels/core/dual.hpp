// kernels/core/: forward-mode automatic differentiation: Dual<T, M> carries a value and M partial
// derivatives through a system's templated call operator, so one call yields f and M directional
// derivatives exactly (to rounding), on host and device. kernels/linalg/jacobian.hpp uses it.
//
// A system differentiates unchanged when its call operator is a template over the number type and it
// writes constants as T(...) or plain literals. Math functions are found by argument-dependent lookup:
// write `using std::exp; exp(x)` (or call exp/log/... unqualified); `std::exp(x)` only takes built-in
// types. A system also compiled by NVRTC or hipRTC, which have no std, writes
// `using batchode::port::exp;` instead (kernels/core/portable.hpp). Comparisons look at values only (the
// branch taken is differentiated).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode::kernels {

template <class T, int M>
struct Dual {
  T v;     ///< value
  T d[M];  ///< partial derivatives

  BATCHODE_HOST_DEVICE constexpr Dual() : v(0), d{} {}
  /// A constant (all derivatives zero): lets a system write T(1), T(8.0 / 3) or mix in literals.
  template <class U, class = port::enable_if_t<port::is_arithmetic_v<U>>>
  BATCHODE_HOST_DEVICE constexpr Dual(U x) : v(static_cast<T>(x)), d{} {}

  /// x with derivative 1 in direction k (a seeded independent variable).
  BATCHODE_HOST_DEVICE static Dual variable(T x, int k) {
    Dual r(x);
    BATCHODE_UNROLL
    for (int i = 0; i < M; ++i) r.d[i] = (i == k) ? T(1) : T(0);
    return r;
  }

  // Chain rule for a function with value fx and derivative dfx at x.v.
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE Dual chain(T fx, T dfx) const {
    Dual r;
    r.v = fx;
    BATCHODE_UNROLL
    for (int i = 0; i < M; ++i) r.d[i] = dfx * d[i];
    return r;
  }

  BATCHODE_HOST_DEVICE friend Dual operator+(const Dual& a) { return a; }
  BATCHODE_HOST_DEVICE friend Dual operator-(const Dual& a) { return a.chain(-a.v, T(-1)); }

  BATCHODE_HOST_DEVICE friend Dual operator+(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v + b.v;
    BATCHODE_UNROLL
    for (int i = 0; i < M; ++i) r.d[i] = a.d[i] + b.d[i];
    return r;
  }
  BATCHODE_HOST_DEVICE friend Dual operator-(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v - b.v;
    BATCHODE_UNROLL
    for (int i = 0; i < M; ++i) r.d[i] = a.d[i] - b.d[i];
    return r;
  }
  BATCHODE_HOST_DEVICE friend Dual operator*(const Dual& a, const Dual& b) {
    Dual r;
    r.v = a.v * b.v;
    BATCHODE_UNROLL
    for (int i = 0; i < M; ++i) r.d[i] = a.d[i] * b.v + a.v * b.d[i];
    return r;
  }
  BATCHODE_HOST_DEVICE friend Dual operator/(const Dual& a, const Dual& b) {
    Dual r;
    const T inv = T(1) / b.v;
    r.v = a.v * inv;
    BATCHODE_UNROLL
    for (int i = 0; i < M; ++i) r.d[i] = (a.d[i] - r.v * b.d[i]) * inv;
    return r;
  }
  // Mixed with a constant: no derivative arithmetic for the constant's side.
  BATCHODE_HOST_DEVICE friend Dual operator+(const Dual& a, T b) { Dual r = a; r.v += b; return r; }
  BATCHODE_HOST_DEVICE friend Dual operator+(T a, const Dual& b) { Dual r = b; r.v += a; return r; }
  BATCHODE_HOST_DEVICE friend Dual operator-(const Dual& a, T b) { Dual r = a; r.v -= b; return r; }
  BATCHODE_HOST_DEVICE friend Dual operator-(T a, const Dual& b) { return b.chain(a - b.v, T(-1)); }
  BATCHODE_HOST_DEVICE friend Dual operator*(const Dual& a, T b) { return a.chain(a.v * b, b); }
  BATCHODE_HOST_DEVICE friend Dual operator*(T a, const Dual& b) { return b.chain(a * b.v, a); }
  BATCHODE_HOST_DEVICE friend Dual operator/(const Dual& a, T b) {
    const T inv = T(1) / b;
    return a.chain(a.v * inv, inv);
  }
  BATCHODE_HOST_DEVICE friend Dual operator/(T a, const Dual& b) {
    const T r = a / b.v;
    return b.chain(r, -r / b.v);
  }

  BATCHODE_HOST_DEVICE Dual& operator+=(const Dual& b) { return *this = *this + b; }
  BATCHODE_HOST_DEVICE Dual& operator-=(const Dual& b) { return *this = *this - b; }
  BATCHODE_HOST_DEVICE Dual& operator*=(const Dual& b) { return *this = *this * b; }
  BATCHODE_HOST_DEVICE Dual& operator/=(const Dual& b) { return *this = *this / b; }

  BATCHODE_HOST_DEVICE friend bool operator<(const Dual& a, const Dual& b) { return a.v < b.v; }
  BATCHODE_HOST_DEVICE friend bool operator>(const Dual& a, const Dual& b) { return a.v > b.v; }
  BATCHODE_HOST_DEVICE friend bool operator<=(const Dual& a, const Dual& b) { return a.v <= b.v; }
  BATCHODE_HOST_DEVICE friend bool operator>=(const Dual& a, const Dual& b) { return a.v >= b.v; }
  BATCHODE_HOST_DEVICE friend bool operator==(const Dual& a, const Dual& b) { return a.v == b.v; }
  BATCHODE_HOST_DEVICE friend bool operator!=(const Dual& a, const Dual& b) { return a.v != b.v; }

  // The common math functions (ADL: call them unqualified).
  BATCHODE_HOST_DEVICE friend Dual exp(const Dual& x) {
    const T e = port::exp(x.v);
    return x.chain(e, e);
  }
  BATCHODE_HOST_DEVICE friend Dual log(const Dual& x) { return x.chain(port::log(x.v), T(1) / x.v); }
  BATCHODE_HOST_DEVICE friend Dual sqrt(const Dual& x) {
    const T s = port::sqrt(x.v);
    return x.chain(s, T(0.5) / s);
  }
  BATCHODE_HOST_DEVICE friend Dual sin(const Dual& x) { return x.chain(port::sin(x.v), port::cos(x.v)); }
  BATCHODE_HOST_DEVICE friend Dual cos(const Dual& x) { return x.chain(port::cos(x.v), -port::sin(x.v)); }
  BATCHODE_HOST_DEVICE friend Dual tanh(const Dual& x) {
    const T th = port::tanh(x.v);
    return x.chain(th, T(1) - th * th);
  }
  BATCHODE_HOST_DEVICE friend Dual fabs(const Dual& x) {
    return x.chain(port::fabs(x.v), x.v < T(0) ? T(-1) : T(1));
  }
  BATCHODE_HOST_DEVICE friend Dual abs(const Dual& x) { return fabs(x); }
  /// x^b for a constant exponent: b x^(b-1) (finite at x = 0 for b >= 1).
  BATCHODE_HOST_DEVICE friend Dual pow(const Dual& x, T b) {
    const T p = port::pow(x.v, b);
    return x.chain(p, b * port::pow(x.v, b - T(1)));
  }
  /// x^y = exp(y log x) for a variable exponent (x > 0).
  BATCHODE_HOST_DEVICE friend Dual pow(const Dual& x, const Dual& y) {
    if (constant(y)) return pow(x, y.v);
    return exp(y * log(x));
  }
  BATCHODE_HOST_DEVICE friend Dual pow(T a, const Dual& y) {
    const T p = port::pow(a, y.v);
    return y.chain(p, p * port::log(a));
  }

  // The rest of the functions a model file may call (kernels/core/model_math.hpp forwards to these).
  BATCHODE_HOST_DEVICE friend Dual tan(const Dual& x) {
    const T tx = port::tan(x.v);
    return x.chain(tx, T(1) + tx * tx);
  }
  BATCHODE_HOST_DEVICE friend Dual asin(const Dual& x) {
    return x.chain(port::asin(x.v), T(1) / port::sqrt(T(1) - x.v * x.v));
  }
  BATCHODE_HOST_DEVICE friend Dual acos(const Dual& x) {
    return x.chain(port::acos(x.v), T(-1) / port::sqrt(T(1) - x.v * x.v));
  }
  BATCHODE_HOST_DEVICE friend Dual atan(const Dual& x) {
    return x.chain(port::atan(x.v), T(1) / (T(1) + x.v * x.v));
  }
  /// atan2(y, x): d = (x dy - y dx) / (x^2 + y^2).
  BATCHODE_HOST_DEVICE friend Dual atan2(const Dual& y, const Dual& x) {
    Dual r;
    r.v = port::atan2(y.v, x.v);
    const T inv = T(1) / (x.v * x.v + y.v * y.v);
    BATCHODE_UNROLL
    for (int i = 0; i < M; ++i) r.d[i] = (x.v * y.d[i] - y.v * x.d[i]) * inv;
    return r;
  }
  BATCHODE_HOST_DEVICE friend Dual sinh(const Dual& x) { return x.chain(port::sinh(x.v), port::cosh(x.v)); }
  BATCHODE_HOST_DEVICE friend Dual cosh(const Dual& x) { return x.chain(port::cosh(x.v), port::sinh(x.v)); }
  /// Piecewise constant: derivative zero (where it exists).
  BATCHODE_HOST_DEVICE friend Dual floor(const Dual& x) { return x.chain(port::floor(x.v), T(0)); }
  /// As std::min and std::max: values compared, a returned on a tie; the chosen argument's derivative.
  BATCHODE_HOST_DEVICE friend Dual min(const Dual& a, const Dual& b) { return b.v < a.v ? b : a; }
  BATCHODE_HOST_DEVICE friend Dual max(const Dual& a, const Dual& b) { return a.v < b.v ? b : a; }

 private:
  BATCHODE_HOST_DEVICE static bool constant(const Dual& x) {
    bool c = true;
    BATCHODE_UNROLL
    for (int i = 0; i < M; ++i) c = c && x.d[i] == T(0);
    return c;
  }
};

}  // namespace batchode::kernels
