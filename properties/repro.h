#pragma once
// A failing case after shrinking, as plain data: enough to replay it, to print it, and to write
// it out as a corpus file. Every property that fails records one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mxconform/difference.h"
#include "quantize_case.h"

namespace mxconform::properties {

struct Repro {
  std::string property;     // e.g. "differential"
  std::string subject;      // the implementation's name
  std::string expectation;  // what `expected` is, e.g. "the oracle's output"
  std::string detail;       // the property's account of the failure when bytes alone do not tell it
  QuantizeConfig config;
  std::vector<std::uint16_t> input;  // P*F raw input bits, row-major
  Outputs expected;                  // data and scale buffers, as quantize() fills them
  Outputs actual;
};

// The repro's actual bytes against its expected ones (compare, mxconform/difference.h), every
// difference kept, the scale rows no slot names included (both buffers start with the same fill
// there, which the subject must keep).
Comparison compare(const Repro& repro);
// The element codes that differ, over every differing data byte (FP4: up to two a byte).
std::size_t differing_elements(const Comparison& comparison);

// The repro as text: the configuration, the first difference (the first differing data byte's
// first element, with its block and the block's E8M0, else the first differing scale byte), the input bits in hex and the expected and actual bytes, differing bytes in brackets.
// Small tensors (up to 512 elements) are printed whole; larger ones print the block of the first
// difference only.
std::string format_repro(const Repro& repro);

}  // namespace mxconform::properties
