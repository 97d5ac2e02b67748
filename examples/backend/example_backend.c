/* An example mxconform backend: the whole QuantizeMx contract in plain scalar C99.
 *
 * This is a template for backend authors. It implements every input dtype, every output dtype and
 * every knob of mxconform's contract (docs/contract.md, steps 1-7) as directly as possible, one block
 * of 8 partitions x 4 columns at a time. It favours being obviously right over being fast: replace
 * quantize_block() with your kernel and keep the rest. The step numbers below are docs/contract.md's.
 *
 * Build it without -ffast-math: the prescale (step 4) is one IEEE fp32 multiply with subnormals
 * kept, which flush-to-zero or denormals-are-zero modes would change.
 */
#include <mxconform/backend.h>

#include <stdio.h>
#include <string.h>

/* ---- fp32 fields ------------------------------------------------------------------------- */

#define FP32_MANTISSA_BITS 23
#define FP32_BIAS 127
#define FP32_SIGN_SHIFT 31
#define FP32_EXPONENT_FIELD_MAX 0xFFu                   /* Inf and NaN */
#define FP32_MANTISSA_MASK ((1u << FP32_MANTISSA_BITS) - 1)
#define FP32_MAGNITUDE_MASK ((1u << FP32_SIGN_SHIFT) - 1)
#define FP32_INF_BITS (FP32_EXPONENT_FIELD_MAX << FP32_MANTISSA_BITS)
/* The NaN an x86 SSE multiply returns for Inf * 0: sign set, quiet bit set, payload 0. */
#define FP32_X86_DEFAULT_NAN_BITS ((1u << FP32_SIGN_SHIFT) | FP32_INF_BITS | (1u << (FP32_MANTISSA_BITS - 1)))

/* bfloat16 is the top half of an fp32. */
#define BF16_SHIFT 16

/* float16 fields. */
#define F16_MANTISSA_BITS 10
#define F16_BIAS 15
#define F16_SIGN_SHIFT 15
#define F16_EXPONENT_FIELD_MAX 0x1Fu
#define F16_MANTISSA_MASK ((1u << F16_MANTISSA_BITS) - 1)

/* Block geometry (step 2) and the physical scale layout (step 7). */
#define BLOCK_ROWS 8
#define BLOCK_COLS 4
#define SCALE_SLOT_GROUP_ROWS 4
#define SCALE_SLOT_GROUP_STRIDE 32

/* FP4 packing (step 6): two nibbles per byte. */
#define FP4_NIBBLE_BITS 4

/* ---- Element formats ----------------------------------------------------------------------- */

/* What the all-ones patterns of a format mean. */
enum specials {
  FINITE_ONLY,    /* e2m1: every code is a number, no Inf, no NaN */
  FINITE_AND_NAN, /* e4m3fn: only the all-ones magnitude is NaN, no Inf */
  IEEE            /* e5m2: the all-ones exponent holds Inf and NaN */
};

/* An element format. Everything else (bias, largest finite code, EMAX) derives from these. */
struct element_format {
  int exponent_bits;
  int mantissa_bits;
  enum specials specials;
};

static const struct element_format kE2M1 = {2, 1, FINITE_ONLY};
static const struct element_format kE4M3FN = {4, 3, FINITE_AND_NAN};
static const struct element_format kE5M2 = {5, 2, IEEE};

static int format_bits(const struct element_format* f) { return 1 + f->exponent_bits + f->mantissa_bits; }
static int format_bias(const struct element_format* f) { return (1 << (f->exponent_bits - 1)) - 1; }
static uint32_t magnitude_mask(const struct element_format* f) { return (1u << (format_bits(f) - 1)) - 1; }

/* The positive code of the largest finite value: e2m1 0x7 (6), e4m3fn 0x7E (448), e5m2 0x7B (57344). */
static uint32_t max_code(const struct element_format* f) {
  switch (f->specials) {
    case FINITE_ONLY: return magnitude_mask(f);
    case FINITE_AND_NAN: return magnitude_mask(f) - 1;
    default: return (((1u << f->exponent_bits) - 1) << f->mantissa_bits) - 1;
  }
}

/* EMAX of step 3: the unbiased exponent of the largest finite value (e2m1 2, e4m3fn 8, e5m2 15). */
static int format_emax(const struct element_format* f) {
  return (int)(max_code(f) >> f->mantissa_bits) - format_bias(f);
}

/* The element format of an output dtype (the x4 dtypes write the bytes of their element dtype),
 * or NULL for an unknown id. */
