#pragma once
// Runs one corpus case through a subject and compares every output byte with the case (compare,
// mxconform/difference.h), the scale rows no slot names included.
#include <cstddef>
#include <string>

#include "corpus_case.h"
#include "mxconform/difference.h"
#include "mxconform/outcome.h"
#include "mxconform/subject.h"

namespace mxconform::corpus {

// One line, as replay prints it: the byte, expected and actual (".." for a byte that must never
// be written), then its element(s) with their codes, block(s) and E8M0, or the block it scales.
std::string to_string(const Difference& difference);

struct ReplayResult {
  // kPass, kWrongResult (some byte differs), kUnsupported (the subject's reason in `reason`),
  // kError (the subject threw: `reason` says what) or, for a subject in a worker, the outcome of
  // the SubjectFailure it threw (crash, hang, ...: `reason` is "OUTCOME: DETAIL").
  Outcome outcome = Outcome::kPass;
  std::string reason;
  Comparison comparison;  // up to `max_reported` differing data and scale bytes, all counted
};

// Quantizes c.input with `subject` into buffers that start as the bitwise complement of every
// expected byte (0xFF where nothing may be written), so that an unwritten byte always differs.
ReplayResult replay_case(const CorpusCase& c, const Subject& subject, std::size_t max_reported = 8);

}  // namespace mxconform::corpus
