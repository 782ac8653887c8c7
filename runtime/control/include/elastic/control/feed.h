// Scheduler feeds: a scheduler's listing of its nodes turned into the hostfile of idle nodes the
// daemon may use. Each feed is a row of feeds.def (name, command, parser, holder mode) with its
// parser in a file of its own (feed_slurm.cc, feed_pbs.cc); run_feed() is the one polling loop over
// any row, and `elastic feed NAME` only looks the row up. The formats read (recorded examples:
// tests/runtime/control/data/):
//   slurm: sinfo -h -N -o "%N %T %c" -> "<nodes> <long state> <cpus>" per node and partition;
//          <nodes> may be a compressed list (sinfo without -N: "nid[0002-0004,0009]",
//          host_list.h); a node is idle when its state is exactly "idle" (no "*", "~", "#", "!",
//          "%", "$", "@", "^", "-" suffix: not responding, powered down, reserved, ...).
//   pbs:   pbsnodes -a -> blocks "<node>\n  key = value\n..." separated by blank lines; idle when
//          state is exactly "free" and no jobs are assigned (empty/absent "jobs",
//          resources_assigned.ncpus 0 when present).
// Slots come from the CPU count (%c; resources_available.ncpus, pcpus or np) unless overridden.
// `elastic feed trace` replays a recorded node-state trace instead (feed_trace.h).
#pragma once

#include <atomic>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "elastic/control/hostfile.h"

namespace elastic::rt {

// The idle nodes of one listing; `slots` > 0 replaces the CPU count. Nodes listed several times
// (one line per partition) appear once. InvalidArgument names "<source>:<line>" and the token.
// One per row of feeds.def, each in its feed's file (idle_nodes_from_sinfo, ...).
#define ELASTIC_FEED(name, command, parse, ...)                                      \
  absl::StatusOr<std::vector<HostEntry>> parse(std::string_view text, int slots = 0, \
                                               std::string_view source = "<" #name ">");
#include "elastic/control/feeds.def"

// A holder feed: the scheduler grants a node to us only while a preemptible job of ours (a
// holder, running elastic-holder) runs on it; the hostfile lists exactly those nodes, and a
// preempted holder's node leaves it at once (slurm_holder_feed.h has the protocol).
struct HolderFeedOptions {
  std::string partition = "scavenger";  // the preemptible partition (queue) of the holders
  std::filesystem::path hostfile;
  std::filesystem::path holder_dir;   // the <node>.leaving / <node>.released files
  std::filesystem::path status_path;  // elasticd's status.json (absent: release at once)
  std::string holder_command;         // what each holder job runs (shell words)
  int max_holders = 0;                // 0 = one per idle node
  double submit_per_s = 4;            // submissions per second, at most
  int slots = 0;                      // > 0 replaces the node's CPU count
  double every_s = 1;                 // scheduler poll period; leaving files are read every 20 ms
  // Main-queue partitions (comma-separated) whose new pending jobs make the feed give holders back
  // before Slurm's scheduling pass preempts them; empty: only preemption takes nodes back.
  std::string vacate_for;
  double vacate_every_s = 0.25;  // how often their pending jobs are listed
  // A node where elasticd runs a job is given back only when that job's steps take at most this
  // long (status.json step_s): it leaves at a step boundary, and Slurm's pass comes within a
  // fraction of a second. A job whose step time is not known yet is not asked.
  double vacate_max_step_s = 0.25;
};

struct Feed;
// BLOCKS until `stop` is set or a fatal error (InvalidArgument: the partition does not exist).
// Failing scheduler commands are reported on stderr and the last good hostfile is kept.
using HolderFeed = absl::Status(const Feed& feed, const HolderFeedOptions& options,
                                const std::atomic<bool>& stop);

struct Feed {
  std::string_view name;     // "slurm", "pbs": `elastic feed NAME`
  std::string_view command;  // the listing run_feed polls: "pbsnodes -a"
  absl::StatusOr<std::vector<HostEntry>> (*parse)(std::string_view text, int slots,
                                                  std::string_view source);
  HolderFeed* holders;       // nullptr: the listed idle nodes are used as they are
  std::string_view summary;  // for --help
};

// Every feed, in feeds.def order.
std::span<const Feed> feed_table();
// The row called `name`; nullptr when there is none.
const Feed* find_feed(std::string_view name);
// "slurm (...), pbs (...)" for --help.
std::string feed_help();

struct FeedOptions {
  std::filesystem::path hostfile;  // written atomically, and only when it changes
  // Recorded scheduler output: a file, or "-" for stdin (read once). Empty: run the feed's command.
  std::string input;
  int slots = 0;       // > 0 replaces the node's CPU count
  double every_s = 0;  // > 0: read and write again every this many seconds, until `stop`

  // Whether run_feed() goes on until `stop` (stdin is read once).
  bool polls() const { return every_s > 0 && input != "-"; }
};

// BLOCKS: reads the listing (options.input or feed.command), writes the idle nodes to the
// hostfile, and with every_s > 0 (and an input other than stdin) does it again every every_s
// seconds until `stop` is set. Run once, a listing that cannot be read or parsed is returned
// (InvalidArgument naming "<source>:<line>" for bad text) and the hostfile is left as it was;
// polling, it is reported on stderr and the last good hostfile stays. A hostfile that cannot be
// written is returned either way.
absl::Status run_feed(const Feed& feed, const FeedOptions& options, const std::atomic<bool>& stop);

}  // namespace elastic::rt
