#include "elastic/daemon/job_group.h"

#include <mpi-ext.h>

#include <algorithm>
#include <array>
#include <thread>
#include <utility>

#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/mpi_check.h"
#include "elastic/daemon/bounded_spawn.h"
#include "elastic/worker/internal/membership_error.h"
#include "elastic/worker/internal/protocol.h"
#include "elastic/worker/internal/repair.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace elastic::rt {

namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

JobGroup::JobGroup(LaunchSpec spec, Placement placement,
                   std::chrono::milliseconds directive_timeout,
                   std::chrono::milliseconds spawn_timeout)
    : spec_(std::move(spec)),
      placement_(std::move(placement)),
      directive_timeout_(directive_timeout),
      spawn_timeout_(spawn_timeout) {}

JobGroup::~JobGroup() {
  if (job_) abort();
}

std::vector<std::string> JobGroup::nodes() const {
  std::vector<std::string> out;
  for (const std::string& n : rank_nodes_) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

std::vector<std::string> JobGroup::rank_hosts() const {
  std::vector<std::string> out;
  for (const proto::Peer& p : rank_peers_) out.push_back(p.host);
  return out;
}

std::vector<std::string> JobGroup::misplaced() const {
  std::vector<std::string> out;
  if (placement_.fake_nodes) return out;
  for (std::size_t i = 0; i < rank_nodes_.size() && i < rank_peers_.size(); ++i) {
    if (rank_peers_[i].host != rank_nodes_[i]) {
      out.push_back(
          fmt::format("rank {}: node {}, host {}", i, rank_nodes_[i], rank_peers_[i].host));
    }
  }
  return out;
}

absl::Status JobGroup::exchange(std::span<int> data, const char* what) {
  const auto deadline = Clock::now() + directive_timeout_;
  absl::Status st = proto::exchange_ints(data, /*root=*/true, job_.get(), deadline, what);
  if (absl::IsDeadlineExceeded(st)) {
    return absl::DeadlineExceededError(
        fmt::format("job {}: its ranks did not all take the {} within {} ms", spec_.job_id, what,
                    directive_timeout_.count()));
  }
  // Whatever went wrong, the ranks must not wait on J for a controller that moves on.
  if (!st.ok()) job_.revoke();
  return membership_error(st);
}

absl::Status JobGroup::header(proto::Directive directive, int count, proto::Reason reason,
                              int list_sum) {
  proto::Header h{directive, count, generation_, reason, list_sum};
  proto::RawHeader raw = proto::encode(h);
  return exchange(raw, "directive");
}

absl::Status JobGroup::send_int(int dest, int tag, int value) {
  MPI_Request req = MPI_REQUEST_NULL;
  ELASTIC_MPI_CHECK(MPI_Isend(&value, 1, MPI_INT, dest, tag, job_.get(), &req));
  absl::Status st = coll::wait(req, Clock::now() + directive_timeout_, "send", coll::kControlPace);
  if (!st.ok()) job_.revoke();  // completes the request too
  return st;
}

absl::Status JobGroup::resume(proto::Reason reason) {
  // The ranks form C among themselves (MPI_Comm_create_group): nothing more for the controller.
  return header(proto::Directive::kResume, 0, reason);
}

SpawnRequest JobGroup::spawn_request(const std::string& node) const {
  SpawnRequest req;
  req.command = spec_.command;
  req.args = spec_.args;
  req.procs = std::max(1, spec_.ranks_per_node);
  req.info.emplace_back(
      "host", fmt::format("{}:{}", placement_.fake_nodes ? placement_.head_host : node, req.procs));
  req.info.emplace_back("map_by", ":OVERSUBSCRIBE");
  if (!placement_.fake_nodes) {
    // A node mpirun never saw (the pool grows), or one whose daemon was lost with it and that
    // came back: PRRTE starts a daemon there first (our PRRTE patch 0003 for the second case).
    req.info.emplace_back("PMIX_ADD_HOST", fmt::format("{}:{}", node, req.procs));
    req.info.emplace_back("bind_to", "none");
  }
  if (!spec_.workdir.empty()) req.info.emplace_back("wdir", spec_.workdir);
  // The ranks of a node leave on their own while the rest of their spawn's job goes on: no
  // job-wide fence in their MPI_Finalize (and, with our patch 0017, no ULFM drain over it).
  req.env = {"OMPI_MCA_async_mpi_finalize=1",
             "ELASTIC_JOB_ID=" + spec_.job_id,
             "ELASTIC_NODE=" + node,
             "ELASTIC_STDOUT=" + spec_.stdout_path.string(),
             "ELASTIC_STDERR=" + spec_.stderr_path.string(),
             "ELASTIC_CHECKPOINT=" + spec_.checkpoint_path.string()};
  if (placement_.fake_nodes) req.env.push_back("ELASTIC_FAKE_NODE=" + node);
  if (placement_.ranks_ignore_sigterm) req.env.push_back("ELASTIC_IGNORE_SIGTERM=1");
  for (const auto& [k, v] : spec_.env) req.env.push_back(k + "=" + v);
  return req;
}

absl::Status JobGroup::spawn_nodes(const std::vector<std::string>& nodes, int more) {
  std::vector<SpawnRequest> commands;
  for (const std::string& node : nodes) commands.push_back(spawn_request(node));
  // map_by and bind_to are keys of the whole job: Open MPI 5.0.7 takes them from every command's
  // info and refuses the spawn when one is repeated, even with the same value (dpm_convert: the
  // second ":OVERSUBSCRIBE" is a "conflicting directive"). The first command carries them.
  for (std::size_t i = 1; i < commands.size(); ++i) {
    std::erase_if(commands[i].info,
                  [](const auto& kv) { return kv.first == "map_by" || kv.first == "bind_to"; });
  }
  const bool first = !job_;
  absl::StatusOr<coll::Comm> inter =
      bounded_spawn(commands, first ? nullptr : &job_, spawn_timeout_);
  if (!inter.ok()) {
    if (absl::IsDeadlineExceeded(inter.status())) {
      // J (if any) went to the abandoned spawn, revoked: this job cannot go on.
      fatal_ =
          fmt::format("nodes {}: {}", fmt::join(nodes, ","), std::string(inter.status().message()));
      depart_all();
    }
    return inter.status();
  }
  coll::Comm merged;
  if (const int rc = MPI_Intercomm_merge(inter->get(), 0, merged.out()); rc != MPI_SUCCESS) {
    return membership_error(coll::mpi_status(rc, "MPI_Intercomm_merge", __FILE__, __LINE__));
  }
  MPI_Comm_set_errhandler(merged.get(), MPI_ERRORS_RETURN);
  job_ = std::move(merged);
  int added = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {  // MPI ranks the commands' processes in order
    rank_nodes_.insert(rank_nodes_.end(), static_cast<std::size_t>(commands[i].procs), nodes[i]);
    added += commands[i].procs;
  }
  rank_peers_.resize(rank_nodes_.size());
  absl::StatusOr<std::vector<proto::Peer>> peers =
      proto::connect_all(job_.get(), Clock::now() + directive_timeout_);
  if (!peers.ok()) {
    job_.revoke();
    return membership_error(peers.status());
  }
  rank_peers_.assign(peers->begin() + 1, peers->end());  // J rank 0 is this controller
  for (int r = job_.size() - added; r < job_.size(); ++r) {
    if (absl::Status st = send_int(r, proto::kTagSpawns, more); !st.ok()) {
      return membership_error(st);
    }
  }
  return absl::OkStatus();
}

std::vector<std::vector<std::string>> JobGroup::spawn_series(
    const std::vector<std::string>& nodes) const {
  if (!one_by_one_) return {nodes};
  std::vector<std::vector<std::string>> series;
  for (const std::string& node : nodes) series.push_back({node});
  return series;
}

absl::Status JobGroup::add_nodes(const std::vector<std::vector<std::string>>& series,
                                 proto::Reason reason) {
  const int count = static_cast<int>(series.size());
  absl::Status refused;
  for (int i = 0; i < count; ++i) {
    const std::vector<std::string>& batch = series[static_cast<std::size_t>(i)];
    const bool first = !job_;
    absl::Status st = spawn_nodes(batch, count - 1 - i);
    if (st.ok()) continue;
    // A node that cannot be reached refuses the whole spawn of several: spawn one by one from
    // now on, so that the others join without it.
    if (absl::IsUnavailable(st) && batch.size() > 1) one_by_one_ = true;
    if (first) {
      abort();
      return st;
    }
    if (!absl::IsUnavailable(st)) return handle_error(st);
    // Refused (the spawn itself, e.g. an unknown host): J is intact. With no node added, the
    // ranks' parts failed alike and they train on (no switch, so no kResume to take); else they
    // switch to the J of the nodes added before.
    if (i == 0) return st;
    refused = st;
    break;
  }
  if (refused.ok() && count > 1) one_by_one_ = false;
  if (absl::Status st = resume(reason); !st.ok()) return handle_error(st);
  return refused;
}

absl::Status JobGroup::start(const std::vector<std::string>& nodes) {
  if (nodes.empty()) return absl::InvalidArgumentError("start: no nodes");
  generation_ = 1;
  absl::Status st = add_nodes(spawn_series(nodes), proto::Reason::kStart);
  if (absl::IsUnavailable(st) && one_by_one_ && nodes.size() > 1) {
    // Nothing started and nobody waits for a spawn count yet: start again node by node.
    st = add_nodes(spawn_series(nodes), proto::Reason::kStart);
  }
  return st;
}

absl::Status JobGroup::await_spawn_confirmation() {
  spawns_confirmed_ = false;
  const auto deadline = Clock::now() + directive_timeout_;
  while (!spawns_confirmed_) {
    poll_into(stashed_);
    if (absl::Status st = settle_repair(); !st.ok()) stashed_.error = std::string(st.message());
    if (spawns_confirmed_) break;
    if (stashed_.done) return absl::CancelledError("the job finished before the grow");
    if (stashed_.error || !job_) return absl::AbortedError("the job failed before the grow");
    if (!lost_.empty()) return absl::AbortedError("a node was lost before the grow");
    if (Clock::now() > deadline) {
      abort();
      return absl::DeadlineExceededError(
          fmt::format("job {}: its leader did not take the grow within {} ms", spec_.job_id,
                      directive_timeout_.count()));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return absl::OkStatus();
}

absl::Status JobGroup::grow(const std::vector<std::string>& nodes) {
  if (absl::Status st = settle_repair(); !st.ok()) return st;
  if (nodes.empty() || !job_) return absl::OkStatus();
  std::vector<std::vector<std::string>> series = spawn_series(std::vector<std::string>(
      nodes.begin(),
      nodes.begin() +
          std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(nodes.size()), proto::kMaxSpawns)));
  if (absl::Status st = send_int(1, proto::kTagSpawns, static_cast<int>(series.size())); !st.ok()) {
    return handle_error(st);
  }
  if (absl::Status st = await_spawn_confirmation(); !st.ok()) return st;
  ++generation_;
  return add_nodes(series, proto::Reason::kPlan);
}

absl::Status JobGroup::shrink(const std::vector<std::string>& nodes) {
  if (absl::Status st = settle_repair(); !st.ok()) return st;
  if (nodes.empty() || !job_) return absl::OkStatus();
  std::vector<int> leaving;
  for (std::size_t i = 0; i < rank_nodes_.size(); ++i) {
    if (std::find(nodes.begin(), nodes.end(), rank_nodes_[i]) != nodes.end()) {
      leaving.push_back(static_cast<int>(i) + 1);
    }
  }
  if (leaving.empty()) return absl::OkStatus();
  if (leaving.size() == rank_nodes_.size()) return stop(true);
  // A failure before the split: the group repairs (or aborts), and no rank left; the job keeps
  // the nodes (but those the failure took), so this is not a shrink even when the repair works.
  auto interrupted = [this](const absl::Status& cause) {
    absl::Status st = handle_error(cause);
    if (!st.ok()) return st;
    return absl::AbortedError(
        absl::StrCat("interrupted by a failure (", cause.message(), "); repaired, no rank left"));
  };
  if (absl::Status st = send_order(); !st.ok()) return interrupted(st);
  ++generation_;
  if (absl::Status st = header(proto::Directive::kLeave, static_cast<int>(leaving.size()),
                               proto::Reason::kPlan, proto::list_checksum(leaving));
      !st.ok()) {
    return interrupted(st);
  }
  if (absl::Status st = exchange(leaving, "leaving list"); !st.ok()) return interrupted(st);
  // Every rank took the list (the exchange completes only then), so all of J enters this split;
  // a rank that fails in it is reported by ULFM, one that finds the list invalid revokes J.
  coll::Comm next;
  if (const int rc = MPI_Comm_split(job_.get(), 0, 0, next.out()); rc != MPI_SUCCESS) {
    return interrupted(coll::mpi_status(rc, "MPI_Comm_split(leave)", __FILE__, __LINE__));
  }
  MPI_Comm_set_errhandler(next.get(), MPI_ERRORS_RETURN);
  job_ = std::move(next);
  for (auto it = leaving.rbegin(); it != leaving.rend(); ++it) {
    depart(static_cast<std::size_t>(*it - 1));
  }
  if (absl::Status st = resume(proto::Reason::kPlan); !st.ok()) return handle_error(st);
  return absl::OkStatus();
}

void JobGroup::record(const std::array<double, proto::kProgressDoubles>& p) {
  samples_total_ = p[0];
  samples_per_s_ = p[1];
  progress_steps_ = p[2];
  progress_ranks_ = static_cast<int>(p[3]);
  if (p[4] > 0) step_s_ = p[4];
}

void JobGroup::take_last_progress() {
  for (;;) {
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, proto::kTagProgress, job_.get(), &flag, &status) !=
            MPI_SUCCESS ||
        !flag) {
      return;
    }
    std::array<double, proto::kProgressDoubles> p{};
    if (MPI_Recv(p.data(), proto::kProgressDoubles, MPI_DOUBLE, status.MPI_SOURCE,
                 proto::kTagProgress, job_.get(), MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      return;
    }
    record(p);
  }
}

absl::Status JobGroup::stop(bool wait_boundary) {
  if (absl::Status st = settle_repair(); !st.ok()) return st;
  if (!job_) return absl::OkStatus();
  absl::Status st = wait_boundary ? send_order() : absl::OkStatus();
  if (st.ok()) st = header(proto::Directive::kStop, 0, proto::Reason::kPlan);
  if (!st.ok()) {
    abort();
    return st;
  }
  // The leader sent its full count before it took the stop (Session::step_boundary); messages
  // from one peer on J arrive in order, so it is here now.
  take_last_progress();
  job_.reset();
  depart_all();
  return absl::OkStatus();
}

void JobGroup::abort() {
  repair_.reset();  // before J, which it repairs
  job_.revoke();
  job_.reset();
  depart_all();
}

void JobGroup::depart(std::size_t index) {
  departed_.push_back(Departed{rank_nodes_[index], rank_peers_[index].pid});
  rank_nodes_.erase(rank_nodes_.begin() + static_cast<std::ptrdiff_t>(index));
  rank_peers_.erase(rank_peers_.begin() + static_cast<std::ptrdiff_t>(index));
}

void JobGroup::depart_all() {
  while (!rank_nodes_.empty()) depart(rank_nodes_.size() - 1);
}

absl::Status JobGroup::handle_error(const absl::Status& error) {
  if (absl::IsAborted(error)) return repair();
  if (absl::IsDeadlineExceeded(error)) abort();
  return error;  // Unavailable (a refused spawn) leaves J usable: the caller decides
}

bool JobGroup::begin_repair() {
  if (repair_) return false;
  repair_.emplace(job_, RepairOptions{});
  repair_began_ = Clock::now();
  return true;
}

std::optional<absl::Status> JobGroup::step_repair(bool wait) {
  std::optional<absl::StatusOr<coll::Comm>> fixed = wait ? repair_->wait() : repair_->test();
  if (!fixed) return std::nullopt;
  repair_.reset();
  repair_ms_ = std::chrono::duration<double, std::milli>(Clock::now() - repair_began_).count();
  return end_repair(*std::move(fixed));
}

absl::Status JobGroup::repair() {
  begin_repair();
  return *step_repair(/*wait=*/true);
}

absl::Status JobGroup::settle_repair() {
  return repair_ ? *step_repair(/*wait=*/true) : absl::OkStatus();
}

void JobGroup::repair_in_poll(PollResult& out) {
  if (begin_repair()) out.repair_started = true;
  if (std::optional<absl::Status> st = step_repair(/*wait=*/false)) {
    out.repair_ended = true;
    if (!st->ok()) out.error = std::string(st->message());
  }
}

absl::Status JobGroup::end_repair(absl::StatusOr<coll::Comm> fixed) {
  if (!fixed.ok()) {
    abort();
    return fixed.status();
  }
  const std::vector<int> missing = missing_ranks(job_.get(), fixed->get());
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    const auto idx = static_cast<std::size_t>(*it - 1);
    if (*it < 1 || idx >= rank_nodes_.size()) continue;
    if (std::find(lost_.begin(), lost_.end(), rank_nodes_[idx]) == lost_.end()) {
      lost_.push_back(rank_nodes_[idx]);
    }
    depart(idx);
  }
  job_ = *std::move(fixed);
  ++generation_;
  if (rank_nodes_.empty()) {
    job_.reset();
    return absl::OkStatus();
  }
  // A node is lost whole: drop the ranks that survive on a node that lost some (Open MPI kills
  // the siblings of a dead rank's spawn call anyway).
  std::vector<std::string> partial;
  for (const std::string& n : rank_nodes_) {
    if (std::find(lost_.begin(), lost_.end(), n) != lost_.end()) partial.push_back(n);
  }
  if (absl::Status st = resume(proto::Reason::kRepair); !st.ok()) {
    if (absl::IsAborted(st)) return repair();
    abort();
    return st;
  }
  if (!partial.empty()) return shrink(partial);
  return absl::OkStatus();
}

