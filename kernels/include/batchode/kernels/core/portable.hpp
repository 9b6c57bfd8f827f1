// kernels/core/: the few standard-library names the integrator core uses, as batchode::port::<name>.
// The runtime compilers (NVRTC, hipRTC) ship no standard library: they cannot open <cmath> or
// <type_traits>. Under them this header defines the names itself (integer types, the type traits the
// core's detection idioms need, numeric_limits of float and double, and the math functions as calls
// of the device math library, which those compilers know without any header). Every other compiler
// includes the standard headers and takes the std names, so nvcc and host compilers see exactly the
// functions they saw before and generate the same code.
// A name the core starts using goes in both branches; tests/kernels/nvrtc_core_test compiles the core
// with NVRTC and would catch one missing from the runtime-compiler branch.
#pragma once

#include "batchode/kernels/core/annotations.hpp"

#if !BATCHODE_RTC

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <utility>

namespace batchode::port {

using std::int32_t;
using std::size_t;
using std::uint16_t;
using std::uint32_t;
using std::uint64_t;

using std::bool_constant;
using std::conditional_t;
using std::declval;
using std::enable_if_t;
using std::false_type;
using std::integral_constant;
using std::is_arithmetic_v;
using std::is_copy_constructible_v;
using std::is_same_v;
using std::is_standard_layout_v;
using std::is_trivially_copyable_v;
using std::true_type;
using std::void_t;

using std::numeric_limits;

using std::ceil;
using std::cos;
using std::exp;
using std::fabs;
using std::fma;
using std::log;
using std::pow;
using std::sin;
using std::sqrt;
using std::tanh;

// The rest of the functions a model file may call (kernels/core/model_math.hpp).
using std::acos;
using std::asin;
using std::atan;
using std::atan2;
using std::cosh;
using std::floor;
using std::sinh;
using std::tan;

}  // namespace batchode::port

#else  // a runtime compiler: device code only, no standard library

