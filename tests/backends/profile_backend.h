/* A profile implemented from its definition (docs/contract.md, "Profiles"), in plain C with float
 * and double arithmetic, independently of mxconform's oracle: the test plug-ins profile_*.c each
 * fill a `struct profile_rules` and export it through PROFILE_BACKEND(). They declare exactly one
 * profile, its block shapes, FP8 (and FP4 when the profile has it), both input dtypes, the logical
 * scale layout (and physical for 8 x 4). */
#ifndef MXCONFORM_TEST_PROFILE_BACKEND_H_
#define MXCONFORM_TEST_PROFILE_BACKEND_H_

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "mxconform/backend.h"

enum scale_rule { RULE_FLOOR, RULE_CEIL, RULE_EVEN, RULE_RCEIL, RULE_RCEIL_SATFINITE, RULE_LOG2_FLOOR, RULE_GOLDEN, RULE_GOLDEN_KERNEL,
                  RULE_NEURON };
enum tie_rule { TIES_EVEN, TIES_AWAY };

struct profile_rules {
  const char* name;
  uint32_t profile;      /* enum mxc_profile */
  uint32_t block_shapes; /* mask of enum mxc_block_shape */
  int fp4;               /* FP4 is part of the profile */
  enum scale_rule rule;
  enum tie_rule ties;
  int block_nan;         /* NaN or Inf in a block: scale 0xFF, every element NaN */
  int drop_nan;          /* amax ignores NaN; Inf amax gives 0xFE (TransformerEngine) */
  int emax_minus_1_only; /* the profile has only the EMAX-1 mode */
};

struct element_format { int ebits, mbits, bias; double max; int has_nan; uint32_t max_code; };

static struct element_format format_of(uint32_t output) {
  struct element_format f;
  if (output == MXC_OUTPUT_FLOAT4_E2M1FN_X4) { f.ebits = 2; f.mbits = 1; f.bias = 1; f.max = 6.0; f.has_nan = 0; f.max_code = 0x7; }
  else if (output == MXC_OUTPUT_FLOAT8_E5M2 || output == MXC_OUTPUT_FLOAT8_E5M2_X4) {
    f.ebits = 5; f.mbits = 2; f.bias = 15; f.max = 57344.0; f.has_nan = 1; f.max_code = 0x7B;
  } else { f.ebits = 4; f.mbits = 3; f.bias = 7; f.max = 448.0; f.has_nan = 1; f.max_code = 0x7E; }
  return f;
}

static int emax_of(const struct element_format* f) { return ilogb(f->max); /* 6 -> 2, 448 -> 8, 57344 -> 15 */ }

static double widen(uint16_t bits, uint32_t input_dtype) {
  if (input_dtype == MXC_INPUT_BFLOAT16) {
    uint32_t wide = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &wide, sizeof f);
    return f;
  }
  { /* float16 */
    const int sign = bits >> 15, exponent = (bits >> 10) & 0x1F, mantissa = bits & 0x3FF;
    double v;
    if (exponent == 0x1F) v = mantissa ? NAN : INFINITY;
    else if (exponent == 0) v = ldexp(mantissa, -24);
    else v = ldexp(1024 + mantissa, exponent - 25);
    return sign ? -v : v;
  }
}

static uint32_t float_bits(float f) { uint32_t b; memcpy(&b, &f, sizeof b); return b; }

/* The nearest code to |y| (y finite, not NaN) with the tie rule, saturating; sign from y. */
static uint32_t encode(double y, const struct element_format* f, enum tie_rule ties) {
  const uint32_t sign = signbit(y) ? 1u << (f->ebits + f->mbits) : 0u;
  double a = fabs(y);
  int e, n_top = 1 << (f->mbits + 1);
  double quantum, q, n, r;
  uint32_t code;
  if (a >= f->max) return sign | f->max_code;
  if (a == 0) return sign;
  e = ilogb(a);
  if (e < 1 - f->bias) e = 1 - f->bias;
  quantum = ldexp(1.0, e - f->mbits);
  q = a / quantum;
  n = floor(q);
  r = q - n;
  if (r > 0.5 || (r == 0.5 && (ties == TIES_AWAY || fmod(n, 2.0) == 1.0))) n += 1;
  if (n * quantum > f->max) return sign | f->max_code;
  if ((int)n == n_top) { e += 1; n = n_top / 2; }
  if ((int)n < (1 << f->mbits)) code = (uint32_t)n; /* subnormal (or zero) */
  else code = ((uint32_t)(e + f->bias) << f->mbits) | ((uint32_t)n - (1u << f->mbits));
  return sign | code;
}

