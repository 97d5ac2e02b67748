/* mxconform backend ABI, version 1.
 *
 * A backend is a shared library that exports one function, mxconform_backend_v1, returning a
 * table that describes the backend and quantizes. mxconform certifies it against its oracle
 * (`mxconform certify --backend ./libyours.so`). This header is all a backend author needs: it is
 * valid C99 and C++, and includes nothing of mxconform.
 *
 * The semantics are those of the Neuron QuantizeMx instruction as restated in mxconform's
 * docs/contract.md: blocks of 8 partitions x 4 columns, one E8M0 scale byte per block, elements
 * narrowed to FP4 e2m1 or FP8 e4m3fn / e5m2 with round-to-nearest-even and saturation.
 *
 * Versioning. The exported symbol carries the major version (mxconform_backend_v1); a change
 * that breaks existing backends gets a new symbol, and mxconform keeps loading the old ones for
 * as long as it supports them. Within a major version, fields are only appended to the end of
 * the structs below, and `struct_size` tells each side how much of a struct the other knows.
 */
#ifndef MXCONFORM_BACKEND_H_
#define MXCONFORM_BACKEND_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MXCONFORM_BACKEND_ABI_VERSION 1
#define MXCONFORM_BACKEND_SYMBOL "mxconform_backend_v1"

#if defined(_WIN32)
#define MXCONFORM_BACKEND_EXPORT __declspec(dllexport)
#else
#define MXCONFORM_BACKEND_EXPORT __attribute__((visibility("default")))
#endif

/* Input dtypes: raw 16-bit patterns, partition-major [P][F]. */
enum mxc_input_dtype { MXC_INPUT_BFLOAT16 = 0, MXC_INPUT_FLOAT16 = 1 };

/* Output dtypes by BIR id. The x4 dtypes write the same bytes as their element dtype. */
enum mxc_output_dtype {
  MXC_OUTPUT_FLOAT4_E2M1FN_X4 = 2,
  MXC_OUTPUT_FLOAT8_E4M3FN = 5,
  MXC_OUTPUT_FLOAT8_E5M2 = 7,
  MXC_OUTPUT_FLOAT8_E4M3FN_X4 = 8,
  MXC_OUTPUT_FLOAT8_E5M2_X4 = 9
};

/* The knobs: the open points of the contract, each with the default listed first. */
enum mxc_emax_mode { MXC_EMAX = 0, MXC_EMAX_MINUS_1 = 1 };           /* emaxBias = EMAX or EMAX-1 */
enum mxc_fp8_nan { MXC_FP8_NAN_CANONICAL = 0, MXC_FP8_NAN_ZERO = 1 }; /* NaN -> s|0x7F or s|0 */
enum mxc_scale_layout { MXC_SCALE_PHYSICAL = 0, MXC_SCALE_LOGICAL = 1 };

/* Appended to ABI version 1: the contract of a call (mxconform's profiles, docs/contract.md
 * "Profiles") and its block geometry. A backend whose structs end before these fields is
 * neuron-only with 8 x 4 blocks, and mxconform never asks it for anything else. */
enum mxc_profile {
  MXC_PROFILE_NEURON = 0,                   /* the default: Neuron QuantizeMx */
  MXC_PROFILE_NKI_GOLDEN = 1,               /* aws nki-library golden of nisa.quantize_mx */
  MXC_PROFILE_NKI_GOLDEN_KERNEL = 2,        /* its alternative-EMAX kernel reference */
  MXC_PROFILE_OCP_FLOOR = 3,                /* OCP floor rule (torchao FLOOR) */
  MXC_PROFILE_TORCHAO_RCEIL = 4,            /* torchao RCEIL */
  MXC_PROFILE_TRANSFORMER_ENGINE_MXFP8 = 5, /* NVIDIA TransformerEngine MXFP8 */
  MXC_PROFILE_MICROXCALING = 6,             /* microsoft/microxcaling, ties away */
  MXC_PROFILE_TORCHAO_CEIL = 7,             /* torchao CEIL */
  MXC_PROFILE_TORCHAO_EVEN = 8              /* torchao EVEN */
};
enum mxc_block_shape {
  MXC_BLOCK_8X4 = 0,  /* 8 partitions x 4 columns; scale [P/8][F/4] (physical or logical) */
  MXC_BLOCK_1X32 = 1, /* 32 consecutive elements of a row; scale [P][F/32], logical */
  MXC_BLOCK_32X1 = 2  /* 32 partitions of a column; scale [P/32][F], logical */
};

enum mxc_status {
  MXC_STATUS_OK = 0,          /* every data byte and every named scale row written */
  MXC_STATUS_UNSUPPORTED = 1, /* this configuration is not implemented; nothing written. mxconform
                               * calls only declared configurations: UNSUPPORTED for one of them
                               * is the outcome "refused", a failure */
  MXC_STATUS_ERROR = 2        /* failed; `message` says why */
};

