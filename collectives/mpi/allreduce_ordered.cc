#include "mpi/allreduce_ordered.h"

#include <algorithm>
#include <span>

#include "elastic/collectives/mpi_check.h"
#include "mpi/reduce_ops.h"

namespace elastic::coll::mpi {
namespace {

constexpr int kTagScatter = 1;
constexpr int kTagGather = 2;
// Measured with bench/collectives at 2 ranks (docs/collectives.md): every message costs a
// rendezvous on top of its copy, and 512 KiB segments did best among 64 KiB - 4 MiB at 1-16 MiB.
constexpr std::size_t kSegmentBytes = std::size_t{512} << 10;
constexpr std::size_t kWindow = 4;
// Buffers up to this size skip the allgather: every rank takes every other rank's whole buffer and
// folds them itself, one round of messages instead of two. Larger messages leave Open MPI's
// per-peer shared-memory fast box (4 KiB) and cost more than the saved round (measured: 4 KiB
// folded whole 3.8-4.5 us, as reduce-scatter + allgather 1.8 us).
constexpr std::size_t kReplicateBytes = std::size_t{2} << 10;

// Where block b and its segments lie, in elements; identical on every rank. Replicated: every
// rank's block is the whole buffer.
class Layout {
 public:
  Layout(std::size_t count, int size, std::size_t segment, bool replicated)
      : count_(count),
        blocks_(replicated ? 1 : static_cast<std::size_t>(size)),
        segment_(segment) {}
  std::size_t begin(int b) const {
    return blocks_ == 1 ? 0 : count_ * static_cast<std::size_t>(b) / blocks_;
  }
  std::size_t length(int b) const { return blocks_ == 1 ? count_ : begin(b + 1) - begin(b); }
  std::size_t segment_begin(int b, std::size_t s) const {
    return begin(b) + std::min(length(b), s * segment_);
  }
  std::size_t segment_length(int b, std::size_t s) const {
    return std::min(length(b), (s + 1) * segment_) - std::min(length(b), s * segment_);
  }
  // The longest block is ceil(count / blocks) elements.
  std::size_t segments() const {
    return ((count_ + blocks_ - 1) / blocks_ + segment_ - 1) / segment_;
  }

