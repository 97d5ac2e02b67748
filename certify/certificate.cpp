// Certificates: the YAML certificate, JUnit XML, reading a certificate back, merging the
// certificates of shards, and the verdict table.
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "certification.h"
#include "mxconform/error.h"

namespace mxconform::certify {

// ---- Reports. ----

std::string to_yaml(const Certificate& certificate) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "mxconform_certificate" << YAML::Value << 1;
  out << YAML::Key << "verdict" << YAML::Value << (certificate.certified() ? "certified" : "not certified");
  for (const auto& [key, value] : certificate.header) {
    if (key != "verdict") out << YAML::Key << key << YAML::Value << value;
  }
  out << YAML::Key << "cases" << YAML::Value << certificate.cases;
  out << YAML::Key << "configurations" << YAML::Value << YAML::BeginSeq;
  for (const auto& c : certificate.configurations) out << c;
  out << YAML::EndSeq;
  out << YAML::Key << "coverage" << YAML::Value << YAML::BeginMap;
  for (const auto& [cls, count] : certificate.coverage) out << YAML::Key << cls << YAML::Value << count;
  out << YAML::EndMap;
  out << YAML::Key << "results" << YAML::Value << YAML::BeginSeq;
  for (const Tally& t : certificate.tallies) {
    out << YAML::BeginMap << YAML::Key << "campaign" << YAML::Value << t.campaign << YAML::Key << "configuration"
        << YAML::Value << t.configuration << YAML::Key << "output" << YAML::Value << t.output;
    out << YAML::Key << "outcomes" << YAML::Value << YAML::BeginMap;
    for (const auto& [outcome, count] : t.outcomes) out << YAML::Key << outcome << YAML::Value << count;
    out << YAML::EndMap;
    if (!t.unsupported.empty()) out << YAML::Key << "not_supported" << YAML::Value << t.unsupported;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "failures" << YAML::Value << YAML::BeginSeq;
  for (const Failure& f : certificate.failures) {
    out << YAML::BeginMap << YAML::Key << "campaign" << YAML::Value << f.campaign << YAML::Key << "case" << YAML::Value
        << f.case_id << YAML::Key << "configuration" << YAML::Value << f.configuration << YAML::Key << "knobs"
        << YAML::Value << f.knobs << YAML::Key << "outcome"
        << YAML::Value << name(f.outcome) << YAML::Key << "detail" << YAML::Value << f.detail;
    if (!f.repro_path.empty()) out << YAML::Key << "repro_file" << YAML::Value << f.repro_path;
    out << YAML::Key << "repro" << YAML::Value << YAML::Literal << f.repro_yaml << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

namespace {

std::string xml_escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') out += ' ';
        else out += ch;
    }
  }
  return out;
}

Outcome outcome_named(const std::string& text) {
  for (int i = 0; i <= static_cast<int>(Outcome::kUnsupported); ++i) {
    if (text == name(static_cast<Outcome>(i))) return static_cast<Outcome>(i);
  }
  throw Error("unknown outcome '" + text + "'");
}

}  // namespace

std::string to_junit(const Certificate& certificate) {
  std::map<std::string, std::vector<const Tally*>> suites;
  for (const Tally& t : certificate.tallies) suites[t.campaign].push_back(&t);
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"mxconform certify "
      << xml_escape(certificate.header.count("backend") ? certificate.header.at("backend") : "") << "\">\n";
  for (const auto& [campaign, tallies] : suites) {
    std::size_t failures = 0, skipped = 0;
    for (const Tally* t : tallies) {
      bool failed = false;
      for (const auto& [o, n] : t->outcomes) failed |= n > 0 && is_failure(outcome_named(o));
      failures += failed;
      skipped += !failed && !t->unsupported.empty() && t->outcomes.count("pass") == 0;
    }
    out << "  <testsuite name=\"" << campaign << "\" tests=\"" << tallies.size() << "\" failures=\"" << failures
        << "\" skipped=\"" << skipped << "\">\n";
    for (const Tally* t : tallies) {
      out << "    <testcase classname=\"" << campaign << "\" name=\"" << xml_escape(t->configuration) << "\">";
      std::string failed_outcomes;
      for (const auto& [o, n] : t->outcomes) {
        if (n > 0 && is_failure(outcome_named(o))) failed_outcomes += o + " x" + std::to_string(n) + " ";
      }
      if (!failed_outcomes.empty()) {
        out << "\n      <failure message=\"" << xml_escape(failed_outcomes) << "\">";
        for (const Failure& f : certificate.failures) {
          if (f.campaign == campaign && f.knobs == t->configuration) {
            out << xml_escape(f.case_id + ": " + name(f.outcome) + ": " + f.detail + "\n" + f.repro_yaml) << "\n";
          }
        }
        out << "</failure>\n    ";
      } else if (!t->unsupported.empty() && t->outcomes.count("pass") == 0) {
        out << "<skipped message=\"" << xml_escape("not supported: " + t->unsupported) << "\"/>";
      }
      out << "</testcase>\n";
    }
    out << "  </testsuite>\n";
  }
  out << "</testsuites>\n";
  return out.str();
}

