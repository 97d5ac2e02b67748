#include "mxconform/registry.h"

#include "avx2_backend.h"
#include "avx512_backend.h"
#include "oracle.h"
#include "scalar_backend.h"

namespace mxconform {
namespace {

const CpuFeatures& cpu_here() {
  static const CpuFeatures kHere = CpuFeatures::detect();
  return kHere;
}

}  // namespace

const std::vector<const Implementation*>& implementations() {
  // Oracle first, then the kernels from slowest to fastest (best_implementation_for relies on it).
  static const std::vector<const Implementation*> kAll = {
      &oracle::backend(),
      &impl::scalar_backend(),
      &impl::avx2_backend(),
      &impl::avx512_backend(),
  };
  return kAll;
}

const Implementation* find_implementation(std::string_view name) {
  for (const Implementation* impl : implementations()) {
    if (impl->name() == name) return impl;
  }
  return nullptr;
}

bool runnable_here(const Implementation& impl) { return cpu_here().covers(impl.required_features()); }

std::string not_runnable_reason(const Implementation& impl) {
  if (runnable_here(impl)) return "";
  return "this CPU lacks " + cpu_here().missing(impl.required_features()).describe();
}

const Implementation& best_implementation_for(const CpuFeatures& cpu) {
  const Implementation* best = &impl::scalar_backend();
  for (const Implementation* impl : implementations()) {
    if (impl != &oracle::backend() && cpu.covers(impl->required_features())) best = impl;  // later entries are faster
  }
  return *best;
}

const Implementation& best_implementation() { return best_implementation_for(cpu_here()); }

}  // namespace mxconform
