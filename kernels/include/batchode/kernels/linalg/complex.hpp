// kernels/linalg/: the complex numbers of Radau IIA's complex iteration matrix ((alpha + i beta) / h M - J,
// kernels/methods/radau_stepper.hpp), host and device. The runtime compilers have no <complex>, and
// thrust's or cuda's complex types are not in the hipRTC/NVRTC core: a pair of reals with the operations
// the LU codes use (kernels/linalg/lu.hpp, band_lu.hpp, a model's generated sparse LU), written so that
// those codes run on it unchanged. magnitude() is the pivot size of every LU here: |x| for a real, |re| +
// |im| for a complex (LINPACK's cabs1 in CGEFA, as RADAU5's DECC: no square root per comparison).
#pragma once

#include "batchode/kernels/core/annotations.hpp"
#include "batchode/kernels/core/portable.hpp"

namespace batchode::kernels {

/// re + i im in precision T.
template <class T>
struct Complex {
  T re, im;
  BATCHODE_HOST_DEVICE constexpr Complex(T real = T(0), T imaginary = T(0)) : re(real), im(imaginary) {}

  BATCHODE_HOST_DEVICE Complex& operator+=(const Complex& b) {
    re += b.re;
    im += b.im;
    return *this;
  }
  BATCHODE_HOST_DEVICE Complex& operator-=(const Complex& b) {
    re -= b.re;
    im -= b.im;
    return *this;
  }
  BATCHODE_HOST_DEVICE Complex& operator*=(const Complex& b) { return *this = *this * b; }
  friend BATCHODE_HOST_DEVICE Complex operator-(const Complex& a) { return {-a.re, -a.im}; }
  friend BATCHODE_HOST_DEVICE Complex operator+(const Complex& a, const Complex& b) {
    return {a.re + b.re, a.im + b.im};
  }
  friend BATCHODE_HOST_DEVICE Complex operator-(const Complex& a, const Complex& b) {
    return {a.re - b.re, a.im - b.im};
  }
  friend BATCHODE_HOST_DEVICE Complex operator*(const Complex& a, const Complex& b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  /// a / b by the textbook formula, as RADAU5's SOLC: its pivots are O(1 / h) + J's entries, far from
  /// the range where |b|^2 overflows or underflows.
  friend BATCHODE_HOST_DEVICE Complex operator/(const Complex& a, const Complex& b) {
    const T inv = T(1) / (b.re * b.re + b.im * b.im);
    return {(a.re * b.re + a.im * b.im) * inv, (a.im * b.re - a.re * b.im) * inv};
  }
  friend BATCHODE_HOST_DEVICE bool operator==(const Complex& a, const Complex& b) {
    return a.re == b.re && a.im == b.im;
  }
};

/// |x|: the pivot size of the real LU codes.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T magnitude(T x) {
  return x < T(0) ? -x : x;
}
/// |re| + |im|: the pivot size of the complex ones.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE T magnitude(const Complex<T>& x) {
  return magnitude(x.re) + magnitude(x.im);
}

/// Whether a pivot computed as a sum of terms whose magnitudes add up to `terms` is more than their
/// rounding: |pivot| > 64 eps terms (n terms round to at most about n eps terms; 64 covers a row of 64
/// updates), and finite. False for NaN. (The generated sparse LU's check: kernels/linalg/sparse_lu.hpp.)
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool usable_pivot(T pivot, T terms) {
  const T a = magnitude(pivot);
  return a > T(64) * port::numeric_limits<T>::epsilon() * terms && a <= port::numeric_limits<T>::max();
}
/// The same for a complex pivot; its terms' magnitudes are summed in the real part.
template <class T>
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE bool usable_pivot(const Complex<T>& pivot,
                                                            const Complex<T>& terms) {
  return usable_pivot(magnitude(pivot), terms.re);
}

}  // namespace batchode::kernels