static uint32_t nan_code(const struct element_format* f) {
  return f->has_nan ? (1u << (f->ebits + f->mbits)) - 1u : 0u;
}

static int rceil(float d, int satfinite) {
  const uint32_t b = float_bits(d);
  const int field = (int)((b >> 23) & 0xFF);
  const uint32_t mantissa = b & 0x7FFFFF;
  if (field == 255) return satfinite && mantissa == 0 ? 254 : 255;
  if (satfinite && field == 254) return 254;
  return field + ((field == 0 ? mantissa > 0x400000 : mantissa != 0) ? 1 : 0);
}

static int quantize_profile(const struct profile_rules* rules, const struct mxc_quantize_params* p,
                            const uint16_t* input, uint8_t* data, size_t data_size, uint8_t* scale) {
  const struct element_format f = format_of(p->output_dtype);
  /* A rule that has only the EMAX-1 mode uses it whatever the call asks (as an impostor may be). */
  const int emax = emax_of(&f) - (p->emax_mode == MXC_EMAX_MINUS_1 || rules->emax_minus_1_only ? 1 : 0);
  const size_t P = (size_t)p->partitions, F = (size_t)p->free;
  const size_t bh = p->block_shape == MXC_BLOCK_8X4 ? 8 : p->block_shape == MXC_BLOCK_32X1 ? 32 : 1;
  const size_t bw = p->block_shape == MXC_BLOCK_8X4 ? 4 : p->block_shape == MXC_BLOCK_32X1 ? 1 : 32;
  const int fp4 = p->output_dtype == MXC_OUTPUT_FLOAT4_E2M1FN_X4;
  /* The nki rules divide by the unclipped power of two of the max field, not by the scale. */
  const int golden = rules->rule == RULE_GOLDEN || rules->rule == RULE_GOLDEN_KERNEL;
  /* Neuron (docs/contract.md steps 1-7): field 255 is a max like any other, both clamps, the
   * multiplier built from the bits (254 - byte) << 23 (+0.0 at byte 254), a NaN keeps its sign. */
  const int neuron = rules->rule == RULE_NEURON;
  size_t br, bc, r, c;
#ifdef PROFILE_PLANTED_FIRST_BLOCK_SCALE
  int first_byte = 0;
  double first_multiplier = 1;
#endif
  memset(data, 0, data_size);
  for (br = 0; br < P / bh; ++br) {
    for (bc = 0; bc < F / bw; ++bc) {
      double amax = 0;
      int any_nan = 0, any_inf = 0, max_field = 0, byte;
      double multiplier = 1;
      for (r = br * bh; r < (br + 1) * bh; ++r) {
        for (c = bc * bw; c < (bc + 1) * bw; ++c) {
          const double x = widen(input[r * F + c], p->input_dtype);
          const int field = (int)((float_bits((float)x) >> 23) & 0xFF);
          if (field > max_field) max_field = field;
          if (isnan(x)) any_nan = 1;
          else if (isinf(x)) any_inf = 1;
          else if (fabs(x) > amax) amax = fabs(x);
        }
      }
      if (golden) {
        /* The golden clips the stored exponent to [0, 255]; its kernel reference stores the int64
         * as a uint8, so a negative exponent wraps. Both divide by the unclipped power of two. */
        byte = rules->rule == RULE_GOLDEN_KERNEL ? (max_field - emax) & 0xFF
                                                  : max_field - emax < 0 ? 0 : max_field - emax;
        multiplier = ldexp(1.0, 127 + emax - max_field);
      } else if (neuron) {
        byte = max_field - emax < 1 ? 1 : max_field - emax;
      } else if (rules->block_nan && (any_nan || any_inf)) {
        byte = 255;
      } else if (rules->drop_nan && any_inf) {
        byte = 254;
      } else if (rules->rule == RULE_FLOOR || rules->rule == RULE_CEIL || rules->rule == RULE_EVEN) {
        /* torchao: the exponent bits of amax (CEIL: plus one when its mantissa bits are not all
         * zero; EVEN: of amax's bits plus half an element ulp, mantissa cleared), less 127 and
         * emax, clamped to [-127, 128]. */
        uint32_t bits = float_bits((float)amax);
        int unbiased;
        if (rules->rule == RULE_EVEN) bits = (bits + (1u << (22 - f.mbits))) & 0x7F800000u;
        unbiased = (int)((bits >> 23) & 0xFF) - 127 - emax + (rules->rule == RULE_CEIL && (bits & 0x7FFFFFu) ? 1 : 0);
        byte = (unbiased < -127 ? -127 : unbiased > 128 ? 128 : unbiased) + 127;
        /* EVEN: an amax rounded up into Inf is not finite, and the block is NaN. */
        if (bits == 0x7F800000u) byte = 255;
      } else if (rules->rule == RULE_LOG2_FLOOR) {
        int shared = ilogb(amax == 0 ? ldexp(1.0, -126) : amax) - emax;
        byte = (shared < -127 ? -127 : shared) + 127;
      } else {
        const float reciprocal = (float)(1.0 / f.max);
        byte = rceil((float)amax * reciprocal, rules->rule == RULE_RCEIL_SATFINITE);
      }
#ifdef PROFILE_PLANTED_FIRST_BLOCK_SCALE
      /* Planted: every block scaled as the first block is (its byte and its multiplier). */
      if (br == 0 && bc == 0) { first_byte = byte; first_multiplier = multiplier; }
      byte = first_byte;
      multiplier = first_multiplier;
#endif
      if (neuron) multiplier = byte == 254 ? 0.0 : ldexp(1.0, 127 - byte);
      else if (!golden) multiplier = ldexp(1.0, 127 - byte);
#ifdef PROFILE_PLANTED_LOGICAL_SCALE_ROWS
      /* Planted: the scale rows written in the logical layout whatever the call asks. */
      scale[br * (F / bw) + bc] = (uint8_t)byte;
#else
      scale[(p->scale_layout == MXC_SCALE_PHYSICAL ? (br & 3) + 32 * (br >> 2) : br) * (F / bw) + bc] = (uint8_t)byte;
#endif
      for (r = br * bh; r < (br + 1) * bh; ++r) {
        for (c = bc * bw; c < (bc + 1) * bw; ++c) {
          const size_t k = r * F + c;
          const double x = widen(input[k], p->input_dtype);
          uint32_t code;
          /* Outside the golden rules the reciprocal of E8M0 0xFF is NaN; the kernel reference's
           * wrapped 255 (max field 6 less 7) is an ordinary divisor. */
          if (isnan(x) || (byte == 255 && !golden && !neuron)) {
            /* Neuron's FP4 NaN is a zero of the NaN's sign; under a block-NaN scale FP4 writes +0. */
            code = nan_code(&f) | (isnan(x) && signbit(x) && !rules->drop_nan && (f.has_nan || neuron) ? 1u << (f.ebits + f.mbits) : 0u);
#ifdef PROFILE_DEVICE_FP4_NAN_CODE
            /* FP4 under a NaN scale as a device's torchao writes it (code 3 on x86, 4 on a GPU),
             * which the contract leaves unspecified. */
            if (fp4 && byte == 255 && !golden && !neuron) code = PROFILE_DEVICE_FP4_NAN_CODE;
#endif
          } else if (isinf(x) && neuron && multiplier == 0) {
            /* Inf x +0.0 is invalid: the x86 default NaN, sign set, whatever the Inf's sign. */
            code = nan_code(&f) | 1u << (f.ebits + f.mbits);
          } else if (isinf(x)) {
            code = encode(x > 0 ? f.max : -f.max, &f, rules->ties);
          } else if (golden) {
            double y = x * multiplier;
            if (y > f.max) y = f.max;
            if (y < -f.max) y = -f.max;
            code = encode((float)y, &f, rules->ties);
          } else if (rules->rule == RULE_LOG2_FLOOR) {
            /* x / 2^shared in fp32: a quotient that rounds to zero (at most 2^-150) is +0, since
             * torch.sign(-0.0) is 0; so is -0. */
            const double y = x * multiplier;
            code = encode(fabs(y) <= ldexp(1.0, -150) ? 0.0 : y, &f, rules->ties);
          } else {
            code = encode((float)x * (float)multiplier, &f, rules->ties);
          }
#ifdef PROFILE_NEGATIVE_ZERO_GIVES_PLUS_ZERO
          /* As TransformerEngine's default kernel built with CUDA before 13.1: x * s + (+0) in one
           * FMA makes -0 a +0. */
          if (x == 0) code = 0;
#endif
#ifdef PROFILE_PLANTED_NIBBLE_SWAP
          /* Planted: the first element of each byte in the high nibble, the second in the low. */
          if (fp4) data[k / 2] |= (uint8_t)(k % 2 ? code : code << 4);
#else
          if (fp4) data[k / 2] |= (uint8_t)(k % 2 ? code << 4 : code);
#endif
          else data[k] = (uint8_t)code;
        }
      }
    }
  }
  return MXC_STATUS_OK;
}

