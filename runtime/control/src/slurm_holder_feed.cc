#include "elastic/control/slurm_holder_feed.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <thread>

#include "elastic/control/atomic_file.h"
#include "elastic/control/command.h"
#include "elastic/control/hostfile.h"
#include "elastic/control/slurm_holders.h"
#include "elastic/control/status.h"
#include "fmt/format.h"
#include "text.h"

namespace fs = std::filesystem;

namespace elastic::rt {
namespace {

using Clock = std::chrono::steady_clock;

// How often the holders' marker files and elasticd's status are looked at: a preempting main-queue
// job waits for this twice (a holder's SIGTERM -> the hostfile; its node vacated -> the holder
// let go). A directory listing and a small JSON read each time.
constexpr std::chrono::milliseconds kMirrorEvery{20};
// While a holder is leaving: its release ends a main-queue job's wait.
constexpr std::chrono::milliseconds kMirrorWhileLeaving{5};

double unix_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void warn(std::string_view what) { std::cerr << "elastic feed slurm: " << what << "\n"; }

// node -> holder job id, from the <node>.SUFFIX files the holders (leaving) or the feed
// (released) wrote.
std::map<std::string, std::string> markers(const fs::path& dir, std::string_view suffix) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.ends_with(suffix) || name.size() == suffix.size()) continue;
    absl::StatusOr<std::string> job = read_file(e.path());
    if (job.ok()) out[name.substr(0, name.size() - suffix.size())] = std::string(trim(*job));
  }
  return out;
}

// No job of elasticd's is on `node` in a snapshot taken after `since` (unix s). Without a
// status.json (no elasticd) there is nothing to wait for.
bool vacated(const fs::path& status_path, const std::string& node, double since) {
  if (status_path.empty()) return true;
  absl::StatusOr<StatusSnapshot> s = read_status(status_path);
  if (!s.ok()) return s.status().code() == absl::StatusCode::kNotFound;
  if (s->time < since) return false;
  return std::none_of(s->nodes.begin(), s->nodes.end(),
                      [&](const NodeStatus& n) { return n.name == node && in_use(n); });
}

// classify_busy on elasticd's status.json (nothing busy without one).
void busy_nodes(const fs::path& status_path, double max_step_s, VacateInput& in) {
  absl::StatusOr<StatusSnapshot> s =
      status_path.empty() ? absl::NotFoundError("") : read_status(status_path);
  if (s.ok()) classify_busy(*s, unix_now(), max_step_s, in);
}

class SlurmHolderFeed {
 public:
  SlurmHolderFeed(const Feed& feed, const HolderFeedOptions& o) : feed_(feed), o_(o) {
    const char* user = std::getenv("USER");
    user_ = user != nullptr && *user != '\0' ? user : std::to_string(::getuid());
  }

  // squeue + sinfo + submissions. InvalidArgument only for a partition that does not exist.
  absl::Status poll_scheduler() {
    if (!seen_) {  // once: each later poll costs slurmctld two RPCs (squeue, sinfo)
      absl::StatusOr<std::string> missing = missing_partition(o_.partition);
      if (!missing.ok()) return keep(missing.status());
      if (!missing->empty()) {
        return absl::InvalidArgumentError(fmt::format(
            "--partition: Slurm has no partition '{}' (sinfo -p lists nothing)", *missing));
      }
      if (!o_.vacate_for.empty()) {
        missing = missing_partition(o_.vacate_for);
        if (!missing.ok()) return keep(missing.status());
        if (!missing->empty()) {
          return absl::InvalidArgumentError(fmt::format(
              "--vacate-for: Slurm has no partition '{}' (sinfo -p does not list it)", *missing));
        }
      }
    }
    const std::string squeue = fmt::format("squeue -h -u {} -p {} -o \"{}\"", shell_quote(user_),
                                           shell_quote(o_.partition), kHolderSqueueFormat);
    absl::StatusOr<std::string> q = run_capture(squeue);
    if (!q.ok()) return keep(q.status());
    absl::StatusOr<std::vector<HolderJob>> holders = holders_from_squeue(*q, squeue);
    if (!holders.ok()) return keep(holders.status());
    const std::string sinfo = fmt::format("{} -p {}", feed_.command, shell_quote(o_.partition));
    absl::StatusOr<std::string> i = run_capture(sinfo);
    if (!i.ok()) return keep(i.status());
    absl::StatusOr<std::vector<HostEntry>> idle = feed_.parse(*i, 0, sinfo);
    if (!idle.ok()) return keep(idle.status());
    holders_ = std::move(*holders);
    idle_.clear();
    for (const HostEntry& h : *idle) idle_.push_back(h.name);
    seen_ = true;
    forget_gone_holders();
    submit();
    return absl::OkStatus();
  }

