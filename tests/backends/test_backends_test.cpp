// The test backends (tests/backends/CMakeLists.txt) misbehave exactly as their names say and are
// right otherwise, so that a certify test that expects an outcome from one of them is testing
// certify, not the backend. Faults that kill the process run as death tests behind guard pages
// and read-only mappings, the way the isolation runner sees them.
#include <dlfcn.h>
#include <sys/mman.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mxconform/backend.h"
#include "mxconform/backend_params.h"
#include "mxconform/registry.h"
#include "mxconform/scale_layout.h"
#include "scalar_adapter.h"
#include "test_backends.h"

namespace mxconform {
namespace {


// A shared library opened with dlopen, closed on destruction.
class Library {
 public:
  explicit Library(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) ADD_FAILURE() << "dlopen " << path << ": " << dlerror();
  }
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  void* symbol(const char* name) const { return handle_ == nullptr ? nullptr : dlsym(handle_, name); }
  // The backend table. Throws (failing the test) when the library lacks the entry point.
  const mxc_backend& backend() const {
    const auto entry = reinterpret_cast<mxc_backend_entry>(symbol(MXCONFORM_BACKEND_SYMBOL));
    if (entry == nullptr) throw std::runtime_error("no " MXCONFORM_BACKEND_SYMBOL " in the library");
    return *entry();
  }

 private:
  void* handle_;
};

// Pages of memory with a PROT_NONE page on either side; the usable span is a page multiple, so a
// byte just before or just after it faults.
class GuardedPages {
 public:
  explicit GuardedPages(std::size_t bytes, int protection = PROT_READ | PROT_WRITE)
      : page_(static_cast<std::size_t>(sysconf(_SC_PAGESIZE))),
        span_((bytes + page_ - 1) / page_ * page_),
        base_(static_cast<std::uint8_t*>(mmap(nullptr, span_ + 2 * page_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))) {
    EXPECT_NE(base_, MAP_FAILED);
    EXPECT_EQ(mprotect(base_ + page_, span_, protection), 0);
  }
  ~GuardedPages() { munmap(base_, span_ + 2 * page_); }
  GuardedPages(const GuardedPages&) = delete;
  GuardedPages& operator=(const GuardedPages&) = delete;

  std::uint8_t* begin() const { return base_ + page_; }
  void protect(int protection) const { EXPECT_EQ(mprotect(begin(), span_, protection), 0); }

