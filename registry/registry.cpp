#include "mxconform/registry.h"

#include "avx2_backend.h"
#include "avx512_backend.h"
#include "mxconform/error.h"
#include "oracle.h"
#include "scalar_backend.h"

namespace mxconform {
namespace {

const CpuFeatures& cpu_here() {
  static const CpuFeatures kHere = CpuFeatures::detect();
  return kHere;
}

}  // namespace

const std::vector<const Subject*>& built_in_subjects() {
  // Oracle first, then the kernels from slowest to fastest (best_implementation_for relies on it).
  static const std::vector<const Subject*> kAll = {
      &oracle::backend(),
      &impl::scalar_backend(),
      &impl::avx2_backend(),
      &impl::avx512_backend(),
  };
  return kAll;
}

const Subject* find_built_in(std::string_view name) {
  for (const Subject* impl : built_in_subjects()) {
    if (impl->name() == name) return impl;
  }
  return nullptr;
}

bool runnable_here(const Subject& impl) { return cpu_here().covers(impl.required_features()); }

std::string not_runnable_reason(const Subject& impl) {
  if (runnable_here(impl)) return "";
  return "this CPU lacks " + cpu_here().missing(impl.required_features()).describe();
}

void require_runnable_here(const Subject& impl) {
  if (runnable_here(impl)) return;
  throw Error("backend '" + std::string(impl.name()) + "' needs CPU features " + impl.required_features().to_string() +
              "; this CPU has " + CpuFeatures::detect().to_string());
}

const Subject& best_built_in_for(const CpuFeatures& cpu) {
  const Subject* best = &impl::scalar_backend();
  for (const Subject* impl : built_in_subjects()) {
    if (impl != &oracle::backend() && cpu.covers(impl->required_features())) best = impl;  // later entries are faster
  }
  return *best;
}

const Subject& best_built_in() { return best_built_in_for(cpu_here()); }

}  // namespace mxconform
