// Faults injected into MPIX_Comm_shrink for the repair tests (comm_repair_fault_test): the test
// program defines MPIX_Comm_shrink itself (shrink_fault.cc), which calls Open MPI's
// PMPIX_Comm_shrink and then, on the world rank the test names, makes the first call fail or the
// process die. Every other rank and call is left as Open MPI's. LOCAL; set before the repair.
#pragma once

namespace elastic::rt {

struct ShrinkFault {
  // This world rank's first shrink completes, but its communicator is freed and MPI_ERR_INTERN
  // returned (the others get theirs): "a survivor failed to shrink".
  int fail_first_on_rank = -1;
  // This world rank SIGKILLs itself right after its first shrink returned (the others hold a
  // communicator with a dead member): a second failure during the repair.
  int die_after_first_on_rank = -1;
};

// The fault of this process (one test per process: each ctest test runs one gtest test).
ShrinkFault& shrink_fault();
// How many times this process called MPIX_Comm_shrink (a retry shrinks again).
int shrink_calls();

}  // namespace elastic::rt