/* The profile a plug-in declares: its own, or PROFILE_DECLARED when built as an impostor (a
 * profile's rules declared as another profile's, for certify's NOT CERTIFIED cases). */
#if defined(PROFILE_DECLARED)
#define PROFILE_CLAIMED(rules) ((uint32_t)PROFILE_DECLARED)
#elif defined(PROFILE_DECLARED_FROM_ENV)
#include <stdlib.h>
/* The enum mxc_profile value in MXCONFORM_TEST_DECLARED_PROFILE (a test sets it before it starts
 * the worker), or the rules' own profile when it is unset or not a number. */
static uint32_t profile_declared_from_env(uint32_t own) {
  const char* text = getenv("MXCONFORM_TEST_DECLARED_PROFILE");
  char* end = NULL;
  unsigned long value;
  if (text == NULL || *text == '\0') return own;
  value = strtoul(text, &end, 10);
  return *end == '\0' && value < 32 ? (uint32_t)value : own;
}
#define PROFILE_CLAIMED(rules) profile_declared_from_env((rules).profile)
#else
#define PROFILE_CLAIMED(rules) ((rules).profile)
#endif

/* What an impostor declares beside the claimed profile: that profile's block shapes and EMAX
 * modes, so that certify asks it what it asks the real thing (its own rules still compute, at the
 * geometry and in the mode the call gives, or EMAX-1 when they have only that). */