  // Main-queue jobs submitted since slurmctld's last pass (--vacate-for): give back as many
  // holders as they need now, so that the pass finds idle nodes instead of preempting (a
  // preempted holder's node reaches the main job only at slurmd's next look, 20/70/170 ms later).
  void poll_pending() {
    if (!seen_ || o_.vacate_for.empty()) return;
    const std::string cmd = fmt::format("squeue -h -t PD -p {} -o \"{}\"",
                                        shell_quote(o_.vacate_for), kPendingSqueueFormat);
    absl::StatusOr<std::string> q = run_capture(cmd);
    absl::StatusOr<std::vector<PendingJob>> pending =
        q.ok() ? pending_from_squeue(*q, cmd) : absl::StatusOr<std::vector<PendingJob>>(q.status());
    if (!pending.ok()) {  // said once, not every --vacate-every, while slurmctld is down
      const std::string why(pending.status().message());
      if (why != pending_failed_) warn(fmt::format("{} (not vacating ahead of Slurm)", why));
      pending_failed_ = why;
      return;
    }
    pending_failed_.clear();
    std::set<std::string> free(idle_.begin(), idle_.end());
    free.insert(given_back_.begin(), given_back_.end());
    VacateInput in;
    in.pending = *std::move(pending);
    busy_nodes(o_.status_path, o_.vacate_max_step_s, in);
    for (const auto& [node, job] : vacating_) free.insert(node);
    // leaving_: the last mirror's markers, and the nodes being given back.
    for (const auto& [node, job] : leaving_) in.on_the_way += vacating_.contains(node) ? 0 : 1;
    for (const HolderJob& h : holders_) {
      const auto l = leaving_.find(h.node);
      if (h.state == "RUNNING" && !vacating_.contains(h.node) &&
          (l == leaving_.end() || l->second != h.job_id)) {
        in.held.push_back(h.node);
      }
    }
    in.free = static_cast<int>(free.size());
    const VacatePlan plan = plan_vacate(in);
    if (plan.demand == 0) {  // started, or Slurm has looked at them: nothing to keep idle for
      vacating_.clear();
      given_back_.clear();
      return;
    }
    for (const std::string& node : plan.vacate) {
      const auto h = std::find_if(holders_.begin(), holders_.end(),
                                  [&](const HolderJob& j) { return j.node == node; });
      vacating_[node] = h->job_id;
      std::cerr << fmt::format(
          "elastic feed slurm: giving {} back ahead of Slurm: main-queue jobs pending for {} "
          "node(s)\n",
          node, plan.demand);
    }
  }

  // Some holder has been told to leave and its node's release is not written yet.
  bool awaiting_release() const { return awaiting_release_; }

  // Leaving and released files, the hostfile. Every kMirrorEvery (kMirrorWhileLeaving).
  absl::Status mirror() {
    if (!seen_) return absl::OkStatus();  // Slurm never answered yet: the hostfile stays as it is
    leaving_ = markers(o_.holder_dir, ".leaving");
    for (const auto& [node, job] : vacating_) leaving_.try_emplace(node, job);
    HolderPlan plan = plan_holders(input(0));
    if (const std::string body = format_hostfile(plan.granted); body != written_) {
      if (absl::Status s = write_hostfile(o_.hostfile, plan.granted); !s.ok()) return s;
      written_ = body;
      written_at_ = unix_now();
      std::cerr << fmt::format("elastic feed slurm: {} held node(s){} -> {}\n", plan.granted.size(),
                               leaving_.empty() ? "" : fmt::format(", {} leaving", leaving_.size()),
                               o_.hostfile.string());
    }
    const std::map<std::string, std::string> released = markers(o_.holder_dir, ".released");
    awaiting_release_ = false;
    for (const auto& [node, job] : leaving_) {
      const auto r = released.find(node);
      if (r == released.end() || r->second != job) {
        if (!vacated(o_.status_path, node, written_at_)) {
          awaiting_release_ = true;
          continue;
        }
        if (absl::Status s =
                write_file_atomic(o_.holder_dir / (node + ".released"), job + "\n", 0600);
            !s.ok()) {
          warn(std::string(s.message()));
          continue;
        }
      }
      if (vacating_.contains(node) && !cancelled_.contains(job)) cancel(job);
    }
    return absl::OkStatus();
  }

 private:
  // The first of the comma-separated `partitions` that sinfo does not list ("" if none).
  static absl::StatusOr<std::string> missing_partition(const std::string& partitions) {
    absl::StatusOr<std::string> listed =
        run_capture(fmt::format("sinfo -h -o %P -p {}", shell_quote(partitions)));
    if (!listed.ok()) return listed.status();
    std::set<std::string_view> have;
    for (std::string_view p : split(*listed, "\n", true)) {
      p = trim(p);
      if (p.ends_with('*')) p.remove_suffix(1);  // the default partition
      have.insert(p);
    }
    for (std::string_view p : split(partitions, ",", true)) {
      if (!have.contains(trim(p))) return std::string(trim(p));
    }
    return std::string();
  }

  absl::Status keep(const absl::Status& s) {
    warn(fmt::format("{} (keeping the hostfile)", std::string(s.message())));
    return absl::OkStatus();
  }