static const struct element_format* element_format_of(uint32_t output_dtype) {
  switch (output_dtype) {
    case MXC_OUTPUT_FLOAT4_E2M1FN_X4: return &kE2M1;
    case MXC_OUTPUT_FLOAT8_E4M3FN:
    case MXC_OUTPUT_FLOAT8_E4M3FN_X4: return &kE4M3FN;
    case MXC_OUTPUT_FLOAT8_E5M2:
    case MXC_OUTPUT_FLOAT8_E5M2_X4: return &kE5M2;
    default: return NULL;
  }
}

static int is_fp4(uint32_t output_dtype) { return output_dtype == MXC_OUTPUT_FLOAT4_E2M1FN_X4; }

static float float_from_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

static uint32_t bits_from_float(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

/* ---- Steps 1-5: one element ---------------------------------------------------------------- */

/* Step 1: bfloat16 bits to fp32 bits, exactly. */
static uint32_t widen_bfloat16(uint16_t bits) { return (uint32_t)bits << BF16_SHIFT; }

/* Step 1: float16 bits to fp32 bits, exactly. Subnormals become fp32 normals; Inf and NaN keep
 * their sign and payload. */
static uint32_t widen_float16(uint16_t bits) {
  const uint32_t sign = (uint32_t)(bits >> F16_SIGN_SHIFT) << FP32_SIGN_SHIFT;
  const uint32_t field = (bits >> F16_MANTISSA_BITS) & F16_EXPONENT_FIELD_MAX;
  uint32_t mantissa = bits & F16_MANTISSA_MASK;
  const int mantissa_shift = FP32_MANTISSA_BITS - F16_MANTISSA_BITS;
  int exponent; /* unbiased */
  if (field == F16_EXPONENT_FIELD_MAX) return sign | FP32_INF_BITS | (mantissa << mantissa_shift);
  if (field == 0) {
    if (mantissa == 0) return sign;
    /* Subnormal: value = mantissa * 2^(1 - bias - 10). Shift the leading one up to the implicit
     * bit, lowering the exponent once per shift. */
    exponent = 1 - F16_BIAS;
    while ((mantissa & (1u << F16_MANTISSA_BITS)) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    mantissa &= F16_MANTISSA_MASK;
  } else {
    exponent = (int)field - F16_BIAS;
  }
  return sign | ((uint32_t)(exponent + FP32_BIAS) << FP32_MANTISSA_BITS) | (mantissa << mantissa_shift);
}

/* Step 2: the exponent field of an fp32. Sign ignored, zeros and denormals 0, Inf and NaN 255. */
static uint32_t exponent_field(uint32_t fp32_bits) {
  return (fp32_bits >> FP32_MANTISSA_BITS) & FP32_EXPONENT_FIELD_MAX;
}

/* Step 3: the block's E8M0 byte, max(1, max(0, max_field - emax_bias)). */
static uint32_t e8m0_of(uint32_t max_field, int emax_bias) {
  const int shifted = (int)max_field - emax_bias;
  return shifted < 1 ? 1u : (uint32_t)shifted;
}

/* Step 4: y = x * M with M = bit_cast<float>((254 - e8m0) << 23), one fp32 multiply, RNE,
 * subnormals kept. e8m0 = 254 (FP4 in EMAX-1 mode, a block with Inf or NaN) makes M = +0.0:
 * Inf * 0 is spelled out as the x86 default NaN, so that the result is the same on any CPU. */
static uint32_t prescale(uint32_t x_bits, uint32_t e8m0) {
  const uint32_t multiplier_bits = (2u * FP32_BIAS - e8m0) << FP32_MANTISSA_BITS;
  if (multiplier_bits == 0 && (x_bits & FP32_MAGNITUDE_MASK) == FP32_INF_BITS) return FP32_X86_DEFAULT_NAN_BITS;
  return bits_from_float(float_from_bits(x_bits) * float_from_bits(multiplier_bits));
}

/* Step 5: fp32 bits to the element code, round to nearest, ties to even, saturating.
 * NaN: signed zero for e2m1 (it has no NaN) and under MXC_FP8_NAN_ZERO, otherwise sign | all-ones
 * magnitude. Inf and finite overflow give the signed largest finite code. */
static uint32_t narrow(uint32_t y_bits, const struct element_format* f, uint32_t fp8_nan) {
  const uint32_t sign = (y_bits >> FP32_SIGN_SHIFT) << (format_bits(f) - 1);
  const uint32_t magnitude = y_bits & FP32_MAGNITUDE_MASK;
  const uint32_t largest = max_code(f);
  const int bias = format_bias(f);
  const int min_exponent = 1 - bias; /* of the smallest normal */
  uint32_t significand, units, dropped, half, code;
  int exponent, quantum_exponent, shift;

  if (magnitude > FP32_INF_BITS) {
    const int nan_code_exists = f->specials != FINITE_ONLY;
    return nan_code_exists && fp8_nan == MXC_FP8_NAN_CANONICAL ? sign | magnitude_mask(f) : sign;
  }
  if (magnitude == FP32_INF_BITS) return sign | largest;
  /* fp32 zeros and denormals are far below half the smallest element subnormal (2^-17). */
  if (exponent_field(magnitude) == 0) return sign;

  /* y = significand * 2^(exponent - 23), significand in [2^23, 2^24). */
  exponent = (int)exponent_field(magnitude) - FP32_BIAS;
  significand = (magnitude & FP32_MANTISSA_MASK) | (1u << FP32_MANTISSA_BITS);
  if (exponent > format_emax(f) + 1) return sign | largest; /* overflows whatever the rounding */

  /* The element grid's spacing at y is 2^quantum_exponent (the subnormal spacing below the
   * smallest normal). Count whole units of it, rounding the dropped bits to nearest even. */
  quantum_exponent = (exponent < min_exponent ? min_exponent : exponent) - f->mantissa_bits;
  shift = FP32_MANTISSA_BITS + quantum_exponent - exponent; /* >= 23 - mantissa_bits */
  if (shift > FP32_MANTISSA_BITS + 1) return sign;          /* y < half a unit: rounds to zero */
  units = significand >> shift;
  dropped = significand & ((1u << shift) - 1);
  half = 1u << (shift - 1);
  if (dropped > half || (dropped == half && (units & 1u) != 0)) ++units;

  /* units counts from the binade's start, implicit bit included, so adding it to the code of the
   * binade below lands on the right code; a rounding carry moves into the next binade by itself. */
  code = ((uint32_t)(quantum_exponent + f->mantissa_bits + bias - 1) << f->mantissa_bits) + units;
  return sign | (code > largest ? largest : code);
}

/* ---- Steps 6-7: where codes and scales go -------------------------------------------------- */

/* Step 6: the FP4 nibble position of flattened element k for lane stride s >= 1. */
static uint64_t lane_remap(uint64_t k, uint64_t stride) {
  const uint64_t window = 2 * stride;
  uint64_t position = window * (k / window + 1) - k % window;
  if (k % 2 == 0) position -= 2;
  return position;
}

/* Step 7: the physical row of logical scale row i. */
static uint64_t scale_slot(uint64_t i) {
  return i % SCALE_SLOT_GROUP_ROWS + SCALE_SLOT_GROUP_STRIDE * (i / SCALE_SLOT_GROUP_ROWS);
}

/* Step 6: stores the code of flattened element k. FP8: one byte per element. FP4: a nibble at
 * position r (lane_remap(k) or k), HIGH when (r & 1) == parity; the data bytes start zeroed. */
static void store_code(const struct mxc_quantize_params* params, uint64_t k, uint32_t code, uint8_t* data) {
  uint64_t r;
  if (!is_fp4(params->output_dtype)) {
    data[k] = (uint8_t)code;
    return;
  }
  r = params->fp4_lane_stride != 0 ? lane_remap(k, params->fp4_lane_stride) : k;
  data[r / 2] |= (uint8_t)((r % 2) == params->fp4_high_parity ? code << FP4_NIBBLE_BITS : code);
}

/* Steps 1-6 for block (group, column) and its E8M0 byte, which it returns. */
static uint32_t quantize_block(const struct mxc_quantize_params* params, const uint16_t* input,
                               uint64_t group, uint64_t column, uint8_t* data) {
  const struct element_format* f = element_format_of(params->output_dtype);
  const int emax_bias = format_emax(f) - (params->emax_mode == MXC_EMAX_MINUS_1 ? 1 : 0);
  const uint64_t free = params->free;
  uint32_t widened[BLOCK_ROWS][BLOCK_COLS];
  uint32_t max_field = 0, e8m0;
  uint64_t r, c;

  for (r = 0; r < BLOCK_ROWS; ++r) {
    for (c = 0; c < BLOCK_COLS; ++c) {
      const uint64_t k = (group * BLOCK_ROWS + r) * free + column * BLOCK_COLS + c;
      widened[r][c] = params->input_dtype == MXC_INPUT_BFLOAT16 ? widen_bfloat16(input[k]) : widen_float16(input[k]);
      if (exponent_field(widened[r][c]) > max_field) max_field = exponent_field(widened[r][c]);
    }
  }
  e8m0 = e8m0_of(max_field, emax_bias);
  for (r = 0; r < BLOCK_ROWS; ++r) {
    for (c = 0; c < BLOCK_COLS; ++c) {
      const uint64_t k = (group * BLOCK_ROWS + r) * free + column * BLOCK_COLS + c;
      store_code(params, k, narrow(prescale(widened[r][c], e8m0), f, params->fp8_nan), data);
    }
  }
  return e8m0;
}

/* ---- The ABI ------------------------------------------------------------------------------- */

/* What this backend supports: everything. mxconform certifies exactly what is declared here. */
static const struct mxc_backend_info kInfo = {
    .struct_size = sizeof(struct mxc_backend_info),
    .abi_version = MXCONFORM_BACKEND_ABI_VERSION,
    .name = "example",
    .version = "1.0.0",
    .description = "scalar C99 template: every dtype and knob, one 8x4 block at a time",
    .input_dtypes = (1u << MXC_INPUT_BFLOAT16) | (1u << MXC_INPUT_FLOAT16),
    .output_dtypes = (1u << MXC_OUTPUT_FLOAT4_E2M1FN_X4) | (1u << MXC_OUTPUT_FLOAT8_E4M3FN) |
                     (1u << MXC_OUTPUT_FLOAT8_E5M2) | (1u << MXC_OUTPUT_FLOAT8_E4M3FN_X4) |
                     (1u << MXC_OUTPUT_FLOAT8_E5M2_X4),
    .emax_modes = (1u << MXC_EMAX) | (1u << MXC_EMAX_MINUS_1),
    .fp8_nan_policies = (1u << MXC_FP8_NAN_CANONICAL) | (1u << MXC_FP8_NAN_ZERO),
    .scale_layouts = (1u << MXC_SCALE_PHYSICAL) | (1u << MXC_SCALE_LOGICAL),
    .fp4_high_parities = (1u << 0) | (1u << 1),
    .fp4_lane_strides = ~(uint64_t)0, /* bit s: stride s; bit 63: every stride >= 63 */
};

static const struct mxc_backend_info* describe(void) { return &kInfo; }

static int fail(char* message, size_t message_size, const char* reason) {
  if (message != NULL && message_size > 0) snprintf(message, message_size, "%s", reason);
  return MXC_STATUS_ERROR;
}

static int quantize(const struct mxc_quantize_params* params, const uint16_t* input, uint8_t* data,
                    size_t data_size, uint8_t* scale, size_t scale_size, char* message, size_t message_size) {
  uint64_t partitions, free, groups, columns, scale_rows, g, c;
  const struct element_format* f;

  /* Refuse what this backend does not know; mxconform never passes it for a declared config. */
  if (params->struct_size < sizeof *params) return fail(message, message_size, "mxc_quantize_params too small");
  f = element_format_of(params->output_dtype);
  if (f == NULL || params->input_dtype > MXC_INPUT_FLOAT16 || params->emax_mode > MXC_EMAX_MINUS_1 ||
      params->fp8_nan > MXC_FP8_NAN_ZERO || params->scale_layout > MXC_SCALE_LOGICAL ||
      params->fp4_high_parity > 1) {
    return MXC_STATUS_UNSUPPORTED;
  }
  partitions = params->partitions;
  free = params->free;
  if (partitions == 0 || free == 0 || partitions % BLOCK_ROWS != 0 || free % BLOCK_COLS != 0) {
    return fail(message, message_size, "P must be a positive multiple of 8 and F of 4");
  }
  if (is_fp4(params->output_dtype) && params->fp4_lane_stride != 0 &&
      (partitions * free) % (2 * (uint64_t)params->fp4_lane_stride) != 0) {
    return fail(message, message_size, "FP4 lane stride s needs (P*F) % (2s) == 0");
  }
  groups = partitions / BLOCK_ROWS;
  columns = free / BLOCK_COLS;
  scale_rows = params->scale_layout == MXC_SCALE_PHYSICAL ? scale_slot(groups - 1) + 1 : groups;
  if (data_size != (is_fp4(params->output_dtype) ? partitions * free / 2 : partitions * free) ||
      scale_size != scale_rows * columns) {
    return fail(message, message_size, "data or scale buffer size does not match P, F and the dtype");
  }

  if (is_fp4(params->output_dtype)) memset(data, 0, data_size); /* store_code ORs nibbles in */
  for (g = 0; g < groups; ++g) {
    /* Step 7: logical scale row g, at its slot in the physical layout. Other rows stay untouched. */
    const uint64_t scale_row = params->scale_layout == MXC_SCALE_PHYSICAL ? scale_slot(g) : g;
    for (c = 0; c < columns; ++c) scale[scale_row * columns + c] = (uint8_t)quantize_block(params, input, g, c, data);
  }
  return MXC_STATUS_OK;
}

const struct mxc_backend* mxconform_backend_v1(void) {
  static const struct mxc_backend kBackend = {sizeof(struct mxc_backend), describe, quantize};
  return &kBackend;
}
