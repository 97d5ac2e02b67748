#pragma once
// The subject a test program is pointed at from outside: the environment variable
// MXCONFORM_SUBJECT names a built-in, a plug-in path or a cmd: command (open_subject), and the
// tests that take it run on it alone. ctest points the property suite at the example backend,
// and the property suite, the exhaustive element test and the streaming-store test at the
// avx512-simde plug-in.
#include <cstdlib>
#include <memory>

#include "mxconform/open_subject.h"

namespace mxconform::testing_support {

inline constexpr const char* kSubjectVariable = "MXCONFORM_SUBJECT";

// The subject MXCONFORM_SUBJECT names, opened once for the whole test program; null when it is
// unset or empty. A name that opens nothing throws, and fails every test that asks.
inline const Subject* subject_from_environment() {
  const char* spec = std::getenv(kSubjectVariable);
  if (spec == nullptr || *spec == '\0') return nullptr;
  static const std::shared_ptr<const Subject> kSubject = open_subject(spec);
  return kSubject.get();
}

}  // namespace mxconform::testing_support