static inline uint32_t claimed_block_shapes(uint32_t profile, const struct profile_rules* rules) {
  if (profile == rules->profile) return rules->block_shapes;
  switch (profile) {
    case MXC_PROFILE_NEURON: case MXC_PROFILE_NKI_GOLDEN: case MXC_PROFILE_NKI_GOLDEN_KERNEL: return 1u << MXC_BLOCK_8X4;
    case MXC_PROFILE_OCP_FLOOR: case MXC_PROFILE_TORCHAO_RCEIL: case MXC_PROFILE_TORCHAO_CEIL: case MXC_PROFILE_TORCHAO_EVEN:
      return 1u << MXC_BLOCK_1X32;
    case MXC_PROFILE_TRANSFORMER_ENGINE_MXFP8: case MXC_PROFILE_MICROXCALING: return 1u << MXC_BLOCK_1X32 | 1u << MXC_BLOCK_32X1;
    default: return rules->block_shapes;
  }
}
static inline uint32_t claimed_emax_modes(uint32_t profile, const struct profile_rules* rules) {
  if (profile == rules->profile) return rules->emax_minus_1_only ? 1u << MXC_EMAX_MINUS_1 : 1u << MXC_EMAX | 1u << MXC_EMAX_MINUS_1;
  return profile == MXC_PROFILE_NKI_GOLDEN_KERNEL ? 1u << MXC_EMAX_MINUS_1 : 1u << MXC_EMAX | 1u << MXC_EMAX_MINUS_1;
}

/* The block shapes a plug-in declares: the rules' own, or only PROFILE_ONLY_BLOCK_SHAPE (an enum
 * mxc_block_shape value) when built so: a subject that declares one shape of several. */
#if defined(PROFILE_NO_BLOCK_SHAPES)
/* block_shapes 0 (which reads as 8x4) beside a profile that has no 8x4: a declaration no
 * configuration fits, which mxconform must refuse when it loads the plug-in. */
