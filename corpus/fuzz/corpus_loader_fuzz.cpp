// libFuzzer target: the corpus loader and its two scalar syntaxes on arbitrary bytes. The only
// acceptable outcomes are cases that keep the loader's guarantees, or an mxconform::Error. A crash,
// a hang, another exception (uncaught: abort), a sanitizer report or unbounded memory is a bug.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "byte_syntax.h"
#include "corpus_loader.h"
#include "element_syntax.h"
#include "mxconform/error.h"

namespace {

using namespace mxconform;

constexpr std::size_t kByteSyntaxLimit = 4096;

// What load_corpus_text promises for every case it returns.
void check_guarantees(const corpus::CorpusCase& c) {
  const Geometry g = geometry(c.config);
  const bool ok = c.input.size() == c.config.partitions * c.config.free && c.data.size() == g.data_bytes &&
                  c.scale.size() == g.scale_bytes && c.input.size() <= corpus::kMaxElementsPerCase && !c.id.empty();
  if (!ok) __builtin_trap();
}

template <typename Parse>
void expect_value_or_error(Parse parse) {
  try {
    parse();
  } catch (const Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* bytes, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(bytes), size);
  expect_value_or_error([&] {
    for (const corpus::CorpusCase& c : corpus::load_corpus_text(text, "fuzz-input.yaml")) check_guarantees(c);
  });
  if (size <= corpus::kMaxElementTextLength + 1) {
    expect_value_or_error([&] { corpus::parse_element(text, InputDtype::kBfloat16); });
    expect_value_or_error([&] { corpus::parse_element(text, InputDtype::kFloat16); });
  }
  expect_value_or_error([&] {
    if (corpus::parse_expected_bytes(text, kByteSyntaxLimit).size() > kByteSyntaxLimit) __builtin_trap();
  });
  return 0;
}
