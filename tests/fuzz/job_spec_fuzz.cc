// Fuzz target: job specs (parse_job_spec, what `elastic submit` reads). A spec that parses holds
// no string a spawn would cut short (a NUL), and round-trips through the queue's TOML and the
// journal's JSON unchanged.
#include <string>

#include "elastic/control/job_spec.h"
#include "fuzz_input.h"

namespace {

bool has_nul(const std::string& s) { return s.find('\0') != std::string::npos; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace elastic;
  const absl::StatusOr<rt::JobSpec> spec = rt::parse_job_spec(fuzz::as_text(data, size), "fuzz");
  if (!spec.ok()) return 0;
  FUZZ_CHECK(!has_nul(spec->command) && !has_nul(spec->workdir) && !has_nul(spec->checkpoint));
  for (const std::string& a : spec->args) FUZZ_CHECK(!has_nul(a));
  for (const auto& [k, v] : spec->env) FUZZ_CHECK(!has_nul(k) && !has_nul(v));
  const absl::StatusOr<rt::JobSpec> from_toml = rt::parse_job_spec(rt::job_spec_to_toml(*spec));
  FUZZ_CHECK(from_toml.ok());
  FUZZ_CHECK(*from_toml == *spec);
  const absl::StatusOr<rt::JobSpec> from_json = rt::job_spec_from_json(rt::job_spec_to_json(*spec));
  FUZZ_CHECK(from_json.ok());
  FUZZ_CHECK(*from_json == *spec);
  return 0;
}