namespace batchode::port {

// --- Integer types: the widths the CUDA and HIP device ABIs give these types. ---
using size_t = decltype(sizeof(0));
using int32_t = int;
using uint16_t = unsigned short;
using uint32_t = unsigned int;
using uint64_t = unsigned long long;
static_assert(sizeof(int32_t) == 4 && sizeof(uint16_t) == 2 && sizeof(uint32_t) == 4 && sizeof(uint64_t) == 8);

// --- Type traits: what the core's detection idioms and static_asserts use. ---
template <class T, T V>
struct integral_constant {
  static constexpr T value = V;
  using value_type = T;
  using type = integral_constant;
  BATCHODE_HOST_DEVICE constexpr operator value_type() const noexcept { return value; }
  BATCHODE_HOST_DEVICE constexpr value_type operator()() const noexcept { return value; }
};
template <bool B>
using bool_constant = integral_constant<bool, B>;
using true_type = bool_constant<true>;
using false_type = bool_constant<false>;

template <bool B, class T = void>
struct enable_if {};
template <class T>
struct enable_if<true, T> {
  using type = T;
};
template <bool B, class T = void>
using enable_if_t = typename enable_if<B, T>::type;

template <bool B, class T, class F>
struct conditional {
  using type = T;
};
template <class T, class F>
struct conditional<false, T, F> {
  using type = F;
};
template <bool B, class T, class F>
using conditional_t = typename conditional<B, T, F>::type;

template <class...>
using void_t = void;

template <class A, class B>
inline constexpr bool is_same_v = false;
template <class A>
inline constexpr bool is_same_v<A, A> = true;

// Only in unevaluated operands (decltype), as std::declval.
template <class T>
BATCHODE_HOST_DEVICE T&& declval() noexcept;

namespace detail {
template <class T>
struct remove_cv {
  using type = T;
};
template <class T>
struct remove_cv<const T> {
  using type = T;
};
template <class T>
struct remove_cv<volatile T> {
  using type = T;
};
template <class T>
struct remove_cv<const volatile T> {
  using type = T;
};
template <class T>
struct arithmetic : false_type {};
#define BATCHODE_PORT_ARITHMETIC(type) \
  template <>                          \
  struct arithmetic<type> : true_type {}
BATCHODE_PORT_ARITHMETIC(bool);
BATCHODE_PORT_ARITHMETIC(char);
BATCHODE_PORT_ARITHMETIC(signed char);
BATCHODE_PORT_ARITHMETIC(unsigned char);
BATCHODE_PORT_ARITHMETIC(wchar_t);
BATCHODE_PORT_ARITHMETIC(char16_t);
BATCHODE_PORT_ARITHMETIC(char32_t);
BATCHODE_PORT_ARITHMETIC(short);
BATCHODE_PORT_ARITHMETIC(unsigned short);
BATCHODE_PORT_ARITHMETIC(int);
BATCHODE_PORT_ARITHMETIC(unsigned int);
BATCHODE_PORT_ARITHMETIC(long);
BATCHODE_PORT_ARITHMETIC(unsigned long);
BATCHODE_PORT_ARITHMETIC(long long);
BATCHODE_PORT_ARITHMETIC(unsigned long long);
BATCHODE_PORT_ARITHMETIC(float);
BATCHODE_PORT_ARITHMETIC(double);
BATCHODE_PORT_ARITHMETIC(long double);
#undef BATCHODE_PORT_ARITHMETIC
}  // namespace detail

template <class T>
inline constexpr bool is_arithmetic_v = detail::arithmetic<typename detail::remove_cv<T>::type>::value;

// The compiler builtins the standard library's own traits are made of (EDG in NVRTC, clang in hipRTC).
template <class T>
inline constexpr bool is_copy_constructible_v = __is_constructible(T, const T&);
template <class T>
inline constexpr bool is_trivially_copyable_v = __is_trivially_copyable(T);
template <class T>
inline constexpr bool is_standard_layout_v = __is_standard_layout(T);

// --- Limits of the two precisions the core runs in. ---
// Neither runtime compiler predefines __FLT_MAX__ and the like, and NVRTC knows no
// __builtin_huge_val: the values are written as exact hexadecimal literals and bit patterns.
template <class T>
struct numeric_limits;
template <>
struct numeric_limits<float> {
  BATCHODE_HOST_DEVICE static constexpr float min() noexcept { return 0x1p-126f; }
  BATCHODE_HOST_DEVICE static constexpr float max() noexcept { return 0x1.fffffep+127f; }
  BATCHODE_HOST_DEVICE static constexpr float epsilon() noexcept { return 0x1p-23f; }
  BATCHODE_HOST_DEVICE static constexpr float infinity() noexcept { return __builtin_bit_cast(float, 0x7f800000u); }
  BATCHODE_HOST_DEVICE static constexpr float quiet_NaN() noexcept { return __builtin_bit_cast(float, 0x7fc00000u); }
};
template <>
struct numeric_limits<double> {
  BATCHODE_HOST_DEVICE static constexpr double min() noexcept { return 0x1p-1022; }
  BATCHODE_HOST_DEVICE static constexpr double max() noexcept { return 0x1.fffffffffffffp+1023; }
  BATCHODE_HOST_DEVICE static constexpr double epsilon() noexcept { return 0x1p-52; }
  BATCHODE_HOST_DEVICE static constexpr double infinity() noexcept {
    return __builtin_bit_cast(double, 0x7ff0000000000000ull);
  }
  BATCHODE_HOST_DEVICE static constexpr double quiet_NaN() noexcept {
    return __builtin_bit_cast(double, 0x7ff8000000000000ull);
  }
};

// --- Math: the float and double overloads of <cmath>, as calls of the device math library. ---
#define BATCHODE_PORT_MATH1(name)                                                                  \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE float name(float x) { return ::name##f(x); }          \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE double name(double x) { return ::name(x); }
#define BATCHODE_PORT_MATH2(name)                                                                  \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE float name(float x, float y) { return ::name##f(x, y); } \
  BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE double name(double x, double y) { return ::name(x, y); }
BATCHODE_PORT_MATH1(ceil)
BATCHODE_PORT_MATH1(cos)
BATCHODE_PORT_MATH1(exp)
BATCHODE_PORT_MATH1(fabs)
BATCHODE_PORT_MATH1(log)
BATCHODE_PORT_MATH1(sin)
BATCHODE_PORT_MATH1(sqrt)
BATCHODE_PORT_MATH1(tanh)
BATCHODE_PORT_MATH2(pow)
// The rest of the functions a model file may call (kernels/core/model_math.hpp).
BATCHODE_PORT_MATH1(acos)
BATCHODE_PORT_MATH1(asin)
BATCHODE_PORT_MATH1(atan)
BATCHODE_PORT_MATH1(cosh)
BATCHODE_PORT_MATH1(floor)
BATCHODE_PORT_MATH1(sinh)
BATCHODE_PORT_MATH1(tan)
BATCHODE_PORT_MATH2(atan2)
#undef BATCHODE_PORT_MATH1
#undef BATCHODE_PORT_MATH2
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE float fma(float x, float y, float z) { return ::fmaf(x, y, z); }
BATCHODE_HOST_DEVICE BATCHODE_FORCEINLINE double fma(double x, double y, double z) { return ::fma(x, y, z); }

}  // namespace batchode::port

#endif  // BATCHODE_RTC