#define PROFILE_BLOCK_SHAPES(rules) 0u
#elif defined(PROFILE_ONLY_BLOCK_SHAPE)
#define PROFILE_BLOCK_SHAPES(rules) (1u << (PROFILE_ONLY_BLOCK_SHAPE))
#else
#define PROFILE_BLOCK_SHAPES(rules) claimed_block_shapes(PROFILE_CLAIMED(rules), &(rules))
#endif

/* Built with PROFILE_PLANTED_E5M2_FLOAT16_BUG: a call with an e5m2 output or a float16 input gets
 * bit 0 of data byte 0 flipped, and every other call is right. */
static int profile_planted(const struct mxc_quantize_params* p, uint8_t* data, int status) {
#ifdef PROFILE_PLANTED_E5M2_FLOAT16_BUG
  if (status == MXC_STATUS_OK && (p->output_dtype == MXC_OUTPUT_FLOAT8_E5M2 || p->input_dtype == MXC_INPUT_FLOAT16)) {
    data[0] ^= 1u;
  }
#else
  (void)p;
  (void)data;
#endif
  return status;
}

/* Exports mxconform_backend_v1 for `rules`. */
#define PROFILE_BACKEND(rules)                                                                         \
  static struct mxc_backend_info profile_info;                                                         \
  static const struct mxc_backend_info* profile_describe(void) {                                       \
    memset(&profile_info, 0, sizeof profile_info);                                                     \
    profile_info.struct_size = sizeof profile_info;                                                    \
    profile_info.abi_version = MXCONFORM_BACKEND_ABI_VERSION;                                          \
    profile_info.name = (rules).name;                                                                  \
    profile_info.version = "test";                                                                     \
    profile_info.description = "a profile written from its definition (tests/backends/profile_*.c)";  \
    profile_info.input_dtypes = 1u << MXC_INPUT_BFLOAT16 | 1u << MXC_INPUT_FLOAT16;                    \
    profile_info.output_dtypes = 1u << MXC_OUTPUT_FLOAT8_E4M3FN | 1u << MXC_OUTPUT_FLOAT8_E5M2 |       \
                                 1u << MXC_OUTPUT_FLOAT8_E4M3FN_X4 | 1u << MXC_OUTPUT_FLOAT8_E5M2_X4 | \
                                 ((rules).fp4 ? 1u << MXC_OUTPUT_FLOAT4_E2M1FN_X4 : 0u);               \
    profile_info.emax_modes = claimed_emax_modes(PROFILE_CLAIMED(rules), &(rules));                     \
    profile_info.fp8_nan_policies = 1u << MXC_FP8_NAN_CANONICAL;                                       \
    profile_info.scale_layouts = 1u << MXC_SCALE_LOGICAL | 1u << MXC_SCALE_PHYSICAL;                   \
    profile_info.fp4_high_parities = 1u << 1;                                                          \
    profile_info.fp4_lane_strides = 1u;                                                                \
    profile_info.profiles = 1u << PROFILE_CLAIMED(rules);                                              \
    profile_info.block_shapes = PROFILE_BLOCK_SHAPES(rules);                                           \
    return &profile_info;                                                                              \
  }                                                                                                    \
  static int profile_quantize(const struct mxc_quantize_params* params, const uint16_t* input,         \
                              uint8_t* data, size_t data_size, uint8_t* scale, size_t scale_size,      \
                              char* message, size_t message_size) {                                    \
    (void)scale_size;                                                                                  \
    if (params->struct_size < sizeof *params || params->profile != PROFILE_CLAIMED(rules)) {           \
      if (message_size > 0) message[0] = '\0';                                                         \
      return MXC_STATUS_UNSUPPORTED;                                                                   \
    }                                                                                                  \
    return profile_planted(params, data, quantize_profile(&(rules), params, input, data, data_size, scale)); \
  }                                                                                                    \
  static const struct mxc_backend profile_table = {sizeof(struct mxc_backend), profile_describe,       \
                                                   profile_quantize};                                  \
  MXCONFORM_BACKEND_EXPORT const struct mxc_backend* mxconform_backend_v1(void) { return &profile_table; }

#endif /* MXCONFORM_TEST_PROFILE_BACKEND_H_ */
