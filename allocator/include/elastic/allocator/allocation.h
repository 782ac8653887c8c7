// What the allocator decided: per job a node count and node names, and how the solve went.
#pragma once

#include <string>
#include <vector>

#include "elastic/allocator/solvers.h"

namespace elastic::alloc {

enum class Change { kGrow, kShrink, kKeep };

struct JobAllocation {
  std::string id;
  int count = 0;
  std::vector<std::string> nodes;
  Change change = Change::kKeep;
};

struct Allocation {
  SolveStatus status = SolveStatus::kOptimal;
  double objective = 0.0;  // sum over jobs of gain_j (DESIGN.md), in value units x seconds
  double solve_ms = 0.0;
  std::vector<JobAllocation> jobs;   // same order as Problem::jobs
  std::vector<std::string> dropped;  // held nodes that had left the pool
};

}  // namespace elastic::alloc
