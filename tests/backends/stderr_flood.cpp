// A hostile test backend that floods stderr: each call writes 4 MiB to it, with terminal escape
// sequences (a title change, a screen clear) and bytes that are not UTF-8, then quantizes
// correctly.
#include <unistd.h>

#include <string>

#include "scalar_adapter.h"

namespace {
using mxconform::test_backends::QuantizeCall;

constexpr std::size_t kFloodBytes = std::size_t{4} << 20;
constexpr std::size_t kChunkBytes = std::size_t{64} << 10;
static_assert(kFloodBytes % kChunkBytes == 0);

const mxc_backend_info kInfo = mxconform::test_backends::scalar_info(
    "stderr_flood", "writes 4 MiB to stderr per call, with escape sequences and bytes 0xFF 0xFE");

std::string chunk() {
  const std::string line = "stderr_flood \x1b]0;pwned\x07 \x1b[2J \xff\xfe not UTF-8\n";
  std::string text;
  while (text.size() + line.size() <= kChunkBytes) text += line;
  text.resize(kChunkBytes, '.');
  return text;
}

int quantize(const QuantizeCall& call) {
  static const std::string kChunk = chunk();
  for (std::size_t written = 0; written < kFloodBytes; written += kChunk.size()) {
    if (::write(STDERR_FILENO, kChunk.data(), kChunk.size()) < 0) break;
  }
  return mxconform::test_backends::quantize_with_scalar(call);
}
}  // namespace

const mxc_backend* mxconform_backend_v1() {
  return mxconform::test_backends::backend_table<kInfo, quantize>();
}