 private:
  std::size_t count_;
  std::size_t blocks_;
  std::size_t segment_;
};

}  // namespace

absl::Status allreduce_ordered(MPI_Comm comm, int rank, int size, Tensor t,
                               Clock::time_point deadline, OrderedScratch& scratch) {
  scratch.requests.clear();
  if (size == 1 || t.count == 0) return absl::OkStatus();
  const std::size_t esize = dtype_size(t.dtype);
  const std::size_t peers = static_cast<std::size_t>(size) - 1;
  const bool replicated = t.bytes() <= kReplicateBytes;
  const Layout layout(t.count, size, kSegmentBytes / esize, replicated);
  const std::size_t nseg = layout.segments();
  // A slot holds one segment of our block; small buffers need small slots.
  const std::size_t slot_bytes = layout.segment_length(rank, 0) * esize;
  if (scratch.segments.size() < kWindow * peers * slot_bytes)
    scratch.segments.resize(kWindow * peers * slot_bytes);
  // Requests of segment s: scatter at [s * 2 peers, ...), gather at [(nseg + s) * 2 peers, ...);
  // in each group the receives by peer index, then the sends.
  scratch.requests.assign(2 * nseg * 2 * peers, MPI_REQUEST_NULL);
  auto* data = static_cast<std::byte*>(t.data);
  auto peer_index = [&](int k) { return static_cast<std::size_t>(k < rank ? k : k - 1); };
  auto slot = [&](std::size_t s, int k) {
    return scratch.segments.data() + ((s % kWindow) * peers + peer_index(k)) * slot_bytes;
  };
  auto group = [&](std::size_t g) {
    return std::span(scratch.requests).subspan(g * 2 * peers, 2 * peers);
  };
  auto bytes = [&](std::size_t elements) { return static_cast<int>(elements * esize); };

  // Scatter: peer k's part of block `rank` comes into a slot; our part of block k goes to k.
  auto post_scatter = [&](std::size_t s) -> absl::Status {
    std::span<MPI_Request> req = group(s);
    const std::size_t mine = layout.segment_length(rank, s);
    for (int k = 0; k < size; ++k) {
      if (k == rank || mine == 0) continue;
      ELASTIC_MPI_CHECK(
          MPI_Irecv(slot(s, k), bytes(mine), MPI_BYTE, k, kTagScatter, comm, &req[peer_index(k)]));
    }
    for (int k = 0; k < size; ++k) {
      const std::size_t n = layout.segment_length(k, s);
      if (k == rank || n == 0) continue;
      ELASTIC_MPI_CHECK(MPI_Isend(data + layout.segment_begin(k, s) * esize, bytes(n), MPI_BYTE, k,
                                  kTagScatter, comm, &req[peers + peer_index(k)]));
    }
    return absl::OkStatus();
  };
  auto received = [&](std::size_t s, int k) {
    return wait(group(s)[peer_index(k)], deadline, "allreduce scatter receive");
  };
  // Sums segment s of our block in rank order. Ranks 0 and 1 add straight into their own data
  // (x1 + x0 == x0 + x1 exactly); rank r >= 2 first sums x0..x(r-1) in the slot of rank 0.
  auto reduce = [&](std::size_t s) -> absl::Status {
    if (replicated) {  // the segment we are about to overwrite is also the one we send
      if (absl::Status st = wait_all(group(s).subspan(peers), deadline, "allreduce send"); !st.ok())
        return st;
    }
    const std::size_t n = layout.segment_length(rank, s);
    std::byte* mine = data + layout.segment_begin(rank, s) * esize;
    std::byte* acc = mine;
    if (rank >= 2) {
      acc = slot(s, 0);
      if (absl::Status st = received(s, 0); !st.ok()) return st;
    }
    for (int k = 0; k < size; ++k) {
      if (k == rank) {
        if (acc != mine) accumulate(mine, acc, n, t.dtype);
        acc = mine;
        continue;
      }
      if (acc != mine && k == 0) continue;  // already in acc
      if (absl::Status st = received(s, k); !st.ok()) return st;
      accumulate(acc, slot(s, k), n, t.dtype);
    }
    return absl::OkStatus();
  };
  // Gather: our reduced segment goes to every peer, theirs come straight into place. Posted only
  // once our scatter sends of the segment are done, since the receives overwrite those bytes.
  auto post_gather = [&](std::size_t s) -> absl::Status {
    if (absl::Status st = wait_all(group(s).subspan(peers), deadline, "allreduce scatter send");
        !st.ok()) {
      return st;
    }
    std::span<MPI_Request> req = group(nseg + s);
    for (int k = 0; k < size; ++k) {
      const std::size_t n = layout.segment_length(k, s);
      if (k == rank || n == 0) continue;
      ELASTIC_MPI_CHECK(MPI_Irecv(data + layout.segment_begin(k, s) * esize, bytes(n), MPI_BYTE, k,
                                  kTagGather, comm, &req[peer_index(k)]));
    }
    const std::size_t mine = layout.segment_length(rank, s);
    for (int k = 0; k < size; ++k) {
      if (k == rank || mine == 0) continue;
      ELASTIC_MPI_CHECK(MPI_Isend(data + layout.segment_begin(rank, s) * esize, bytes(mine),
                                  MPI_BYTE, k, kTagGather, comm, &req[peers + peer_index(k)]));
    }
    return absl::OkStatus();
  };

  for (std::size_t s = 0; s < std::min(kWindow, nseg); ++s) {
    if (absl::Status st = post_scatter(s); !st.ok()) return st;
  }
  for (std::size_t s = 0; s < nseg; ++s) {
    if (absl::Status st = reduce(s); !st.ok()) return st;
    if (!replicated) {
      if (absl::Status st = post_gather(s); !st.ok()) return st;
    }
    if (s + kWindow < nseg) {
      if (absl::Status st = post_scatter(s + kWindow); !st.ok()) return st;
    }
    if (s >= kWindow) {
      if (absl::Status st = wait_all(group(nseg + s - kWindow), deadline, "allreduce gather");
          !st.ok())
        return st;
    }
  }
  const std::size_t tail = nseg > kWindow ? nseg - kWindow : 0;
  const std::size_t n_tail = nseg - tail;
  return wait_all(
      std::span(scratch.requests).subspan((nseg + tail) * 2 * peers, n_tail * 2 * peers), deadline,
      "allreduce gather");
}

}  // namespace elastic::coll::mpi