bool JobGroup::receive(void* buf, int count, MPI_Datatype type, const MPI_Status& probed,
                       PollResult& out) {
  const int rc =
      MPI_Recv(buf, count, type, probed.MPI_SOURCE, probed.MPI_TAG, job_.get(), MPI_STATUS_IGNORE);
  if (rc == MPI_SUCCESS) return true;
  if (coll::is_process_failure(rc)) {
    repair_in_poll(out);
  } else {
    out.error = std::string(coll::mpi_status(rc, "MPI_Recv(poll)", __FILE__, __LINE__).message());
    abort();
  }
  return false;
}

PollResult JobGroup::poll() {
  PollResult out = std::exchange(stashed_, {});
  poll_into(out);
  out.lost_nodes = take_lost();
  return out;
}

void JobGroup::poll_into(PollResult& out) {
  if (fatal_) {
    out.error = std::exchange(fatal_, std::nullopt);
    abort();
    return;
  }
  if (repair_) {  // J is not read until its repair ends
    repair_in_poll(out);
    if (repair_ || out.error) return;
  }
  for (int i = 0; i < 64 && job_; ++i) {
    int flag = 0;
    MPI_Status status;
    const int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, job_.get(), &flag, &status);
    if (rc != MPI_SUCCESS) {
      if (coll::is_process_failure(rc)) {
        repair_in_poll(out);
      } else {
        out.error = std::string(coll::mpi_status(rc, "MPI_Iprobe", __FILE__, __LINE__).message());
        abort();
      }
      break;
    }
    if (!flag) break;
    const int src = status.MPI_SOURCE;
    if (status.MPI_TAG == proto::kTagProgress) {
      std::array<double, proto::kProgressDoubles> p{};
      if (!receive(p.data(), proto::kProgressDoubles, MPI_DOUBLE, status, out)) break;
      record(p);
      out.progressed = true;
    } else if (status.MPI_TAG == proto::kTagDone) {
      int code = 0;
      if (!receive(&code, 1, MPI_INT, status, out)) break;
      out.done = true;
      break;  // the ranks wait in follow() for kStop
    } else if (status.MPI_TAG == proto::kTagSpawns) {
      int count = 0;
      if (!receive(&count, 1, MPI_INT, status, out)) break;
      spawns_confirmed_ = true;
    } else if (status.MPI_TAG == proto::kTagExit) {
      std::array<int, 2> p{};
      if (!receive(p.data(), 2, MPI_INT, status, out)) break;
      const auto idx = static_cast<std::size_t>(src - 1);
      out.error = fmt::format("rank {} on node {} exited with code {}", src - 1,
                              idx < rank_nodes_.size() ? rank_nodes_[idx] : "?", p[0]);
      abort();
      break;
    } else {
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      std::vector<char> sink(static_cast<std::size_t>(std::max(bytes, 1)));
      if (!receive(sink.data(), bytes, MPI_BYTE, status, out)) break;
    }
  }
  // MPI_Iprobe never reports a failed peer, and a job that lost every rank at once (its only host
  // vanished) sends nothing that would: a failure this process already knows of is repaired here.
  if (job_ && !repair_ && !out.done && !out.error && coll::failed_processes(job_.get()) > 0) {
    repair_in_poll(out);
  }
}

}  // namespace elastic::rt
