// `mxconform verify`.
#include "verify_command.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "call_grade.h"
#include "campaign_cases.h"
#include "command_line.h"
#include "exit_status.h"
#include "knob_flags.h"
#include "mxconform/atomic_file.h"
#include "mxconform/error.h"
#include "mxconform/npy.h"
#include "mxconform/tensor_files.h"
#include "mxconform/safe_text.h"
#include "option_values.h"
#include "oracle.h"
#include "repro_writer.h"

namespace mxconform::cli {
namespace {

npy::Array read_bytes_array(const std::string& path, std::size_t rows, std::size_t cols, const std::string& what) {
  npy::Array array = npy::read(path);
  if (array.type != npy::ElementType::kUint8) {
    throw Error(path + ": expected |u1 bytes, got dtype " + std::string(npy::descr(array.type)));
  }
  if (array.shape.size() != 2 || array.shape[0] != rows || array.shape[1] != cols) {
    throw Error(path + ": shape " + shape_text(array.shape) + "; the " + what + " of this input and configuration is (" +
                std::to_string(rows) + ", " + std::to_string(cols) + ")");
  }
  return array;
}

// One block's differences: block (group, column) of the tensor.
struct BlockDifference {
  std::size_t scale_bytes = 0;
  std::size_t data_bytes = 0;
  std::string first;  // the first differing byte, in words
};

}  // namespace

int run_verify(int argc, char** argv) {
  CLI::App app{"Compare one quantized tensor produced elsewhere (data and scale .npy) against the reference; exit 0 "
               "when every byte matches, 2 when not",
               "mxconform verify"};
  std::string input_path, in_dtype, data_path, scale_path, repro_path, out_dtype;
  bool force = false;
  app.add_option("--input", input_path, "Input .npy: <u2 raw bits [P, F], or <f2 float16 [P, F]")->required();
  app.add_option("--in-dtype", in_dtype, "bfloat16 or float16 (required for <u2 input)");
  app.add_option("--data", data_path, "The data .npy to check (|u1, as `mxconform quantize` writes it)")->required();
  app.add_option("--scale", scale_path, "The scale .npy to check (|u1; rows no slot names must hold 0)")->required();
  app.add_option("--out-dtype", out_dtype, "Output dtype, as for quantize")->required();
  KnobFlags knob_flags;
  knob_flags.add_to(app, "the output was made with");
  app.add_option("--repro", repro_path, "When they differ, write the first differing block as a corpus file here");
  app.add_flag("--force", force, "Overwrite the repro file if it exists (regular files only)");
  if (const std::optional<int> status = parse_command_line(app, argc, argv, "verify")) return *status;

  check_output_paths({input_path, data_path, scale_path}, repro_path.empty() ? std::vector<std::string>{}
                                                                               : std::vector<std::string>{repro_path},
                     force);
  QuantizeConfig config = knob_flags.knobs();  // the profile, its block shape and the knobs
  config.output = parse_output_dtype(out_dtype);
  InputTensor input = read_input_tensor(input_path, in_dtype);
  config.input = input.dtype;
  config.partitions = input.partitions;
  config.free = input.free;
  validate(config);
  const Geometry g = geometry(config);
  const npy::Array data = read_bytes_array(data_path, config.partitions, g.data_row_bytes, "data");
  const npy::Array scale = read_bytes_array(scale_path, g.scale_rows, g.block_cols, "scale");
  const std::vector<std::uint16_t>& elements = input.bits;
  std::vector<std::uint8_t> expected_data, expected_scale;
  certify::oracle_bytes(config, elements, expected_data, expected_scale);
  // Bytes the profile leaves unspecified are graded as whatever the file holds, as certify does.
  expected_data = with_unspecified_from(config, elements, expected_scale, std::move(expected_data), data.bytes);

  // Every differing byte, grouped by the block (partition group, block column) it belongs to.
  const std::vector<bool> named = named_scale_rows(config);
  std::vector<std::size_t> group_of_row(g.scale_rows, 0);
  for (std::size_t group = 0; group < g.block_rows; ++group) group_of_row[scale_row(config, group)] = group;
  // The element whose nibble each FP4 nibble position holds (the lane remap is a permutation).
  std::vector<std::size_t> element_at;
  if (is_fp4(config.output)) {
    element_at.resize(elements.size());
    for (std::size_t k = 0; k < elements.size(); ++k) element_at[oracle::nibble_position(k, config.fp4_lane_stride)] = k;
  }
  std::map<std::pair<std::size_t, std::size_t>, BlockDifference> blocks;
  std::size_t unnamed_written = 0, scale_differ = 0, data_differ = 0;
  std::string first_unnamed;
  for (std::size_t i = 0; i < scale.bytes.size(); ++i) {
    const std::size_t row = i / g.block_cols, column = i % g.block_cols;
    if (!named[row]) {
      if (scale.bytes[i] != 0 && unnamed_written++ == 0) {
        first_unnamed = "scale row " + std::to_string(row) + " (no slot names it) byte " + std::to_string(column) + " is " +
                        certify::hex_byte(scale.bytes[i]) + ", expected 0x00";
      }
      continue;
    }
    if (scale.bytes[i] == expected_scale[i]) continue;
    ++scale_differ;
    BlockDifference& b = blocks[{group_of_row[row], column}];
    if (b.scale_bytes++ == 0 && b.data_bytes == 0) {
      b.first = "scale: expected " + certify::hex_byte(expected_scale[i]) + ", actual " + certify::hex_byte(scale.bytes[i]);
    }
  }
  for (std::size_t i = 0; i < data.bytes.size(); ++i) {
    if (data.bytes[i] == expected_data[i]) continue;
    ++data_differ;
    // The block of each element whose code differs: an FP4 byte holds two elements, which lie in
    // different blocks when blocks are one column wide (32x1).
    std::set<std::pair<std::size_t, std::size_t>> byte_blocks;
    const auto add_element = [&](std::size_t element) {
      const std::size_t row = element / config.free, column = element % config.free;
      byte_blocks.insert({row / g.block_height, column / g.block_width});
    };
    if (!is_fp4(config.output)) {
      add_element(i);
    } else {
      // Nibble position r of byte r / 2 goes high when (r & 1) == parity.
      const std::uint8_t changed = data.bytes[i] ^ expected_data[i];
      const std::size_t low = config.fp4_high_parity == 1 ? 2 * i : 2 * i + 1;
      const std::size_t high = config.fp4_high_parity == 1 ? 2 * i + 1 : 2 * i;
      if ((changed & 0x0F) != 0) add_element(element_at[low]);
      if ((changed & 0xF0) != 0) add_element(element_at[high]);
    }
    for (const auto& where : byte_blocks) {
      BlockDifference& b = blocks[where];
      if (b.data_bytes++ == 0 && b.scale_bytes == 0) {
        b.first = "data byte " + std::to_string(i) + " (row " + std::to_string(i / g.data_row_bytes) + ", byte " +
                  std::to_string(i % g.data_row_bytes) + "): expected " + certify::hex_byte(expected_data[i]) +
                  ", actual " + certify::hex_byte(data.bytes[i]);
      }
    }
  }

  std::ostringstream out;
  out << "verify " << safe_text(data_path) << " and " << safe_text(scale_path) << " against the reference\n  "
      << describe(config) << "\n  input " << safe_text(input_path) << ": " << g.block_rows * g.block_cols << " blocks\n";
  if (blocks.empty() && unnamed_written == 0) {
    out << "IDENTICAL: every data and scale byte matches the reference\n";
    std::cout << out.str();
    return kExitSuccess;
  }
  out << "DIFFERENT: " << blocks.size() << " of " << g.block_rows * g.block_cols << " blocks differ (" << scale_differ
      << " scale bytes, " << data_differ << " data bytes)";
  if (unnamed_written > 0) out << "; " << unnamed_written << " bytes written in scale rows no slot names";
  out << "\n";
  if (unnamed_written > 0) out << "  unnamed scale rows: " << first_unnamed << "\n";
  constexpr std::size_t kShownBlocks = 10;
  std::size_t shown = 0;
  for (const auto& [where, b] : blocks) {
    if (shown++ == kShownBlocks) {
      out << "  ... and " << blocks.size() - kShownBlocks << " more blocks\n";
      break;
    }
    out << "  block (group " << where.first << ", column " << where.second << ") rows " << where.first * g.block_height
        << "-" << (where.first + 1) * g.block_height - 1 << ", columns " << where.second * g.block_width << "-"
        << (where.second + 1) * g.block_width - 1 << ": " << (b.scale_bytes > 0 ? "scale differs, " : "")
        << b.data_bytes << " data byte(s) differ; first " << b.first << "\n";
  }
  if (!repro_path.empty()) {
    // The first differing block as a one-block case (the whole tensor when only unnamed rows differ).
    QuantizeConfig repro_config = config;
    std::vector<std::uint16_t> repro_input = elements;
    const certify::CallGrade grade = certify::grade_call(config, elements, expected_data, expected_scale,
                                                         std::vector<std::uint8_t>(g.scale_bytes, 0).data(), data.bytes,
                                                         scale.bytes);
    certify::block_of_site(config, elements, grade.site, repro_config, repro_input);
    corpus::CorpusCase repro = corpus::make_repro_case(repro_config, repro_input, "verify", 0);
    constexpr std::size_t kWhyBytes = 1800;  // at most 4x that once escaped, under the loader's 8192
    repro.why = safe_multiline_text("mxconform verify of " + data_path + " and " + scale_path + " for " + input_path + ": " +
                                        grade.detail + ". Expected bytes are the oracle's.",
                                    kWhyBytes);
    repro.source = "mxconform verify";
    write_file_atomically(repro_path, corpus::format_corpus_file({repro}, "mxconform verify: the first differing block of " +
                                                                              safe_text(data_path)),
                          force);
    out << "repro written to " << safe_text(repro_path) << " (`mxconform replay " << safe_text(shell_word(repro_path))
        << " --backend NAME` runs it)\n";
  }
  std::cout << out.str();
  return kExitNegativeVerdict;
}

}  // namespace mxconform::cli
