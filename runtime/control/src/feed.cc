#include "elastic/control/feed.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <iterator>
#include <thread>

#include "elastic/control/atomic_file.h"
#include "elastic/control/command.h"
#include "elastic/control/slurm_holder_feed.h"
#include "fmt/format.h"

namespace elastic::rt {
namespace {

constexpr Feed kFeeds[] = {
#define ELASTIC_FEED(name, command, parse, holders, summary) \
  {#name, command, parse, holders, summary},
#include "elastic/control/feeds.def"
};

// The listing as text, and the name its errors go by.
struct Listing {
  absl::StatusOr<std::string> text;
  std::string source;
};

Listing read_listing(const Feed& feed, const std::string& input) {
  if (input.empty()) return {run_capture(feed.command), std::string(feed.command)};
  if (input == "-") return {std::string(std::istreambuf_iterator<char>(std::cin), {}), "<stdin>"};
  return {read_file(input), input};
}

// Sleeps `seconds`, waking every 0.1 s to see whether `stop` is set.
void sleep_unless_stopped(double seconds, const std::atomic<bool>& stop) {
  const auto until = std::chrono::steady_clock::now() +
                     std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(seconds));
  while (!stop.load() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(100), until - std::chrono::steady_clock::now()));
  }
}

}  // namespace

std::span<const Feed> feed_table() { return kFeeds; }

const Feed* find_feed(std::string_view name) {
  for (const Feed& f : kFeeds) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string feed_help() {
  std::string help;
  for (const Feed& f : kFeeds) {
    help += fmt::format("{}{} ({})", help.empty() ? "" : ", ", f.name, f.summary);
  }
  return help;
}

absl::Status run_feed(const Feed& feed, const FeedOptions& o, const std::atomic<bool>& stop) {
  const bool polling = o.polls();
  std::string written;
  bool wrote = false;
  do {
    Listing listing = read_listing(feed, o.input);
    absl::StatusOr<std::vector<HostEntry>> hosts =
        listing.text.ok() ? feed.parse(*listing.text, o.slots, listing.source)
                          : listing.text.status();
    if (!hosts.ok()) {
      if (!polling) return hosts.status();
      std::cerr << fmt::format("elastic feed {}: {} (keeping the hostfile)\n", feed.name,
                               std::string(hosts.status().message()));
    } else if (const std::string body = format_hostfile(*hosts); !wrote || body != written) {
      if (absl::Status s = write_hostfile(o.hostfile, *hosts); !s.ok()) return s;
      written = body;
      wrote = true;
      std::cerr << fmt::format("elastic feed {}: {} idle node(s) -> {}\n", feed.name, hosts->size(),
                               o.hostfile.string());
    }
    if (polling) sleep_unless_stopped(o.every_s, stop);
  } while (polling && !stop.load());
  return absl::OkStatus();
}

}  // namespace elastic::rt
