// Open MPI settings that decide how the MPI backend runs an allreduce, read through the standard
// MPI_T control-variable interface, in this one file.
//
// Measured here (bench/collectives, Open MPI 5.0.7, shared memory, 2 ranks): a bounded allreduce
// needs MPI_Iallreduce + a test loop, and libnbc runs an in-place Iallreduce with its binomial
// algorithm: 0.3-0.6x of the blocking MPI_Allreduce at 1-16 MiB, however the loop spins (MPI_Wait
// is no faster). libnbc's reduce-scatter + allgather (MCA coll_libnbc_iallreduce_algorithm=3,
// settable through MPI_T) matches the blocking call, but it sums each element in an order that
// depends on the element's position, so a fused allreduce would no longer equal the unfused one
// bit for bit (tests/collectives Fusion.EqualsUnfusedBitwise fails at 4+ ranks): not used.
// Under ULFM a blocking MPI_Allreduce returns MPIX_ERR_PROC_FAILED / REVOKED when a peer dies, so
// when the caller's bound is long anyway the plain blocking call is safe and as fast as raw MPI.
#pragma once

namespace elastic::coll::mpi {

// True when this process runs with ULFM failure reporting on (`mpirun --with-ft ulfm`: the
// mpi_ft_enable control variable). LOCAL; read once, then cached.
bool process_failures_reported();

}  // namespace elastic::coll::mpi