/* What a backend is and supports. Each mask has bit i set when value i is supported
 * (input_dtypes: enum mxc_input_dtype; output_dtypes: BIR ids; emax_modes; fp8_nan_policies;
 * scale_layouts; fp4_high_parities: 0 and 1). fp4_lane_strides: bit s for stride s in 0..62,
 * bit 63 for every stride of 63 and above. mxconform certifies exactly the combinations declared
 * and reports the others as not supported. */
struct mxc_backend_info {
  uint32_t struct_size;   /* sizeof(struct mxc_backend_info) as compiled by the backend */
  uint32_t abi_version;   /* MXCONFORM_BACKEND_ABI_VERSION */
  const char* name;       /* short, no spaces, e.g. "mykernel" */
  const char* version;    /* the backend's own version string */
  const char* description;/* one line */
  uint32_t input_dtypes;
  uint32_t output_dtypes;
  uint32_t emax_modes;
  uint32_t fp8_nan_policies;
  uint32_t scale_layouts;
  uint32_t fp4_high_parities;
  uint64_t fp4_lane_strides;
  /* Appended; read only when struct_size covers them. Absent or 0: MXC_PROFILE_NEURON only and
   * MXC_BLOCK_8X4 only. */
  uint32_t profiles;      /* bit i: enum mxc_profile i */
  uint32_t block_shapes;  /* bit i: enum mxc_block_shape i */
};
/* The size of mxc_backend_info before the appended fields: the smallest a backend may report. */
#define MXC_BACKEND_INFO_V1_SIZE offsetof(struct mxc_backend_info, profiles)

/* One quantize call. P % 8 == 0, F % 4 == 0, and for FP4 with a stride s > 0,
 * (P * F) % (2 * s) == 0; mxconform never passes anything else. */
struct mxc_quantize_params {
  uint32_t struct_size;     /* sizeof(struct mxc_quantize_params) as compiled by mxconform */
  uint32_t input_dtype;     /* enum mxc_input_dtype */
  uint32_t output_dtype;    /* enum mxc_output_dtype */
  uint32_t emax_mode;       /* enum mxc_emax_mode */
  uint32_t fp8_nan;         /* enum mxc_fp8_nan */
  uint32_t fp4_lane_stride; /* 0: no lane remap */
  uint32_t fp4_high_parity; /* nibble position r goes high when (r & 1) == parity */
  uint32_t scale_layout;    /* enum mxc_scale_layout */
  uint64_t partitions;      /* P */
  uint64_t free;            /* F, in elements */
  /* Appended; present when struct_size covers them. A backend that declares only the neuron
   * profile may ignore them: mxconform passes MXC_PROFILE_NEURON and MXC_BLOCK_8X4 then. */
  uint32_t profile;         /* enum mxc_profile */
  uint32_t block_shape;     /* enum mxc_block_shape: P and F are multiples of its extents */
};
/* The size of mxc_quantize_params before the appended fields. */
#define MXC_QUANTIZE_PARAMS_V1_SIZE offsetof(struct mxc_quantize_params, profile)

/* The table a backend exports.
 *
 * describe: returns the backend's info; the pointer stays valid until the library is unloaded.
 *
 * quantize: quantizes P*F input elements.
 *   - input: P*F 16-bit patterns. READ-ONLY: mxconform maps it without write permission.
 *   - data: data_size bytes = P*F for FP8, P*F/2 for FP4. The backend must write every byte and
 *     nothing before data[0] or after data[data_size - 1].
 *   - scale: scale_size bytes. Logical layout: [P/8][F/4], every byte written. Physical layout:
 *     logical row i goes to row (i & 3) + 32 * (i >> 2) of a buffer of that formula's value for
 *     i = P/8 - 1, plus one, rows of F/4 bytes; the backend writes the named rows and must leave
 *     every other row untouched.
 *   - message: on MXC_STATUS_ERROR, a NUL-terminated reason of at most message_size bytes.
 *   Returns enum mxc_status.
 *
 * Thread safety: mxconform calls a backend from one thread at a time, each call in a worker
 * process of its own making; a backend need not be reentrant. A crash, a hang (mxconform's
 * per-call timeout), a write outside the rules above or into the input is reported as that
 * outcome, naming the case; the campaign goes on in a fresh worker process. */
struct mxc_backend {
  uint32_t struct_size;  /* sizeof(struct mxc_backend) as compiled by the backend */
  const struct mxc_backend_info* (*describe)(void);
  int (*quantize)(const struct mxc_quantize_params* params, const uint16_t* input,
                  uint8_t* data, size_t data_size, uint8_t* scale, size_t scale_size,
                  char* message, size_t message_size);
};

/* The one symbol a backend exports. */
typedef const struct mxc_backend* (*mxc_backend_entry)(void);
MXCONFORM_BACKEND_EXPORT const struct mxc_backend* mxconform_backend_v1(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MXCONFORM_BACKEND_H_ */
