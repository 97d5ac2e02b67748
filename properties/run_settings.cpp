#include "run_settings.h"

#include <cstdlib>
#include <random>

#include "mxconform/error.h"
#include "oracle.h"

namespace mxconform::properties {
namespace {

constexpr int kNightlyFactor = 10;

std::string environment(const char* variable) {
  const char* value = std::getenv(variable);
  return value == nullptr ? std::string() : std::string(value);
}

}  // namespace

int RunSettings::cases(const Subject& subject, int gate_cases) const {
  const int for_subject = &subject == &oracle::backend() ? gate_cases * 2 / 5 : gate_cases;
  return level == Level::kNightly ? for_subject * kNightlyFactor : for_subject;
}

CaseSpace RunSettings::space(const Subject& subject, const std::vector<OutputDtype>& outputs) const {
  CaseSpace space;
  space.outputs = outputs;
  if (&subject == &oracle::backend()) {
    space.max_block_rows = 4;
    space.max_block_cols = 8;
  } else if (level == Level::kNightly) {
    space.max_block_rows = 32;
    space.max_block_cols = 160;
  }
  return space;
}

RunSettings settings_from_environment() {
  RunSettings settings;
  const std::string level = environment("MXCONFORM_PROPERTY_LEVEL");
  if (level == "nightly") {
    settings.level = Level::kNightly;
    settings.shrink_seconds = kNightlyShrinkSeconds;
  } else if (!level.empty() && level != "gate") {
    throw Error("MXCONFORM_PROPERTY_LEVEL='" + level + "': expected gate or nightly");
  }
  const std::string seed = environment("MXCONFORM_PROPERTY_SEED");
  if (seed == "random") {
    std::random_device device;
    settings.seed = (static_cast<std::uint64_t>(device()) << 32) | device();
    settings.random_seed = true;
  } else if (!seed.empty()) {
    char* end = nullptr;
    settings.seed = std::strtoull(seed.c_str(), &end, 10);
    if (end == seed.c_str() || *end != '\0') {
      throw Error("MXCONFORM_PROPERTY_SEED='" + seed + "': expected a decimal number or random");
    }
  }
  return settings;
}

std::string describe(const RunSettings& settings) {
  const bool fixed = settings.seed == kGateSeed && !settings.random_seed;
  return std::string("level ") + (settings.level == Level::kNightly ? "nightly" : "gate") + ", seed " +
         std::to_string(settings.seed) +
         (settings.random_seed ? " (random)"
          : fixed              ? " (fixed)"
                               : " (from MXCONFORM_PROPERTY_SEED)");
}

}  // namespace mxconform::properties
