// Header encoding/validation and the bounded directive exchange of the controller <-> rank
// protocol (protocol.h).
#include "elastic/worker/internal/protocol.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/bounded_wait.h"
#include "elastic/collectives/mpi_check.h"
#include "elastic/collectives/spread_plan.h"
#include "elastic/worker/huge_page_allocator.h"

namespace elastic::rt::proto {

namespace {

using Clock = std::chrono::steady_clock;

absl::Status invalid(const std::string& what) {
  // Aborted: the caller treats it as a broken communicator (revoke, repair), never as fatal.
  return absl::AbortedError(absl::StrCat("invalid directive from the controller: ", what));
}

// "; no record from members 3, 4; not sent to 4": connect_all's requests still active, each
// tested once more (the layout of reqs and others is connect_all's).
std::string unfinished_peers(std::span<MPI_Request> reqs, std::span<const int> others) {
  std::string from;
  std::string to;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    int done = 1;
    if (reqs[i] != MPI_REQUEST_NULL) MPI_Test(&reqs[i], &done, MPI_STATUS_IGNORE);
    if (done) continue;
    std::string& list = i % 2 == 0 ? from : to;
    absl::StrAppend(&list, list.empty() ? "" : ", ", others[i / 2]);
  }
  std::string out;
  if (!from.empty()) absl::StrAppend(&out, "; no record from members ", from);
  if (!to.empty()) absl::StrAppend(&out, "; not sent to ", to);
  return out;
}

}  // namespace

int checksum(std::span<const int> values) {
  // FNV-1a over the ints' bytes, folded to 31 bits so the SUM exchange keeps it non-negative.
  std::uint32_t h = 2166136261u;
  for (int v : values) {
    auto u = static_cast<std::uint32_t>(v);
    for (int b = 0; b < 4; ++b) {
      h ^= (u >> (8 * b)) & 0xffu;
      h *= 16777619u;
    }
  }
  return static_cast<int>(h & 0x7fffffffu);
}

RawHeader encode(const Header& h) {
  RawHeader raw{kMagic,
                static_cast<int>(h.directive),
                h.count,
                h.generation,
                static_cast<int>(h.reason),
                h.list_sum,
                0};
  raw[kHeaderInts - 1] = checksum(std::span<const int>(raw.data(), kHeaderInts - 1));
  return raw;
}

absl::StatusOr<Header> decode(const RawHeader& raw, int job_size) {
  if (raw[0] != kMagic) {
    return invalid(absl::StrCat("bad magic ", raw[0], " (directive field ", raw[1], ")"));
  }
  if (raw[kHeaderInts - 1] != checksum(std::span<const int>(raw.data(), kHeaderInts - 1))) {
    return invalid("checksum mismatch");
  }
  if (raw[1] < static_cast<int>(Directive::kLeave) || raw[1] > static_cast<int>(Directive::kStop)) {
    return invalid(absl::StrCat("unknown directive ", raw[1]));
  }
  if (raw[4] < static_cast<int>(Reason::kPlan) || raw[4] > static_cast<int>(Reason::kStart)) {
    return invalid(absl::StrCat("unknown reason ", raw[4]));
  }
  Header h{static_cast<Directive>(raw[1]), raw[2], raw[3], static_cast<Reason>(raw[4]), raw[5]};
  const bool leave = h.directive == Directive::kLeave;
  // A kLeave keeps at least one rank (the controller stops a job that would keep none).
  if (h.count < 0 || (leave && (h.count < 1 || h.count > job_size - 2)) ||
      (!leave && h.count != 0)) {
    return invalid(
        absl::StrCat("count ", h.count, " for directive ", raw[1], " in a job of ", job_size));
  }
  if (h.generation < 0) {
    return invalid(absl::StrCat("generation ", h.generation));
  }
  return h;
}

absl::Status validate_leaving(std::span<const int> ranks, const Header& h, int job_size) {
  if (static_cast<int>(ranks.size()) != h.count || list_checksum(ranks) != h.list_sum) {
    return invalid("leaving list does not match its header");
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i] < 1 || ranks[i] >= job_size || (i > 0 && ranks[i] <= ranks[i - 1])) {
      return invalid(absl::StrCat("leaving rank ", ranks[i], " in a job of ", job_size));
    }
  }
  return absl::OkStatus();
}

absl::Status exchange_ints(std::span<int> data, bool root, MPI_Comm comm,
                           Clock::time_point deadline, const char* what) {
  if (!root) std::fill(data.begin(), data.end(), 0);
  MPI_Request req = MPI_REQUEST_NULL;
  if (const int rc = MPI_Iallreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()),
                                    MPI_INT, MPI_SUM, comm, &req);
      rc != MPI_SUCCESS) {
    return coll::mpi_status(rc, what, __FILE__, __LINE__);
  }
  return coll::wait(req, deadline, what, coll::kControlPace);
}