Certificate read_certificate(const std::string& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::Exception& error) {
    throw Error(path + ": not a certificate: " + error.what());
  }
  if (!root.IsMap() || !root["mxconform_certificate"] || root["mxconform_certificate"].as<int>() != 1) {
    throw Error(path + ": not an mxconform certificate (no mxconform_certificate: 1)");
  }
  Certificate c;
  try {
    for (const auto& entry : root) {
      const std::string key = entry.first.as<std::string>();
      if (entry.second.IsScalar() && key != "cases" && key != "mxconform_certificate") c.header[key] = entry.second.as<std::string>();
    }
    c.cases = root["cases"].as<std::size_t>();
    for (const auto& n : root["configurations"]) c.configurations.push_back(n.as<std::string>());
    for (const auto& n : root["coverage"]) c.coverage[n.first.as<std::string>()] = n.second.as<std::size_t>();
    for (const auto& n : root["results"]) {
      Tally t{n["campaign"].as<std::string>(), n["configuration"].as<std::string>(), n["output"].as<std::string>(), {}, {}};
      for (const auto& o : n["outcomes"]) t.outcomes[o.first.as<std::string>()] = o.second.as<std::size_t>();
      if (n["not_supported"]) t.unsupported = n["not_supported"].as<std::string>();
      c.tallies.push_back(t);
    }
    for (const auto& n : root["failures"]) {
      Failure f;
      f.campaign = n["campaign"].as<std::string>();
      f.case_id = n["case"].as<std::string>();
      f.configuration = n["configuration"].as<std::string>();
      f.knobs = n["knobs"].as<std::string>();
      f.outcome = outcome_named(n["outcome"].as<std::string>());
      f.detail = n["detail"].as<std::string>();
      if (n["repro_file"]) f.repro_path = n["repro_file"].as<std::string>();
      f.repro_yaml = n["repro"].as<std::string>();
      c.failures.push_back(f);
    }
  } catch (const std::exception& error) {
    throw Error(path + ": malformed certificate: " + error.what());
  }
  return c;
}

Certificate merge(const std::vector<Certificate>& shards) {
  if (shards.empty()) throw Error("merge: no certificates given");
  Certificate merged;
  merged.header = shards.front().header;
  merged.configurations = shards.front().configurations;
  std::map<std::pair<std::string, std::string>, std::size_t> tally_of;
  std::set<std::string> shard_names;
  for (const Certificate& shard : shards) {
    for (const char* key : {"backend_sha256", "seed", "level", "all_knobs", "corpus_sha256"}) {
      const auto a = merged.header.find(key);
      const auto b = shard.header.find(key);
      if ((a == merged.header.end()) != (b == shard.header.end()) || (a != merged.header.end() && a->second != b->second)) {
        throw Error(std::string("merge: the shards differ in ") + key + "; they are not one campaign");
      }
    }
    const std::string shard_name = shard.header.count("shard") ? shard.header.at("shard") : "?";
    if (!shard_names.insert(shard_name).second) throw Error("merge: shard " + shard_name + " given twice");
    merged.cases += shard.cases;
    for (const Tally& t : shard.tallies) {
      const auto key = std::make_pair(t.campaign, t.configuration);
      if (tally_of.count(key) == 0) {
        tally_of[key] = merged.tallies.size();
        merged.tallies.push_back({t.campaign, t.configuration, t.output, {}, t.unsupported});
      }
      for (const auto& [o, n] : t.outcomes) merged.tallies[tally_of[key]].outcomes[o] += n;
    }
    merged.failures.insert(merged.failures.end(), shard.failures.begin(), shard.failures.end());
    for (const auto& [cls, n] : shard.coverage) merged.coverage[cls] += n;
  }
  std::string shard_list;
  for (const auto& s : shard_names) shard_list += (shard_list.empty() ? "" : ",") + s;
  merged.header["shard"] = "merged " + shard_list;
  merged.header["verdict"] = merged.certified() ? "certified" : "not certified";
  return merged;
}

std::string verdict_table(const Certificate& certificate) {
  std::ostringstream out;
  char line[512];
  std::snprintf(line, sizeof line, "%-11s %-90s %7s %7s %s\n", "campaign", "configuration", "pass", "fail", "verdict");
  out << line;
  for (const Tally& t : certificate.tallies) {
    std::size_t pass = 0, fail = 0;
    std::string kinds;
    for (const auto& [o, n] : t.outcomes) {
      if (o == name(Outcome::kPass)) pass += n;
      else if (o != name(Outcome::kUnsupported)) {
        fail += n;
        kinds += (kinds.empty() ? "" : ",") + o;
      }
    }
    const std::string verdict = fail > 0 ? "FAIL (" + kinds + ")" : (pass == 0 && !t.unsupported.empty() ? "not supported" : "pass");
    std::snprintf(line, sizeof line, "%-11s %-90s %7zu %7zu %s\n", t.campaign.c_str(), t.configuration.c_str(), pass, fail,
                  verdict.c_str());
    out << line;
  }
  out << (certificate.certified() ? "CERTIFIED" : "NOT CERTIFIED") << ": " << certificate.cases << " cases, "
      << certificate.failures.size() << " failure(s) recorded\n";
  return out.str();
}

}  // namespace mxconform::certify