  HolderInput input(int budget) const {
    std::vector<std::string> idle;  // nodes given back ahead of Slurm stay idle for its pass
    for (const std::string& node : idle_) {
      if (!vacating_.contains(node) && !given_back_.contains(node)) idle.push_back(node);
    }
    return HolderInput{holders_, idle, leaving_, o_.max_holders, budget, o_.slots};
  }

  // A holder given back ahead of Slurm: its release is written, so it exits on scancel's SIGTERM.
  void cancel(const std::string& job) {
    if (absl::StatusOr<std::string> r = run_capture(fmt::format("scancel {}", shell_quote(job)));
        !r.ok()) {
      warn(fmt::format("scancel {}: {}", job, std::string(r.status().message())));
      return;  // tried again at the next mirror
    }
    cancelled_.insert(job);
  }

  // A holder that left squeue is over: its marker files go, so a new holder starts clean.
  void forget_gone_holders() {
    std::set<std::string> live;
    for (const HolderJob& h : holders_) live.insert(h.job_id);
    std::erase_if(cancelled_, [&](const std::string& job) { return !live.contains(job); });
    for (auto it = vacating_.begin(); it != vacating_.end();) {  // given back: its holder is over
      if (live.contains(it->second)) {
        ++it;
      } else {
        given_back_.insert(it->first);
        it = vacating_.erase(it);
      }
    }
    for (std::string_view suffix : {".leaving", ".released"}) {
      for (const auto& [node, job] : markers(o_.holder_dir, suffix)) {
        if (!live.contains(job)) fs::remove(o_.holder_dir / (node + std::string(suffix)));
      }
    }
  }

  void submit() {
    const Clock::time_point now = Clock::now();
    const double burst = std::max(1.0, o_.submit_per_s);
    tokens_ = std::min(
        burst, tokens_ + o_.submit_per_s * std::chrono::duration<double>(now - refilled_).count());
    refilled_ = now;
    for (const std::string& node : plan_holders(input(static_cast<int>(tokens_))).submit) {
      tokens_ -= 1;
      const std::string cmd = fmt::format(
          "sbatch --parsable -Q -p {} -N1 -w {} -J {} -o {} --open-mode=append --no-requeue --wrap "
          "{}",
          shell_quote(o_.partition), shell_quote(node),
          shell_quote(std::string(kHolderJobPrefix) + node),
          shell_quote((o_.holder_dir / (node + ".out")).string()),
          shell_quote("exec " + o_.holder_command));
      absl::StatusOr<std::string> id = run_capture(cmd);
      if (!id.ok()) {
        warn(fmt::format("holder for {} refused: {}", node, std::string(id.status().message())));
        return;  // retried at the next poll, within the rate limit
      }
      holders_.push_back(HolderJob{std::string(trim(*id)), node, "PENDING", 1});
    }
  }

  const Feed& feed_;
  const HolderFeedOptions& o_;
  std::string user_;
  std::vector<HolderJob> holders_;
  std::vector<std::string> idle_;
  std::map<std::string, std::string> leaving_;
  std::map<std::string, std::string> vacating_;  // node -> holder being given back ahead of Slurm
  std::set<std::string> given_back_;             // their nodes once the holder is over
  std::set<std::string> cancelled_;              // holder jobs scancel was run for
  std::string pending_failed_;                   // the last failure to list pending jobs
  bool awaiting_release_ = false;                // a leaving node not released yet
  bool seen_ = false;
  std::string written_ = "\x01";  // nothing written yet: the first mirror writes the file
  double written_at_ = 0;
  double tokens_ = 0;
  Clock::time_point refilled_ = Clock::now();
};

}  // namespace

absl::Status run_slurm_holders(const Feed& feed, const HolderFeedOptions& o,
                               const std::atomic<bool>& stop) {
  std::error_code ec;
  // Owner-only, as the state dir it is normally in: the markers and the holders' output.
  if (fs::create_directories(o.holder_dir, ec); !ec) {
    fs::permissions(o.holder_dir, fs::perms::owner_all, fs::perm_options::replace, ec);
  }
  if (ec) {
    return absl::FailedPreconditionError(
        fmt::format("--holder-dir {}: {}", o.holder_dir.string(), ec.message()));
  }
  SlurmHolderFeed holders(feed, o);
  const auto period = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  Clock::time_point next_poll = Clock::now();
  Clock::time_point next_pending = Clock::now();
  while (!stop.load()) {
    if (Clock::now() >= next_poll) {
      if (absl::Status s = holders.poll_scheduler(); !s.ok()) return s;
      next_poll = Clock::now() + period(o.every_s);
    }
    if (Clock::now() >= next_pending) {
      holders.poll_pending();
      next_pending = Clock::now() + period(o.vacate_every_s);
    }
    if (absl::Status s = holders.mirror(); !s.ok()) return s;
    std::this_thread::sleep_for(holders.awaiting_release() ? kMirrorWhileLeaving : kMirrorEvery);
  }
  return absl::OkStatus();
}

}  // namespace elastic::rt