absl::StatusOr<std::vector<Peer>> connect_all(MPI_Comm comm, Clock::time_point deadline) {
  // One fixed-size record per member: the pid, then the NUL-terminated host name.
  using Record = std::array<char, sizeof(int) + kPeerHostChars + 1>;
  int me = 0;
  int n = 0;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  Record mine{};
  const int pid = static_cast<int>(::getpid());
  std::memcpy(mine.data(), &pid, sizeof pid);
  ::gethostname(mine.data() + sizeof pid, kPeerHostChars);
  std::vector<Record> records(static_cast<std::size_t>(n));
  records[static_cast<std::size_t>(me)] = mine;
  // reqs[2k] receives from others[k], reqs[2k + 1] sends to it.
  std::vector<MPI_Request> reqs;
  std::vector<int> others;
  reqs.reserve(2 * static_cast<std::size_t>(n));
  others.reserve(static_cast<std::size_t>(n));
  const int bytes = static_cast<int>(sizeof(Record));
  for (int p = 0; p < n; ++p) {
    if (p == me) continue;
    const auto i = static_cast<std::size_t>(p);
    MPI_Request r = MPI_REQUEST_NULL;
    ELASTIC_MPI_CHECK(MPI_Irecv(records[i].data(), bytes, MPI_BYTE, p, kTagConnect, comm, &r));
    reqs.push_back(r);
    ELASTIC_MPI_CHECK(MPI_Isend(mine.data(), bytes, MPI_BYTE, p, kTagConnect, comm, &r));
    reqs.push_back(r);
    others.push_back(p);
  }
  for (MPI_Request& r : reqs) {
    if (absl::Status st = coll::wait(r, deadline, "connect_all", coll::kControlPace); !st.ok()) {
      if (!absl::IsDeadlineExceeded(st)) return st;
      return absl::DeadlineExceededError(absl::StrCat("connect_all: timed out at member ", me,
                                                      " of ", n, unfinished_peers(reqs, others)));
    }
  }
  std::vector<Peer> peers(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < peers.size(); ++i) {
    std::memcpy(&peers[i].pid, records[i].data(), sizeof(int));
    records[i].back() = '\0';
    peers[i].host = records[i].data() + sizeof(int);
  }
  return peers;
}

absl::Status make_compute(MPI_Comm job, coll::Comm& compute, coll::Comm* duplicate,
                          Clock::time_point deadline) {
  MPI_Group all = MPI_GROUP_NULL;
  MPI_Group ranks = MPI_GROUP_NULL;
  ELASTIC_MPI_CHECK(MPI_Comm_group(job, &all));
  const int controller = 0;
  int rc = MPI_Group_excl(all, 1, &controller, &ranks);
  if (rc == MPI_SUCCESS) rc = MPI_Comm_create_group(job, ranks, kTagCompute, compute.out());
  MPI_Group_free(&all);
  if (ranks != MPI_GROUP_NULL) MPI_Group_free(&ranks);
  if (rc != MPI_SUCCESS)
    return coll::mpi_status(rc, "MPI_Comm_create_group(C)", __FILE__, __LINE__);
  MPI_Comm_set_errhandler(compute.get(), MPI_ERRORS_RETURN);
  if (duplicate == nullptr) return absl::OkStatus();
  // A timeout revokes C, so that the others leave the dup too.
  absl::StatusOr<coll::Comm> d = coll::dup(compute.get(), deadline, coll::kControlPace);
  if (!d.ok()) return d.status();
  *duplicate = *std::move(d);
  return absl::OkStatus();
}

absl::Status warm_up(MPI_Comm compute, WarmUp me, Clock::time_point deadline) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(compute, &rank);
  MPI_Comm_size(compute, &size);
  // Each rank's offer: 0 = lacks the state, else its size + 1.
  const std::uint64_t mine = me.holds ? me.bytes + 1 : 0;
  std::vector<std::uint64_t> offers(static_cast<std::size_t>(size));
  MPI_Request req = MPI_REQUEST_NULL;
  if (const int rc =
          MPI_Iallgather(&mine, 1, MPI_UINT64_T, offers.data(), 1, MPI_UINT64_T, compute, &req);
      rc != MPI_SUCCESS) {
    return coll::mpi_status(rc, "MPI_Iallgather(warm-up)", __FILE__, __LINE__);
  }
  if (absl::Status st = coll::wait(req, deadline, "warm-up offers", coll::kControlPace); !st.ok()) {
    return st;
  }
  std::vector<std::uint8_t> holds(offers.size());
  std::uint64_t bytes = 0;
  for (std::size_t r = 0; r < offers.size(); ++r) {
    holds[r] = offers[r] != 0 ? 1 : 0;
    if (offers[r] != 0) bytes = std::max(bytes, offers[r] - 1);
  }
  bytes = std::min(bytes, kWarmUpMaxBytes);
  if (bytes == 0) return absl::OkStatus();
  absl::StatusOr<std::vector<std::vector<coll::Transfer>>> plan = coll::spread_plan(holds, size);
  if (!plan.ok()) return absl::OkStatus();  // no holder: nothing to warm
  std::vector<std::byte, HugePageAllocator<std::byte>> buf;
  for (const std::vector<coll::Transfer>& round : *plan) {
    const std::optional<coll::Transfer> t = coll::transfer_of(round, rank);
    if (!t) continue;
    buf.resize(bytes);
    const int n = static_cast<int>(bytes);
    const int rc = t->to == rank
                       ? MPI_Irecv(buf.data(), n, MPI_BYTE, t->from, kTagWarmUp, compute, &req)
                       : MPI_Isend(buf.data(), n, MPI_BYTE, t->to, kTagWarmUp, compute, &req);
    if (rc != MPI_SUCCESS) return coll::mpi_status(rc, "warm-up transfer", __FILE__, __LINE__);
    if (absl::Status st = coll::wait(req, deadline, "warm-up transfer", coll::kControlPace);
        !st.ok()) {
      return st;
    }
  }
  return absl::OkStatus();
}

}  // namespace elastic::rt::proto
