#include "elastic/daemon/job_group.h"

#include <mpi-ext.h>

#include <algorithm>
#include <array>
#include <thread>

#include "elastic/collectives/mpi_check.h"
#include "elastic/protocol.h"
#include "elastic/repair.h"
#include "fmt/format.h"

namespace elastic::rt {

namespace {

using Clock = std::chrono::steady_clock;

// RAII MPI_Info.
class Info {
 public:
  Info() { MPI_Info_create(&info_); }
  ~Info() { MPI_Info_free(&info_); }
  Info(const Info&) = delete;
  Info& operator=(const Info&) = delete;
  void set(const char* key, const std::string& value) { MPI_Info_set(info_, key, value.c_str()); }
  MPI_Info get() const { return info_; }

 private:
  MPI_Info info_ = MPI_INFO_NULL;
};

}  // namespace

JobGroup::JobGroup(LaunchSpec spec, Placement placement,
                   std::chrono::milliseconds directive_timeout)
    : spec_(std::move(spec)), placement_(std::move(placement)),
      directive_timeout_(directive_timeout) {}

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

absl::Status JobGroup::broadcast(int* data, int count) {
  MPI_Request req = MPI_REQUEST_NULL;
  ELASTIC_MPI_CHECK(MPI_Ibcast(data, count, MPI_INT, 0, job_.get(), &req));
  const auto deadline = Clock::now() + directive_timeout_;
  for (;;) {
    int done = 0;
    ELASTIC_MPI_CHECK(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    if (done) return absl::OkStatus();
    if (Clock::now() > deadline) {
      return absl::DeadlineExceededError(fmt::format(
          "job {}: its ranks did not reach a step boundary within {} ms", spec_.job_id,
          directive_timeout_.count()));
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

absl::Status JobGroup::header(int directive, int count, int reason) {
  proto::Header h{static_cast<proto::Directive>(directive), count, generation_, reason};
  std::array<int, proto::kHeaderInts> raw = proto::encode(h);
  return broadcast(raw.data(), proto::kHeaderInts);
}

absl::Status JobGroup::send_order() {
  int code = proto::kOrderFollow;
  // The leader is J rank 1 (the oldest rank); a small message, sent eagerly.
  ELASTIC_MPI_CHECK(MPI_Send(&code, 1, MPI_INT, 1, proto::kTagOrder, job_.get()));
  return absl::OkStatus();
}

absl::Status JobGroup::resume(int reason) {
  if (absl::Status st = header(static_cast<int>(proto::Directive::kResume), 0, reason); !st.ok()) {
    return st;
  }
  // The controller is not part of the compute communicator.
  Comm none;
  ELASTIC_MPI_CHECK(MPI_Comm_split(job_.get(), MPI_UNDEFINED, 0, none.out()));
  return absl::OkStatus();
}

absl::Status JobGroup::spawn_node(const std::string& node, bool first) {
  Info info;
  const int n = std::max(1, spec_.ranks_per_node);
  info.set("host", fmt::format("{}:{}", placement_.fake_nodes ? placement_.head_host : node, n));
  info.set("map_by", ":OVERSUBSCRIBE");
  if (!spec_.workdir.empty()) info.set("wdir", spec_.workdir);
  std::string env = fmt::format("ELASTIC_JOB_ID={}\nELASTIC_NODE={}\nELASTIC_STDOUT={}\nELASTIC_STDERR={}",
                                spec_.job_id, node, spec_.stdout_path.string(),
                                spec_.stderr_path.string());
  if (placement_.fake_nodes) env += fmt::format("\nELASTIC_FAKE_NODE={}", node);
  for (const auto& [k, v] : spec_.env) env += fmt::format("\n{}={}", k, v);
  info.set("PMIX_ENVAR", env);
  std::vector<char*> argv;
  for (const std::string& a : spec_.args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (!first) {
    ++generation_;
    if (absl::Status st = header(static_cast<int>(proto::Directive::kSpawn), 0, 0); !st.ok()) {
      return st;
    }
  }
  Comm inter;
  std::vector<int> errcodes(static_cast<std::size_t>(n), MPI_SUCCESS);
  ELASTIC_MPI_CHECK(MPI_Comm_spawn(spec_.command.c_str(), argv.data(), n, info.get(), 0,
                                   first ? MPI_COMM_SELF : job_.get(), inter.out(),
                                   errcodes.data()));
  MPI_Comm_set_errhandler(inter.get(), MPI_ERRORS_RETURN);
  Comm merged;
  ELASTIC_MPI_CHECK(MPI_Intercomm_merge(inter.get(), 0, merged.out()));
  MPI_Comm_set_errhandler(merged.get(), MPI_ERRORS_RETURN);
  job_ = std::move(merged);
  rank_nodes_.insert(rank_nodes_.end(), static_cast<std::size_t>(n), node);
  return absl::OkStatus();
}

absl::Status JobGroup::start(const std::vector<std::string>& nodes) {
  if (nodes.empty()) return absl::InvalidArgumentError("start: no nodes");
  generation_ = 1;
  if (absl::Status st = spawn_node(nodes.front(), /*first=*/true); !st.ok()) {
    abort();
    return st;
  }
  for (std::size_t i = 1; i < nodes.size(); ++i) {
    if (absl::Status st = spawn_node(nodes[i], false); !st.ok()) return handle_error(st);
  }
  if (absl::Status st = resume(2); !st.ok()) return handle_error(st);
  return absl::OkStatus();
}

absl::Status JobGroup::grow(const std::vector<std::string>& nodes) {
  if (nodes.empty() || !job_) return absl::OkStatus();
  if (absl::Status st = send_order(); !st.ok()) return handle_error(st);
  for (const std::string& node : nodes) {
    if (absl::Status st = spawn_node(node, false); !st.ok()) {
      absl::Status handled = handle_error(st);
      if (!handled.ok() || !job_) return handled;
      // Not a process failure (the spawn itself was refused): carry on with what we have.
      if (absl::Status r = resume(0); !r.ok()) return handle_error(r);
      return st;
    }
  }
  if (absl::Status st = resume(0); !st.ok()) return handle_error(st);
  return absl::OkStatus();
}

absl::Status JobGroup::shrink(const std::vector<std::string>& nodes) {
  if (nodes.empty() || !job_) return absl::OkStatus();
  std::vector<int> leaving;
  std::vector<std::string> keep;
  for (std::size_t i = 0; i < rank_nodes_.size(); ++i) {
    if (std::find(nodes.begin(), nodes.end(), rank_nodes_[i]) != nodes.end()) {
      leaving.push_back(static_cast<int>(i) + 1);
    } else {
      keep.push_back(rank_nodes_[i]);
    }
  }
  if (leaving.empty()) return absl::OkStatus();
  if (keep.empty()) return stop(true);
  if (absl::Status st = send_order(); !st.ok()) return handle_error(st);
  ++generation_;
  if (absl::Status st = header(static_cast<int>(proto::Directive::kLeave),
                               static_cast<int>(leaving.size()), 0);
      !st.ok()) {
    return handle_error(st);
  }
  if (absl::Status st = broadcast(leaving.data(), static_cast<int>(leaving.size())); !st.ok()) {
    return handle_error(st);
  }
  Comm next;
  if (const int rc = MPI_Comm_split(job_.get(), 0, 0, next.out()); rc != MPI_SUCCESS) {
    return handle_error(coll::mpi_status(rc, "MPI_Comm_split(leave)", __FILE__, __LINE__));
  }
  MPI_Comm_set_errhandler(next.get(), MPI_ERRORS_RETURN);
  job_ = std::move(next);
  rank_nodes_ = std::move(keep);
  if (absl::Status st = resume(0); !st.ok()) return handle_error(st);
  return absl::OkStatus();
}

absl::Status JobGroup::stop(bool wait_boundary) {
  if (!job_) return absl::OkStatus();
  absl::Status st = wait_boundary ? send_order() : absl::OkStatus();
  if (st.ok()) st = header(static_cast<int>(proto::Directive::kStop), 0, 0);
  if (!st.ok()) {
    abort();
    return st;
  }
  job_.reset();
  rank_nodes_.clear();
  return absl::OkStatus();
}

void JobGroup::abort() {
  job_.revoke();
  job_.reset();
  rank_nodes_.clear();
}

absl::Status JobGroup::handle_error(const absl::Status& error) {
  if (absl::IsAborted(error)) return repair();
  if (absl::IsDeadlineExceeded(error) || absl::IsInternal(error)) {
    // Internal covers a refused spawn, which leaves J usable; the caller decides.
    if (absl::IsDeadlineExceeded(error)) abort();
  }
  return error;
}

absl::Status JobGroup::repair() {
  absl::StatusOr<Comm> fixed = repair_comm(job_);
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
    rank_nodes_.erase(rank_nodes_.begin() + static_cast<std::ptrdiff_t>(idx));
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
  if (absl::Status st = resume(1); !st.ok()) {
    if (absl::IsAborted(st)) return repair();
    abort();
    return st;
  }
  if (!partial.empty()) return shrink(partial);
  return absl::OkStatus();
}

PollResult JobGroup::poll() {
  PollResult out;
  for (int i = 0; i < 64 && job_; ++i) {
    int flag = 0;
    MPI_Status status;
    const int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, job_.get(), &flag, &status);
    if (rc != MPI_SUCCESS) {
      if (coll::is_process_failure(rc)) {
        if (absl::Status st = repair(); !st.ok()) out.error = std::string(st.message());
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
      MPI_Recv(p.data(), proto::kProgressDoubles, MPI_DOUBLE, src, status.MPI_TAG, job_.get(),
               MPI_STATUS_IGNORE);
      samples_total_ = p[0];
      samples_per_s_ = p[1];
      out.progressed = true;
    } else if (status.MPI_TAG == proto::kTagDone) {
      int code = 0;
      MPI_Recv(&code, 1, MPI_INT, src, status.MPI_TAG, job_.get(), MPI_STATUS_IGNORE);
      out.done = true;
      break;  // the ranks wait in follow() for kStop
    } else if (status.MPI_TAG == proto::kTagExit) {
      std::array<int, 2> p{};
      MPI_Recv(p.data(), 2, MPI_INT, src, status.MPI_TAG, job_.get(), MPI_STATUS_IGNORE);
      const auto idx = static_cast<std::size_t>(src - 1);
      out.error = fmt::format("rank {} on node {} exited with code {}", src - 1,
                              idx < rank_nodes_.size() ? rank_nodes_[idx] : "?", p[0]);
      abort();
      break;
    } else {
      int bytes = 0;
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      std::vector<char> sink(static_cast<std::size_t>(std::max(bytes, 1)));
      MPI_Recv(sink.data(), bytes, MPI_BYTE, src, status.MPI_TAG, job_.get(), MPI_STATUS_IGNORE);
    }
  }
  out.lost_nodes = std::move(lost_);
  lost_.clear();
  return out;
}

}  // namespace elastic::rt
