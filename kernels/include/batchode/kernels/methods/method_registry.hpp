// kernels/methods/: the method registry, the one list of batchode's methods. Each entry pairs a Method with
// its tableau (tableaux.hpp, rosenbrock_tableaux.hpp); everything else about a method is read off
// that tableau: MethodInfo (order, stages, adaptive, FSAL, stiff, GPU), the run-time to compile-time
// switch (tableau::dispatch), all_methods and stiff_methods. Adding a method is one line here plus
// its tableau. Plain constexpr, so runtime compilers build it too.
#pragma once

#include "batchode/kernels/core/system.hpp"
#include "batchode/kernels/methods/esdirk_tableaux.hpp"
#include "batchode/kernels/methods/method.hpp"
#include "batchode/kernels/methods/radau_tableau.hpp"
#include "batchode/kernels/methods/rosenbrock_tableaux.hpp"
#include "batchode/kernels/methods/tableaux.hpp"

// X(method, tableau): in enum order.
#define BATCHODE_METHOD_REGISTRY(X)        \
  X(euler, Euler)                          \
  X(rk4, Rk4)                              \
  X(bogacki_shampine32, BogackiShampine32) \
  X(cash_karp54, CashKarp54)               \
  X(dopri5, Dopri5)                        \
  X(tsit5, Tsit5)                          \
  X(fehlberg78, Fehlberg78)                \
  X(ros3p, Ros3p)                          \
  X(rodas4, Rodas4)                        \
  X(rosenbrock4, OdeintRosenbrock4)        \
  X(rodas5p, Rodas5p)                      \
  X(vern7, Vern7)                          \
  X(vern9, Vern9)                          \
  X(kvaerno5, Kvaerno5)                    \
  X(dop853, Dop853)                        \
  X(radau5, RadauIIA5)                     \
  X(kvaerno3, Kvaerno3)                    \
  X(kencarp4, KenCarp4)                    \
  X(rodas4p2, Rodas4p2)

namespace batchode {

namespace detail {
template <class Tab>
constexpr MethodInfo method_info_of(Method method, const char* name) {
  return MethodInfo{method,
                    name,
                    Tab::order,
                    Tab::error_order,
                    Tab::stages,
                    Tab::adaptive,
                    Tab::fsal,
                    tableau::is_stiff_v<Tab>,
                    tableau::runs_on_gpu_v<Tab>,
                    tableau::solves_dae_v<Tab>};
}
}  // namespace detail

/// Every method's facts, indexed by the Method's value.
inline constexpr MethodInfo method_registry[] = {
#define BATCHODE_REGISTRY_ENTRY(m, Tab) detail::method_info_of<tableau::Tab>(Method::m, #m),
    BATCHODE_METHOD_REGISTRY(BATCHODE_REGISTRY_ENTRY)
#undef BATCHODE_REGISTRY_ENTRY
};
inline constexpr int method_count = static_cast<int>(sizeof(method_registry) / sizeof(method_registry[0]));

namespace detail {
constexpr bool registry_in_enum_order() {
  for (int i = 0; i < method_count; ++i) {
    if (static_cast<int>(method_registry[i].method) != i) return false;
  }
  return true;
}
}  // namespace detail
static_assert(detail::registry_in_enum_order(), "method_registry must list the methods in enum order");

/// True when `m` is one of the enum's values (a cast integer may not be).
constexpr bool is_known_method(Method m) {
  return static_cast<int>(m) >= 0 && static_cast<int>(m) < method_count;
}
/// True for the methods only the CPU path runs (those without a GPU kernel: rosenbrock4).
constexpr bool cpu_only(Method m) { return is_known_method(m) && !method_registry[static_cast<int>(m)].gpu; }
/// True for the linearly implicit (Rosenbrock) and implicit (ESDIRK, Radau IIA) methods: they need the
/// Jacobian.
constexpr bool is_stiff(Method m) { return is_known_method(m) && method_registry[static_cast<int>(m)].stiff; }
/// True for the methods that solve systems with algebraic states (MethodInfo::dae).
constexpr bool solves_dae(Method m) { return is_known_method(m) && method_registry[static_cast<int>(m)].dae; }

/// Every explicit method, in enum order (for tests and command-line tools); stiff_methods has the rest.
constexpr Method all_methods[] = {Method::euler,       Method::rk4,    Method::bogacki_shampine32,
                                  Method::cash_karp54, Method::dopri5, Method::tsit5,
                                  Method::fehlberg78,  Method::vern7,  Method::vern9,
                                  Method::dop853};
/// The stiff (Rosenbrock, ESDIRK and Radau IIA) methods. They need a Jacobian: the system's `jacobian` member
/// or, without one, forward-mode automatic differentiation through its templated call operator.
constexpr Method stiff_methods[] = {Method::ros3p,    Method::rodas4,   Method::rosenbrock4,
                                    Method::rodas5p,  Method::kvaerno5, Method::radau5,
                                    Method::kvaerno3, Method::kencarp4, Method::rodas4p2};

namespace detail {
// The two lists above partition the registry by `stiff`, each in enum order.
constexpr bool method_lists_match_registry() {
  int explicit_seen = 0, stiff_seen = 0;
  for (int i = 0; i < method_count; ++i) {
    const MethodInfo& info = method_registry[i];
    if (info.stiff) {
      if (stiff_seen >= static_cast<int>(sizeof(stiff_methods) / sizeof(Method)) ||
          stiff_methods[stiff_seen++] != info.method) {
        return false;
      }
    } else if (explicit_seen >= static_cast<int>(sizeof(all_methods) / sizeof(Method)) ||
               all_methods[explicit_seen++] != info.method) {
      return false;
    }
  }
  return explicit_seen == static_cast<int>(sizeof(all_methods) / sizeof(Method)) &&
         stiff_seen == static_cast<int>(sizeof(stiff_methods) / sizeof(Method));
}
}  // namespace detail
static_assert(detail::method_lists_match_registry(), "all_methods/stiff_methods disagree with method_registry");

}  // namespace batchode

