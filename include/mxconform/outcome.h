#pragma once
// What one run of a subject on one case came to: the one outcome type of replay, the property
// runner, certify and grade. Every kind is reported as itself, never folded into another; the
// names are what certificates, JUnit files and failure databases print and read back.
namespace mxconform {

enum class Outcome {
  kPass,
  kWrongResult,           // ran to completion, some byte differs from the expected one
  kCrash,                 // the worker died on a signal or exited
  kHang,                  // no answer within the per-call timeout
  kWritePastEnd,          // wrote after the last byte of the data or scale buffer
  kWriteBeforeStart,      // wrote before the first byte of the data or scale buffer
  kWriteIntoInput,        // wrote into the read-only input
  kWriteUnnamedScaleRow,  // changed a physical scale row that no slot names
  kError,                 // returned MXC_STATUS_ERROR, or the subject threw
  kUnsupported,           // declared or returned unsupported: its own outcome, never a failure
  kNondeterministic,      // failed, and the same call run again did something else
  kProtocolError,         // a command subject answered with bytes that are not a valid frame
  kStrayOutput,           // a command subject wrote to its stdout outside a frame
  kWrongSize,             // a command subject answered with data or scale of the wrong size
  kMissingOutput,         // grade: a bundle runner wrote no data or scale file for the case
  kMalformedOutput,       // grade: an output file that is not the |u1 .npy of the case's shape
};
// "pass", "wrong-result", "not-supported", ...: lower case, hyphenated, stable.
const char* name(Outcome outcome);
// Every outcome but kPass and kUnsupported.
bool is_failure(Outcome outcome);

}  // namespace mxconform