 private:
  std::size_t page_;
  std::size_t span_;
  std::uint8_t* base_;
};

// The outputs of one call; unnamed physical scale rows start (and should stay) zero.
struct Outputs {
  int status = MXC_STATUS_OK;
  std::vector<std::uint8_t> data;
  std::vector<std::uint8_t> scale;
  std::string message;
};

Outputs run_backend(const mxc_backend& backend, const QuantizeConfig& config, const std::vector<std::uint16_t>& input) {
  const Geometry g = geometry(config);
  const mxc_quantize_params params = params_from_config(config);
  Outputs outputs;
  outputs.data.assign(g.data_bytes, 0);
  outputs.scale.assign(g.scale_bytes, 0);
  char message[256] = {};
  outputs.status = backend.quantize(&params, input.data(), outputs.data.data(), outputs.data.size(),
                                    outputs.scale.data(), outputs.scale.size(), message, sizeof message);
  outputs.message = message;
  return outputs;
}

Outputs run_scalar(const QuantizeConfig& config, const std::vector<std::uint16_t>& input) {
  const Geometry g = geometry(config);
  Outputs outputs;
  outputs.data.assign(g.data_bytes, 0);
  outputs.scale.assign(g.scale_bytes, 0);
  find_built_in("scalar")->quantize(config, input.data(), outputs.data.data(), outputs.scale.data());
  return outputs;
}

// Random bits with finite magnitudes clustered per tensor, so that most blocks are ordinary.
std::vector<std::uint16_t> ordinary_input(std::size_t count, std::uint32_t seed) {
  std::mt19937 random(seed);
  constexpr std::uint16_t kOne = 0x3F80;  // bfloat16 1.0; float16 reads it as a finite number too
  std::vector<std::uint16_t> input(count);
  for (std::uint16_t& element : input) element = static_cast<std::uint16_t>(kOne ^ (random() & 0x80FF));
  return input;
}

QuantizeConfig config_of(OutputDtype output, std::size_t partitions, std::size_t free) {
  QuantizeConfig config;
  config.output = output;
  config.partitions = partitions;
  config.free = free;
  return config;
}

void expect_same(const Outputs& expected, const Outputs& actual, const std::string& what) {
  EXPECT_EQ(actual.status, MXC_STATUS_OK) << what << ": " << actual.message;
  EXPECT_EQ(actual.data, expected.data) << what;
  EXPECT_EQ(actual.scale, expected.scale) << what;
}

TEST(CorrectTestBackends, AgreeWithScalarOnEveryDeclaredDtypeAndKnob) {
  for (const char* path : {MXCONFORM_TEST_BACKEND_SCALAR_VIA_ABI, MXCONFORM_TEST_BACKEND_FP8_ONLY,
                           MXCONFORM_TEST_BACKEND_EXAMPLE}) {
    const Library library(path);
    const mxc_backend& backend = library.backend();
    const mxc_backend_info& info = *backend.describe();
    EXPECT_EQ(info.abi_version, static_cast<std::uint32_t>(MXCONFORM_BACKEND_ABI_VERSION)) << path;
    std::uint32_t seed = 1;
    for (const OutputDtypeInfo& dtype : output_dtypes()) {
      if ((info.output_dtypes >> static_cast<int>(dtype.id) & 1u) == 0) continue;
      for (const InputDtype input_dtype : {InputDtype::kBfloat16, InputDtype::kFloat16}) {
        for (const ScaleLayout layout : {ScaleLayout::kPhysical, ScaleLayout::kLogical}) {
          QuantizeConfig config = config_of(dtype.id, 48, 16);
          config.input = input_dtype;
          config.scale_layout = layout;
          config.emax_mode = seed % 2 == 0 ? EmaxMode::kEmax : EmaxMode::kEmaxMinus1;
          config.fp4_lane_stride = seed % 3;
          const std::vector<std::uint16_t> input = ordinary_input(config.partitions * config.free, seed++);
          expect_same(run_scalar(config, input), run_backend(backend, config, input), path + (" " + describe(config)));
        }
      }
    }
  }
}

TEST(Fp8Only, DeclaresTheFp8DtypesAndReturnsUnsupportedForFp4) {
  const Library library(MXCONFORM_TEST_BACKEND_FP8_ONLY);
  const mxc_backend& backend = library.backend();
  EXPECT_EQ(backend.describe()->output_dtypes, 1u << 5 | 1u << 7 | 1u << 8 | 1u << 9);
  const QuantizeConfig config = config_of(OutputDtype::kFloat4E2m1fnX4, 8, 8);
  EXPECT_EQ(run_backend(backend, config, ordinary_input(64, 1)).status, MXC_STATUS_UNSUPPORTED);
}

TEST(WrongAbiVersion, DeclaresVersion99) {
  const Library library(MXCONFORM_TEST_BACKEND_WRONG_ABI_VERSION);
  EXPECT_EQ(library.backend().describe()->abi_version, 99u);
}

TEST(NotABackend, LoadsButLacksTheEntryPoint) {
  const Library library(MXCONFORM_TEST_BACKEND_NOT_A_BACKEND);
  EXPECT_NE(library.symbol("mxconform_not_a_backend"), nullptr);
  EXPECT_EQ(library.symbol(MXCONFORM_BACKEND_SYMBOL), nullptr);
}

TEST(ErrorStatus, RefusesFloat16WithAMessageAndQuantizesBfloat16) {
  const Library library(MXCONFORM_TEST_BACKEND_ERROR_STATUS);
  const mxc_backend& backend = library.backend();
  QuantizeConfig config = config_of(OutputDtype::kFloat8E5m2, 8, 8);
  const std::vector<std::uint16_t> input = ordinary_input(64, 2);
  expect_same(run_scalar(config, input), run_backend(backend, config, input), "bfloat16");
  config.input = InputDtype::kFloat16;
  const Outputs refused = run_backend(backend, config, input);
  EXPECT_EQ(refused.status, MXC_STATUS_ERROR);
  EXPECT_NE(refused.message.find("float16"), std::string::npos) << refused.message;
}

TEST(WrongRounding, OnlyThePositiveE4m3TieAt1_0625GoesAwayFromZero) {
  const Library library(MXCONFORM_TEST_BACKEND_WRONG_ROUNDING);
  const mxc_backend& backend = library.backend();
  // One block: 256 (fp32 field 135) makes e8m0 = 135 - 8 = 127 and M = 1, so every element is
  // prescaled to itself. Ties: +-1.0625 (0x3F88); non-ties: 1.0, 1.125, 3.0.
  constexpr std::uint16_t kAnchor = 0x4380, kTie = 0x3F88, kNegativeTie = 0xBF88;
  std::vector<std::uint16_t> input = {kAnchor, kTie, kNegativeTie, 0x3F80, 0x3F90, 0x4040};
  input.resize(32, kTie);
  for (const OutputDtype output : {OutputDtype::kFloat8E4m3fn, OutputDtype::kFloat8E4m3fnX4}) {
    const QuantizeConfig config = config_of(output, 8, 4);
    const Outputs expected = run_scalar(config, input);
    const Outputs actual = run_backend(backend, config, input);
    EXPECT_EQ(actual.scale, expected.scale);
    for (std::size_t k = 0; k < input.size(); ++k) {
      const bool positive_tie = input[k] == kTie;
      if (positive_tie) {
        EXPECT_EQ(expected.data[k], 0x38) << k;  // 1.0: the even neighbour
      }
      EXPECT_EQ(actual.data[k], positive_tie ? 0x39 : expected.data[k]) << k;
    }
  }
  for (const OutputDtype output : {OutputDtype::kFloat8E5m2, OutputDtype::kFloat4E2m1fnX4}) {
    const QuantizeConfig config = config_of(output, 8, 4);
    expect_same(run_scalar(config, input), run_backend(backend, config, input), describe(config));
  }
}

TEST(CrashOnNan, DiesOfSigsegvOnNanOnly) {
  const Library library(MXCONFORM_TEST_BACKEND_CRASH_ON_NAN);
  const mxc_backend& backend = library.backend();
  const QuantizeConfig config = config_of(OutputDtype::kFloat8E4m3fn, 8, 8);
  std::vector<std::uint16_t> input = ordinary_input(64, 3);
  expect_same(run_scalar(config, input), run_backend(backend, config, input), "no NaN");
  input[17] = 0xFFC1;  // a negative bfloat16 NaN
  EXPECT_EXIT(run_backend(backend, config, input), testing::KilledBySignal(SIGSEGV), "");
}

TEST(HangOnZeroBlock, SpinsOnAnAllZeroBlockOnly) {
  const Library library(MXCONFORM_TEST_BACKEND_HANG_ON_ZERO_BLOCK);
  const mxc_backend& backend = library.backend();
  const QuantizeConfig config = config_of(OutputDtype::kFloat8E5m2, 16, 8);
  std::vector<std::uint16_t> input = ordinary_input(128, 4);
  input[8 * 8 + 4] = 0x8000;  // one -0 alone does not make a zero block
  expect_same(run_scalar(config, input), run_backend(backend, config, input), "no zero block");
  for (std::size_t row = 8; row < 16; ++row) {
    for (std::size_t col = 4; col < 8; ++col) input[row * 8 + col] = row % 2 == 0 ? 0x0000 : 0x8000;
  }
  EXPECT_EXIT(
      {
        alarm(2);
        run_backend(backend, config, input);
      },
      testing::KilledBySignal(SIGALRM), "");
}

// A run between guard pages: its configuration and input, what the backend returned, and the
// input's bytes as the backend left them.
struct GuardedRun {
  QuantizeConfig config;
  std::vector<std::uint16_t> input;
  Outputs outputs;
  std::vector<std::uint8_t> input_after;
};

// Runs `backend` on 64x64 e4m3fn (4096 bytes of data, a page multiple) with every buffer
// between guard pages and the input read-only.
GuardedRun run_guarded(const mxc_backend& backend) {
  GuardedRun run{config_of(OutputDtype::kFloat8E4m3fn, 64, 64), {}, {}, {}};
  const Geometry g = geometry(run.config);
  run.input = ordinary_input(run.config.partitions * run.config.free, 5);
  const std::size_t input_bytes = run.input.size() * sizeof run.input[0];
  const GuardedPages input(input_bytes);
  std::memcpy(input.begin(), run.input.data(), input_bytes);
  input.protect(PROT_READ);
  const GuardedPages data(g.data_bytes);
  const GuardedPages scale(g.scale_bytes);
  const mxc_quantize_params params = params_from_config(run.config);
  char message[256] = {};
  run.outputs.status = backend.quantize(&params, reinterpret_cast<const std::uint16_t*>(input.begin()), data.begin(),
                                        g.data_bytes, scale.begin(), g.scale_bytes, message, sizeof message);
  run.outputs.message = message;
  run.outputs.data.assign(data.begin(), data.begin() + g.data_bytes);
  run.outputs.scale.assign(scale.begin(), scale.begin() + g.scale_bytes);
  run.input_after.assign(input.begin(), input.begin() + input_bytes);
  return run;
}

TEST(GuardedBuffers, TheCorrectBackendRunsBetweenGuardPages) {
  const Library library(MXCONFORM_TEST_BACKEND_SCALAR_VIA_ABI);
  static_assert(64 * 64 % 4096 == 0);
  run_guarded(library.backend());
}

TEST(WriteOutsideBuffers, EachFaultsOnItsGuardPageOrTheReadOnlyInput) {
  for (const char* path : {MXCONFORM_TEST_BACKEND_WRITE_PAST_DATA, MXCONFORM_TEST_BACKEND_WRITE_BEFORE_DATA,
                           MXCONFORM_TEST_BACKEND_WRITE_INTO_INPUT}) {
    const Library library(path);
    const mxc_backend& backend = library.backend();
    EXPECT_EXIT(run_guarded(backend), testing::KilledBySignal(SIGSEGV), "") << path;
  }
}

TEST(WriteUnnamedScaleRow, ChangesRow4OnlyWhenThereAreMoreThan4Groups) {
  const Library library(MXCONFORM_TEST_BACKEND_WRITE_UNNAMED_SCALE_ROW);
  const mxc_backend& backend = library.backend();
  for (const std::size_t partitions : {32, 40}) {
    const QuantizeConfig config = config_of(OutputDtype::kFloat8E4m3fn, partitions, 8);
    const std::vector<std::uint16_t> input = ordinary_input(partitions * 8, 6);
    Outputs expected = run_scalar(config, input);
    const Outputs actual = run_backend(backend, config, input);
    if (partitions / kBlockRows > kScaleSlotGroupRows) {
      const std::size_t unnamed_row = scale_slot(kScaleSlotGroupRows - 1) + 1;
      expected.scale[unnamed_row * config.free / kBlockCols] = 0xFF;  // the complement of the 0 there
    }
    expect_same(expected, actual, describe(config));
  }
}

// ---- The hostile backends whose acts show in the bytes (the others act on processes and streams;
// tests/certify_hostile_test.cpp runs them under mxconform). ----

TEST(MprotectInputWrite, MakesTheReadOnlyInputWritableAndChangesInput0) {
  const Library library(MXCONFORM_TEST_BACKEND_MPROTECT_INPUT_WRITE);
  const GuardedRun run = run_guarded(library.backend());
  expect_same(run_scalar(run.config, run.input), run.outputs, describe(run.config));
  std::vector<std::uint8_t> changed(run.input_after.size());
  std::memcpy(changed.data(), run.input.data(), changed.size());
  changed[0] = static_cast<std::uint8_t>(~changed[0]);
  EXPECT_EQ(run.input_after, changed);
}

TEST(ZeroUnnamedScaleRows, ZeroesEveryUnnamedRowOnlyWhenThereAreMoreThan4Groups) {
  const Library library(MXCONFORM_TEST_BACKEND_ZERO_UNNAMED_SCALE_ROWS);
  constexpr std::uint8_t kFill = 0xEE;
  for (const std::size_t partitions : {32, 40}) {
    const QuantizeConfig config = config_of(OutputDtype::kFloat8E4m3fn, partitions, 8);
    const Geometry g = geometry(config);
    const std::vector<std::uint16_t> input = ordinary_input(partitions * 8, 8);
    const mxc_quantize_params params = params_from_config(config);
    std::vector<std::uint8_t> data(g.data_bytes), scale(g.scale_bytes, kFill);
    char message[256] = {};
    ASSERT_EQ(library.backend().quantize(&params, input.data(), data.data(), data.size(), scale.data(), scale.size(),
                                         message, sizeof message),
              MXC_STATUS_OK);
    const Outputs expected = run_scalar(config, input);
    EXPECT_EQ(data, expected.data);
    const std::vector<bool> named = named_scale_rows(config);
    for (std::size_t i = 0; i < scale.size(); ++i) {
      const bool unnamed = !named[i / g.block_cols];
      const std::uint8_t wanted = !unnamed ? expected.scale[i] : g.block_rows > kScaleSlotGroupRows ? 0x00 : kFill;
      EXPECT_EQ(scale[i], wanted) << "P=" << partitions << " scale byte " << i;
    }
  }
}

TEST(ZeroNanBlockBug, DeclaresBfloat16ToE4m3fnAndGetsOnlyZerosPlusOneNanWrong) {
  const Library library(MXCONFORM_TEST_BACKEND_ZERO_NAN_BLOCK_BUG);
  const mxc_backend& backend = library.backend();
  EXPECT_EQ(backend.describe()->input_dtypes, 1u << MXC_INPUT_BFLOAT16);
  EXPECT_EQ(backend.describe()->output_dtypes, 1u << MXC_OUTPUT_FLOAT8_E4M3FN);
  // Two block columns: block 0 is the case under test, block 1 ordinary.
  const QuantizeConfig config = config_of(OutputDtype::kFloat8E4m3fn, 8, 8);
  constexpr std::uint16_t kNan = 0x7FC1, kNegativeZero = 0x8000;
  std::vector<std::uint16_t> input = ordinary_input(64, 9);
  for (std::size_t row = 0; row < 8; ++row) {
    for (std::size_t col = 0; col < 4; ++col) input[row * 8 + col] = row % 2 == 0 ? 0 : kNegativeZero;
  }
  expect_same(run_scalar(config, input), run_backend(backend, config, input), "all-zero block");
  input[3 * 8 + 2] = kNan;
  Outputs expected = run_scalar(config, input);
  ASSERT_NE(expected.scale[0], 0x02);
  expected.scale[0] = 0x02;
  expect_same(expected, run_backend(backend, config, input), "zeros and one NaN");
  input[5 * 8 + 1] = kNan;
  expect_same(run_scalar(config, input), run_backend(backend, config, input), "zeros and two NaNs");
  QuantizeConfig float16 = config;
  float16.input = InputDtype::kFloat16;
  EXPECT_EQ(run_backend(backend, float16, input).status, MXC_STATUS_UNSUPPORTED);
}

TEST(FlakyEvery50th, ChangesData0OnEvery50thCallOnly) {
  const Library library(MXCONFORM_TEST_BACKEND_FLAKY_EVERY_50TH);
  const QuantizeConfig config = config_of(OutputDtype::kFloat8E5m2, 8, 4);
  const std::vector<std::uint16_t> input = ordinary_input(32, 10);
  const Outputs expected = run_scalar(config, input);
  for (int call = 1; call <= 100; ++call) {
    const Outputs actual = run_backend(library.backend(), config, input);
    EXPECT_EQ(actual.data == expected.data, call % 50 != 0) << "call " << call;
  }
}

TEST(BadMessage, RefusesFloat16WithTheHostileBytes) {
  const Library library(MXCONFORM_TEST_BACKEND_BAD_MESSAGE);
  QuantizeConfig config = config_of(OutputDtype::kFloat8E5m2, 8, 8);
  config.input = InputDtype::kFloat16;
  const Outputs refused = run_backend(library.backend(), config, ordinary_input(64, 11));
  EXPECT_EQ(refused.status, MXC_STATUS_ERROR);
  EXPECT_EQ(refused.message, "\xff\xfe\x1b]0;pwned\x07 <&\"]]>");
}

TEST(BadDescriptions, EachLiesInItsOneField) {
  const Library info_size(MXCONFORM_TEST_BACKEND_BAD_STRUCT_SIZE_INFO);
  EXPECT_EQ(info_size.backend().describe()->struct_size, 4u);
  const Library table_size(MXCONFORM_TEST_BACKEND_BAD_STRUCT_SIZE_TABLE);
  EXPECT_EQ(table_size.backend().struct_size, 0u);
  EXPECT_EQ(table_size.backend().describe()->struct_size, sizeof(mxc_backend_info));
  const Library output_mask(MXCONFORM_TEST_BACKEND_BAD_MASK_BITS);
  EXPECT_NE(output_mask.backend().describe()->output_dtypes & 1u << 3, 0u);
  const Library emax_mask(MXCONFORM_TEST_BACKEND_BAD_EMAX_MASK_BITS);
  EXPECT_NE(emax_mask.backend().describe()->emax_modes & 1u << 5, 0u);
}

TEST(ConstructorCrash, DiesOfSigsegvWhileLoaded) {
  EXPECT_EXIT(dlopen(MXCONFORM_TEST_BACKEND_CONSTRUCTOR_CRASH, RTLD_NOW | RTLD_LOCAL), testing::KilledBySignal(SIGSEGV), "");
}

}  // namespace
}  // namespace mxconform
