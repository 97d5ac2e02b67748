#pragma once
// The knob and profile flags of the commands that enumerate certify's campaigns (certify, export,
// fingerprint --export-bundle): --emax-mode, --fp8-nan, --lane-stride, --high-parity,
// --scale-layout, --profile and --block-shape, declared and read in one place.
#include <string>

#include <CLI/CLI.hpp>

#include "campaign_cases.h"
#include "mxconform/quantize_config.h"

namespace mxconform::cli {

class KnobFlags {
 public:
  // Declares the flags on `app`; `verb` ends each knob's help ("EMAX mode certified: ...").
  void add_to(CLI::App& app, const std::string& verb);
  // After parsing: the knobs given (defaults for the others). A profile other than neuron sets the
  // knob values it fixes (apply_profile) and its default block shape unless --block-shape names
  // another it admits; a knob flag given with a value the profile does not take is an Error
  // naming the flag and the profile's value, as is a block shape it does not have.
  QuantizeConfig knobs() const;
  // With --all-knobs, which crosses every value of every knob: throws Error naming the first knob
  // flag given (--emax-mode, --fp8-nan, --lane-stride, --high-parity, --scale-layout), which the
  // run would otherwise ignore.
  void refuse_with_all_knobs() const;
  // After parsing: which knob flags were given (the profile's own knobs are not named by
  // --profile alone).
  certify::NamedKnobs named() const;

 private:
  std::string emax_mode_ = "emax", fp8_nan_ = "canonical", scale_layout_ = "physical", profile_ = "neuron";
  std::string lane_stride_, high_parity_, block_shape_;
  CLI::Option* emax_mode_option_ = nullptr;
  CLI::Option* fp8_nan_option_ = nullptr;
  CLI::Option* scale_layout_option_ = nullptr;
  CLI::Option* lane_stride_option_ = nullptr;
  CLI::Option* high_parity_option_ = nullptr;
  CLI::Option* block_shape_option_ = nullptr;
};

}  // namespace mxconform::cli
