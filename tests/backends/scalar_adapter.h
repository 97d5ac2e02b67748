#pragma once
// The scalar implementation behind the backend ABI (include/mxconform/backend.h): the correct
// behaviour each test backend starts from before it adds its one deliberate fault.
#include <cstddef>
#include <cstdint>

#include "mxconform/backend.h"
#include "mxconform/quantize_config.h"

namespace mxconform::test_backends {

// One quantize call, as the ABI passes it.
struct QuantizeCall {
  const mxc_quantize_params* params;
  const std::uint16_t* input;
  std::uint8_t* data;
  std::size_t data_size;
  std::uint8_t* scale;
  std::size_t scale_size;
  char* message;
  std::size_t message_size;

  // P*F: the number of input elements.
  std::size_t elements() const;
  // fp32 bits of input element k (k < elements()), widened as docs/contract.md step 1.
  std::uint32_t widened(std::size_t k) const;
  // Whether input element k is a NaN, or a zero of either sign.
  bool is_nan(std::size_t k) const;
  bool is_zero(std::size_t k) const;
  // The 8x4 blocks, numbered row-major over the grid of blocks: how many there are, the block
  // that holds input element k, the input index of element i (0..31, row-major) of block b, and
  // block b's scale byte in the configured layout (physical: the row its slot names).
  std::size_t blocks() const;
  std::size_t block_of(std::size_t k) const;
  std::size_t block_element(std::size_t b, std::size_t i) const;
  std::uint8_t& block_scale(std::size_t b) const;
  // Writes `reason` to message (truncated to message_size) and returns MXC_STATUS_ERROR.
  int fail(const char* reason) const;
};

// The scalar implementation's quantize: MXC_STATUS_OK, or MXC_STATUS_ERROR with the reason when
// the parameters or the buffer sizes are invalid. Never throws.
int quantize_with_scalar(const QuantizeCall& call);

// Replaces the byte at `address` by its complement: a write that changes it whatever it held.
// The address may lie outside every buffer (that is the point of the test backends that use it).
void change_byte(volatile void* address);

// Whether this process's parent is an mxconform process (/proc/<ppid>/comm): the hostile test
// backends attack their parent only then, never a shell or a test runner that loaded them.
bool parent_is_mxconform();

// Dies of SIGSEGV: a write through a null pointer the compiler cannot see is null.
[[noreturn]] void null_write();

// Info declaring everything the scalar implementation supports, under `name`.
mxc_backend_info scalar_info(const char* name, const char* description);

// The planted multi-block faults (fifth_row_scale_slot, large_p_bug, ...): they declare one
// configuration, bfloat16 -> float8_e4m3fn, quantize it with the scalar and then `plant` changes
// the bytes. MXC_STATUS_UNSUPPORTED for what `info` does not declare.
mxc_backend_info bfloat16_e4m3fn_info(const char* name, const char* description);
int quantize_then_plant(const QuantizeCall& call, const mxc_backend_info& info, void (*plant)(const QuantizeCall&));
// One bit of a data or scale byte flipped: a wrong code, whatever the right one was.
inline constexpr std::uint8_t kFlip = 0b0'0000'001;

// The table a test backend's mxconform_backend_v1 returns: describe() gives `kInfo`, quantize()
// hands the call to `kQuantize`. Exceptions must not leave kQuantize (it is called from C).
// `kStructSize` is what the table claims as its struct_size (a bad backend may lie).
template <const mxc_backend_info& kInfo, int (*kQuantize)(const QuantizeCall&),
          std::uint32_t kStructSize = sizeof(mxc_backend)>
const mxc_backend* backend_table() {
  static const mxc_backend kBackend{
      kStructSize,
      []() { return &kInfo; },
      [](const mxc_quantize_params* params, const std::uint16_t* input, std::uint8_t* data, std::size_t data_size,
         std::uint8_t* scale, std::size_t scale_size, char* message, std::size_t message_size) {
        return kQuantize(QuantizeCall{params, input, data, data_size, scale, scale_size, message, message_size});
      }};
  return &kBackend;
}

}  // namespace mxconform::test_backends
