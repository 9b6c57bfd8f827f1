// solver/systems/: the name under which the cost model (cost_model.hpp) files a System's measurements.
//
// A System may name itself: `static constexpr const char* name = "lorenz";` or a static function
// `name()`. That name is used as given: stable across builds and programs, and the user's to keep
// unique.
//
// Without one, typeid(System).name() alone is not enough: two programs' (or two translation units')
// anonymous-namespace `Lorenz` have the same typeid name and would share coefficients measured on
// different equations. So the key adds where a per-System variable (system_tag below) lies: its
// module's file name and its offset in that module. Each System type of a program has its own tag
// (an anonymous-namespace type's tag has internal linkage, so one per translation unit), so no two
// types of one process share a key, and programs differ by module name. The offset, unlike the
// address, does not move with address-space randomisation, so a program's next run finds its
// cached coefficients; a rebuild that moves the tag recalibrates once, which is also what a changed
// System needs. (A System used from two shared libraries built with hidden visibility has a tag in
// each, so each calibrates once.)
#pragma once

#include <string>
#include <type_traits>
#include <typeinfo>

namespace batchode {
namespace detail {

/// True when System has a static member `name` (a string or a function returning one). The one member
/// of the System concept (kernels/core/system.hpp) detected outside it: telling a static member from a
/// non-static one takes std::is_member_pointer, which kernels' port:: lacks, and a name is host-only.
template <class System, class = void>
struct has_static_name : std::false_type {};
template <class System>
struct has_static_name<System, std::void_t<decltype(&System::name)>>
    : std::bool_constant<!std::is_member_pointer_v<decltype(&System::name)>> {};

/// One object per System type and program, only ever used for its address. Not const: distinct
/// mutable objects have distinct addresses, which identical-constant merging could not fold.
template <class System>
inline char system_tag = 0;

/// "<module file name>+0x<offset of address in it>", or the plain address where the platform
/// cannot say which module holds it.
std::string module_offset(const void* address);

}  // namespace detail

/// The cost model's name for System: System::name when it has one, else its typeid name followed by
/// "@" and detail::module_offset of its tag (see the header comment).
template <class System>
std::string system_cost_name() {
  if constexpr (detail::has_static_name<System>::value) {
    if constexpr (std::is_function_v<std::remove_pointer_t<decltype(&System::name)>>) {
      return std::string(System::name());
    } else {
      return std::string(System::name);
    }
  } else {
    return std::string(typeid(System).name()) + "@" + detail::module_offset(&detail::system_tag<System>);
  }
}

}  // namespace batchode
