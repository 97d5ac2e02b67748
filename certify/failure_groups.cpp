#include "failure_groups.h"

#include <algorithm>
#include <limits>
#include <map>

#include "corpus_loader.h"
#include "mxconform/error.h"

namespace mxconform::certify {
namespace {

FailureGroup* find_group(Certificate& certificate, const std::string& signature) {
  for (FailureGroup& g : certificate.failure_groups) {
    if (g.signature == signature) return &g;
  }
  return nullptr;
}

std::size_t add(std::size_t sum, std::size_t more, const std::string& what) {
  if (more > std::numeric_limits<std::size_t>::max() - sum) throw Error(what + ": the sum overflows 64 bits");
  return sum + more;
}

}  // namespace

bool count_failure(Certificate& certificate, const std::string& campaign, const std::string& signature) {
  FailureGroup* group = find_group(certificate, signature);
  if (group == nullptr) {
    certificate.failure_groups.push_back({signature, {}, 0});
    group = &certificate.failure_groups.back();
  }
  ++group->failed[campaign];
  return group->shown < kShownPerGroup;
}

void mark_shown(Certificate& certificate, const std::string& signature) {
  if (FailureGroup* group = find_group(certificate, signature)) ++group->shown;
}

std::size_t failed_in(const FailureGroup& group) {
  std::size_t n = 0;
  for (const auto& [campaign, count] : group.failed) n = add(n, count, "failure group " + campaign);
  return n;
}

std::optional<ReproSize> repro_size(const Failure& failure) {
  try {
    const std::vector<corpus::CorpusCase> cases = corpus::load_corpus_text(failure.repro_yaml, "repro");
    if (cases.size() != 1) return std::nullopt;
    const corpus::CorpusCase& c = cases[0];
    ReproSize size{c.config.partitions, c.config.free, 0, c.id};
    const std::uint32_t magnitude = input_format(c.config.input).magnitude_mask;
    for (std::uint16_t bits : c.input) size.non_zero += (bits & magnitude) != 0;
    return size;
  } catch (const std::exception&) {
    return std::nullopt;  // "# no repro: ...", or a certificate edited by hand
  }
}

const Failure* smallest_repro(const Certificate& certificate, const FailureGroup& group) {
  const Failure* best = nullptr;
  std::pair<std::size_t, std::size_t> best_size{};
  for (const Failure& f : certificate.failures) {
    if (f.signature != group.signature) continue;
    const std::optional<ReproSize> size = repro_size(f);
    if (!size) continue;
    const std::pair<std::size_t, std::size_t> key{size->partitions * size->free, size->non_zero};
    if (best == nullptr || key < best_size) {
      best = &f;
      best_size = key;
    }
  }
  return best;
}

std::string group_lines(const Certificate& certificate, std::string (*shown_text)(std::string_view)) {
  std::string out;
  for (const FailureGroup& g : certificate.failure_groups) {
    const std::size_t failed = failed_in(g);
    out += "  " + std::to_string(failed) + " failed";
    if (g.shown < failed) out += ", " + std::to_string(g.shown) + " shown";
    out += ": " + shown_text(g.signature.empty() ? std::string_view("(no signature)") : std::string_view(g.signature));
    if (const Failure* f = smallest_repro(certificate, g)) {
      const ReproSize size = *repro_size(*f);
      out += "; smallest repro [" + std::to_string(size.partitions) + ", " + std::to_string(size.free) + "] with " +
             std::to_string(size.non_zero) + " non-zero: " + shown_text(f->repro_path.empty() ? size.id : f->repro_path);
    }
    out += "\n";
  }
  return out;
}

std::vector<FailureGroup> merge_groups(const std::vector<const Certificate*>& certificates) {
  std::vector<FailureGroup> out;
  for (const Certificate* c : certificates) {
    for (const FailureGroup& g : c->failure_groups) {
      auto place = std::find_if(out.begin(), out.end(), [&](const FailureGroup& o) { return o.signature == g.signature; });
      if (place == out.end()) {
        out.push_back({g.signature, {}, 0});
        place = out.end() - 1;
      }
      for (const auto& [campaign, count] : g.failed) {
        place->failed[campaign] = add(place->failed[campaign], count, "merge: the failure group counts");
      }
      place->shown = add(place->shown, g.shown, "merge: the failure group counts");
    }
  }
  return out;
}

}  // namespace mxconform::certify
