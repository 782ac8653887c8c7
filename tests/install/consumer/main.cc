// Solves a two-node problem through the installed library and prints the count: 2 (growing pays).
#include <cstdio>
#include <vector>

#include "elastic/allocator/allocator.h"

int main() {
  namespace alloc = elastic::alloc;
  alloc::Problem problem;
  problem.nodes = {{.name = "n1"}, {.name = "n2"}};
  alloc::Job job;
  job.id = "J1";
  job.max_nodes = 2;
  job.scaling =
      *alloc::PiecewiseLinear::create(std::vector<int>{1, 2}, std::vector<double>{10, 19});
  problem.jobs = {job};
  problem.solver = alloc::SolverKind::kDp;
  const auto allocation = alloc::allocate(problem);
  if (!allocation.ok()) {
    std::fprintf(stderr, "%s\n", allocation.status().ToString().c_str());
    return 1;
  }
  std::printf("count=%d\n", allocation->jobs[0].count);
  return 0;
}
