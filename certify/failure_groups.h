#pragma once
// Failures grouped by signature (certification.h FailureGroup): counting each failing case into
// its group, the per-group cap on listed failures, the smallest repro of a group, the report's
// group lines, and joining the groups of shards.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "certification.h"

namespace mxconform::certify {

// Failures listed per group; the rest are counted only.
inline constexpr std::size_t kShownPerGroup = 3;

// Counts one failing case of `campaign` with `signature` into its group (a new group when none
// has it) and returns whether it is to be listed: the group has shown fewer than kShownPerGroup.
// The caller lists it (pushes its Failure) and then calls mark_shown.
bool count_failure(Certificate& certificate, const std::string& campaign, const std::string& signature);
void mark_shown(Certificate& certificate, const std::string& signature);

// Failing cases in the group, over every campaign.
std::size_t failed_in(const FailureGroup& group);

// The repro's size, read back from its corpus text: shape and non-zero elements.
struct ReproSize {
  std::size_t partitions = 0, free = 0, non_zero = 0;
  std::string id;
};
std::optional<ReproSize> repro_size(const Failure& failure);

// The listed failure of the group with the smallest repro (fewest elements, then fewest non-zero),
// or nullptr when none of its failures has a readable repro.
const Failure* smallest_repro(const Certificate& certificate, const FailureGroup& group);

// One line per group: "<failed> failed, <shown> shown: <signature>; smallest repro: ...". Text
// from outside passes through `shown_text` (the caller's escaping).
std::string group_lines(const Certificate& certificate, std::string (*shown_text)(std::string_view));

// The groups of several certificates joined by signature, counts summed (Error on overflow).
std::vector<FailureGroup> merge_groups(const std::vector<const Certificate*>& certificates);

}  // namespace mxconform::certify
