#include "mxconform/registry.h"

#include "avx2_backend.h"
#include "oracle.h"
#include "scalar_backend.h"

namespace mxconform {

const std::vector<const Implementation*>& implementations() {
  static const std::vector<const Implementation*> kAll = {
      &oracle::backend(),
      &impl::scalar_backend(),
      &impl::avx2_backend(),
  };
  return kAll;
}

const Implementation* find_implementation(std::string_view name) {
  for (const Implementation* impl : implementations()) {
    if (impl->name() == name) return impl;
  }
  return nullptr;
}

bool runnable_here(const Implementation& impl) {
  static const CpuFeatures kHere = CpuFeatures::detect();
  return kHere.covers(impl.required_features());
}

const Implementation& best_implementation() {
  const Implementation* best = &impl::scalar_backend();
  for (const Implementation* impl : implementations()) {
    if (impl->name() != "oracle" && runnable_here(*impl)) best = impl;  // later entries are faster
  }
  return *best;
}

}  // namespace mxconform
