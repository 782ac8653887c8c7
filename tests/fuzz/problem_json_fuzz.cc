// Fuzz target: the allocator's problem JSON (parse_problem_json, what `elastic-alloc` reads). A
// problem that parses must survive problem_to_json and parse again to the same JSON.
#include "elastic/allocator/problem_json.h"
#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const absl::StatusOr<elastic::alloc::Problem> problem =
      elastic::alloc::parse_problem_json(elastic::fuzz::as_text(data, size));
  if (!problem.ok()) return 0;
  const nlohmann::json json = elastic::alloc::problem_to_json(*problem);
  const absl::StatusOr<elastic::alloc::Problem> again = elastic::alloc::problem_from_json(json);
  FUZZ_CHECK(again.ok());
  FUZZ_CHECK(elastic::alloc::problem_to_json(*again) == json);
  return 0;
}