namespace batchode::tableau {

/// The Method whose tableau is Tab (the registry read backwards).
template <class Tab>
struct method_of;
#define BATCHODE_METHOD_OF(method, Tab)             \
  template <>                                       \
  struct method_of<Tab> {                           \
    static constexpr Method value = Method::method; \
  };
BATCHODE_METHOD_REGISTRY(BATCHODE_METHOD_OF)
#undef BATCHODE_METHOD_OF

}  // namespace batchode::tableau

namespace batchode {

namespace detail {
// kernels/core/system.hpp detects a compiled_methods array (has_compiled_methods_v); whether its
// entries are Methods is asked here, where Method is known.
template <class S, class = void>
struct lists_methods : port::false_type {};
template <class S>
struct lists_methods<S, port::void_t<decltype(Method{S::compiled_methods[0]})>> : port::true_type {};
}  // namespace detail

/// True when System has declared compiled_methods (a list, possibly not every method).
template <class System>
inline constexpr bool declares_compiled_methods_v =
    has_compiled_methods_v<System> && detail::lists_methods<System>::value;

/// True when a compiled-in System has code built for method m: every method, unless the system lists
/// the ones it is solved with,
///   static constexpr batchode::Method compiled_methods[] = {batchode::Method::rodas4};
/// Each method is a few kernels (final state, series, summaries) a build instantiates for the system
/// and precision, seconds of nvcc each and more as N grows; a program that uses one method builds one.
template <class System>
constexpr bool compiles_method(Method m) {
  if constexpr (declares_compiled_methods_v<System>) {
    for (Method listed : System::compiled_methods) {
      if (listed == m) return true;
    }
    return false;
  } else {
    return true;
  }
}

}  // namespace batchode

namespace batchode::tableau {

/// Calls `f(Tag<Tableau>{})` with the tableau of `m`: the one switch from a run-time method to
/// compile-time code (CPU steppers, GPU kernel instantiations). Stiff methods give the tables of
/// rosenbrock_tableaux.hpp (is_rosenbrock_v), of esdirk_tableaux.hpp (is_esdirk_v) or a CPU-only tag
/// (runs_on_gpu_v false).
template <class F>
decltype(auto) dispatch(Method m, F&& f) {
  switch (m) {
#define BATCHODE_DISPATCH_CASE(method, Tab) \
  case Method::method:                      \
    return f(Tag<Tab>{});
    BATCHODE_METHOD_REGISTRY(BATCHODE_DISPATCH_CASE)
#undef BATCHODE_DISPATCH_CASE
  }
  return f(Tag<Dopri5>{});  // unreachable: options are validated before dispatch
}

/// dispatch() over the methods System compiles (compiles_method): `f(Tag<Tableau>{})` for those,
/// `not_compiled()` for the others, whose code is then never instantiated.
template <class System, class F, class G>
void dispatch_compiled(Method m, F&& f, G&& not_compiled) {
  dispatch(m, [&](auto tag) {
    if constexpr (compiles_method<System>(method_of<typename decltype(tag)::type>::value)) {
      f(tag);
    } else {
      not_compiled();
    }
  });
}

}  // namespace batchode::tableau
