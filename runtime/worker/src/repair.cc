#include "elastic/worker/internal/repair.h"

#include <mpi-ext.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/mpi_check.h"

namespace elastic::rt {
namespace {

// LOCAL. Acknowledges every failure of `comm` that this process knows of
// (MPIX_Comm_ack_failed, the MPI 5 form of MPIX_Comm_failure_ack).
void ack_failures(MPI_Comm comm) {
  int size = 0;
  int acked = 0;
  MPI_Comm_size(comm, &size);
  MPIX_Comm_ack_failed(comm, size, &acked);
}

}  // namespace

CommRepair::CommRepair(const coll::Comm& broken, const RepairOptions& options)
    : options_(options),
      current_(broken.get()),
      last_(absl::AbortedError("repair_comm: no attempt made")) {
  MPIX_Comm_revoke(current_);
  // Bound for the blocking shrink: agree first that every live member has entered the repair.
  // A member that is alive but elsewhere (it finalized without failing, or gave up on this
  // communicator) never joins; the shrink would wait for it forever, the agreement times out.
  agree(Step::kPresent, current_, 1);
}

CommRepair::~CommRepair() {
  // An agreement that timed out cannot be freed or cancelled (MPI: a collective request) and may
  // still complete and write its flag: the int is left to it.
  if (req_ != MPI_REQUEST_NULL) (void)flag_.release();
}

void CommRepair::agree(Step step, MPI_Comm comm, int flag) {
  step_ = step;
  *flag_ = flag;
  posted_ = absl::OkStatus();
  deadline_ = coll::Clock::now() + options_.agree_timeout;
  if (const int rc = MPIX_Comm_iagree(comm, flag_.get(), &req_); rc != MPI_SUCCESS) {
    req_ = MPI_REQUEST_NULL;
    posted_ = coll::mpi_status(rc, "MPIX_Comm_iagree", __FILE__, __LINE__);
  }
}

std::optional<absl::StatusOr<coll::Comm>> CommRepair::test() {
  for (;;) {
    // The agreement's outcome. It also completes (with MPIX_ERR_PROC_FAILED) when a new failure is
    // detected; the flag, AND-ed over the survivors, is still uniform then.
    absl::Status st = posted_;
    if (req_ != MPI_REQUEST_NULL) {
      absl::StatusOr<bool> done = coll::test(req_, "MPI_Test(iagree)");
      if (done.ok() && !*done) {
        if (coll::Clock::now() < deadline_) return std::nullopt;
        const std::string late = absl::StrCat("MPIX_Comm_iagree did not complete within ",
                                              options_.agree_timeout.count(), " ms");
        return absl::DeadlineExceededError(
            step_ == Step::kPresent
                ? absl::StrCat("repair_comm: not every live member joined the repair: ", late)
                : late);
      }
      req_ = MPI_REQUEST_NULL;
      st = done.status();
    }
    const bool agreed = st.ok() && *flag_ != 0;
    switch (step_) {
      case Step::kPresent: {  // every live member is here (or a new failure): shrink
        const int ok = MPIX_Comm_shrink(current_, next_.out()) == MPI_SUCCESS ? 1 : 0;
        if (ok) {
          MPI_Comm_set_errhandler(next_.get(), MPI_ERRORS_RETURN);
        } else {
          (void)next_.release();  // whatever a failed shrink wrote there is not ours to free
        }
        // Did everybody get the shrunken communicator? Asked over current_, the one communicator
        // that every survivor holds whatever its shrink did. It holds the dead: an agreement
        // raises MPIX_ERR_PROC_FAILED for a failure that not every survivor acknowledged before
        // it, so the failures known here are acknowledged first (measured with Open MPI 5.0.7 in
        // worker.CommRepair.*: without it every such agreement failed, and the repair gave up
        // after max_attempts). A failure that some survivor has not seen yet still fails it, on
        // all: a retry.
        ack_failures(current_);
        agree(Step::kShrunk, current_, ok);
        break;
      }
      case Step::kShrunk:  // then: is it usable by all (no new failure)?
        // Not everybody has it: nobody uses it, and everybody shrinks current_ again.
        if (!agreed) return retry(st, /*everybody_has_next=*/false);
        agree(Step::kUsable, next_.get(), 1);
        break;
      case Step::kUsable:
        // A new failure in it: everybody repairs it (everybody has it).
        if (!agreed) return retry(st, /*everybody_has_next=*/true);
        return std::move(next_);
    }
  }
}

std::optional<absl::StatusOr<coll::Comm>> CommRepair::retry(absl::Status why,
                                                            bool everybody_has_next) {
  last_ = why.ok() ? absl::AbortedError("repair_comm: a survivor failed to shrink") : why;
  // Every survivor must go on from the same communicator, or the next agreement never completes.
  if (everybody_has_next) {
    MPIX_Comm_revoke(next_.get());
    shrunk_ = std::move(next_);
    current_ = shrunk_.get();
  } else {
    // Freed, not revoked: nobody uses it, and a revoke message would reach the survivors that
    // have freed theirs (a message to a freed communicator poisons its index: docs/runtime.md).
    next_.reset();
  }
  if (++attempt_ >= options_.max_attempts) {
    return absl::AbortedError(absl::StrCat("repair_comm: gave up after ", options_.max_attempts,
                                           " attempts; last error: ", last_.message()));
  }
  agree(Step::kPresent, current_, 1);
  return std::nullopt;
}

absl::StatusOr<coll::Comm> CommRepair::wait() {
  for (;;) {
    if (std::optional<absl::StatusOr<coll::Comm>> done = test()) return *std::move(done);
    std::this_thread::sleep_for(coll::kControlPace.sleep);
  }
}

absl::StatusOr<coll::Comm> repair_comm(const coll::Comm& broken, const RepairOptions& options) {
  return CommRepair(broken, options).wait();
}

std::vector<int> missing_ranks(MPI_Comm before, MPI_Comm after) {
  MPI_Group gb = MPI_GROUP_NULL;
  MPI_Group ga = MPI_GROUP_NULL;
  MPI_Comm_group(before, &gb);
  MPI_Comm_group(after, &ga);
  int n = 0;
  MPI_Group_size(gb, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n));
  std::vector<int> mapped(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) ranks[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(gb, n, ranks.data(), ga, mapped.data());
  std::vector<int> missing;
  for (int i = 0; i < n; ++i) {
    if (mapped[static_cast<std::size_t>(i)] == MPI_UNDEFINED) missing.push_back(i);
  }
  MPI_Group_free(&gb);
  MPI_Group_free(&ga);
  return missing;
}

}  // namespace elastic::rt
