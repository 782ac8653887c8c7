#include "elastic/worker/internal/repair.h"

#include <mpi-ext.h>

#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/mpi_check.h"

namespace elastic::rt {

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
        if (ok) MPI_Comm_set_errhandler(next_.get(), MPI_ERRORS_RETURN);
        // Did everybody get the shrunken communicator?
        agree(Step::kShrunk, ok ? next_.get() : current_, ok);
        break;
      }
      case Step::kShrunk:  // then: is it usable by all (no new failure)?
        if (!agreed) return retry(st);
        agree(Step::kUsable, next_.get(), 1);
        break;
      case Step::kUsable:
        if (!agreed) return retry(st);
        return std::move(next_);
    }
  }
}

std::optional<absl::StatusOr<coll::Comm>> CommRepair::retry(absl::Status why) {
  last_ = why.ok() ? absl::AbortedError("repair_comm: a survivor failed to shrink") : why;
  // A new failure during the repair: shrink the newest communicator again.
  if (next_) {
    MPIX_Comm_revoke(next_.get());
    shrunk_ = std::move(next_);
    current_ = shrunk_.get();
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
