// A module's names for the values of an enum (its variants), written once as a table: name_of() and
// parse_name() are the module's variant_name() and parse_variant(). Names are matched exactly
// (case-sensitive); a value missing from the table is named "?".
#pragma once

#include <cstddef>
#include <string_view>

namespace warpmind::detail {

template <class E>
struct Named {
  E value;
  const char* name;
};

template <class E, std::size_t N>
constexpr const char* name_of(const Named<E> (&table)[N], E value) {
  for (const Named<E>& e : table)
    if (e.value == value) return e.name;
  return "?";
}

// false (out unchanged) for a name not in the table.
template <class E, std::size_t N>
constexpr bool parse_name(const Named<E> (&table)[N], std::string_view name, E& out) {
  for (const Named<E>& e : table)
    if (name == e.name) {
      out = e.value;
      return true;
    }
  return false;
}

}  // namespace warpmind::detail
