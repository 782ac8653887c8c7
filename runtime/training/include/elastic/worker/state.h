// The training state that survives rescaling: model and optimizer buffers, scalars (epoch, step,
// learning rate ...) and Checkpointable objects (the Sampler), all registered by reference.
//
//   commit()  LOCAL: copies everything into an in-memory snapshot (one memcpy per buffer); call it
//             at a step boundary on every rank after the step's allreduce.
//   restore() LOCAL: copies the last snapshot back into the registered buffers (roll back after a
//             failure).
//   sync()    COLLECTIVE over a Communicator: makes `root`'s last COMMITTED snapshot every rank's,
//             bit for bit, and every rank (root included) restores it. Only the ranks that do not
//             already hold it (same commit count, size and CRC-32 as root's) receive it, each from
//             one rank that does (Communicator::spread). Call it after every membership
//             change, before the first step of the new membership: a joining rank then holds exactly
//             the survivors' parameters, and survivors whose last commits differ by a step (a peer
//             died during a commit) agree again.
//   durable checkpoints: with StateOptions::checkpoint_path set, commit() also writes the snapshot
//             to that path every `checkpoint_every_commits` commits or `checkpoint_every` seconds
//             (whichever comes first; write to a temporary file, fsync, rename, fsync the folder),
//             on the ranks where `checkpoint_writer` is true (usually rank 0). load_checkpoint()
//             reads it back after a restart; a truncated or corrupted file is a DataLoss error that
//             names the file and what is wrong, never a silent partial load.
//
// Registration must be identical (same names, kinds, sizes, order) on every rank and is checked by
// sync() and load_checkpoint(). Registered memory must outlive the State. Host memory only: GPU
// code registers host mirrors (or copies device buffers in before commit()).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "elastic/collectives/communicator.h"
#include "elastic/worker/checkpointable.h"
#include "elastic/worker/huge_page_allocator.h"

namespace elastic::rt {

struct StateOptions {
  std::filesystem::path checkpoint_path;       // empty: no durable checkpoints
  std::uint64_t checkpoint_every_commits = 0;  // 0: not by count
  std::chrono::seconds checkpoint_every{0};    // 0: not by time
  bool checkpoint_writer = true;               // set false on all ranks but one
};

class State {
 public:
  explicit State(StateOptions opts = {});
  State(const State&) = delete;
  State& operator=(const State&) = delete;
  State(State&&) noexcept = default;
  State& operator=(State&&) noexcept = default;
  ~State();

  // LOCAL. Register before the first commit(); names must be unique (else InvalidArgument).
  absl::Status add_buffer(std::string name, std::span<float> data);
  absl::Status add_buffer(std::string name, std::span<double> data);
  absl::Status add_buffer(std::string name, std::span<std::uint16_t> data);  // bf16 / fp16 bits
  absl::Status add_bytes(std::string name, std::span<std::byte> data);
  absl::Status add_scalar(std::string name, std::int64_t* value);
  absl::Status add_scalar(std::string name, double* value);
  absl::Status add_object(std::string name, Checkpointable* object);

  // LOCAL (plus file I/O on the checkpoint writer when a durable checkpoint is due).
  absl::Status commit();
  // LOCAL. FailedPrecondition if nothing was committed yet.
  absl::Status restore();
  // COLLECTIVE over `comm` (host-memory backend), blocking, each broadcast bounded by opts.timeout.
  // Ranks that never committed take root's snapshot; root must have committed (else every rank gets
  // FailedPrecondition). Layout mismatch -> FailedPrecondition on the differing rank(s) (the
  // broadcast itself is still completed so that peers do not hang).
  absl::Status sync(coll::Communicator& comm, int root, coll::CallOptions opts = {});

  // LOCAL. Writes the last committed snapshot to `path` now (tmp + fsync + rename).
  absl::Status save_checkpoint(const std::filesystem::path& path) const;
  // LOCAL. Loads `path` into the registered buffers and makes it the committed snapshot.
  // NotFound when the file does not exist; DataLoss when truncated/corrupt; FailedPrecondition
  // when it was written for a different registration.
  absl::Status load_checkpoint(const std::filesystem::path& path);

  std::uint64_t commits() const { return commits_; }
  bool has_commit() const { return !snapshot_.empty(); }
  // Size in bytes of one snapshot (what sync sends to a rank that lacks it).
  std::size_t snapshot_bytes() const;
  // Bytes this rank received in its last sync(): 0 when it already held root's commit.
  std::size_t last_sync_bytes() const { return last_sync_bytes_; }

 private:
  struct Entry;
  absl::Status add(std::string name, std::uint8_t kind, void* ptr, std::size_t bytes,
                   Checkpointable* object);
  std::vector<std::byte> layout_bytes() const;
  absl::Status apply_snapshot(std::span<const std::byte> snap);

  StateOptions opts_;
  std::vector<Entry> entries_;
  // Committed: a serialised copy of every entry (huge pages: see huge_page_allocator.h).
  std::vector<std::byte, HugePageAllocator<std::byte>> snapshot_;
  std::uint64_t commits_ = 0;
  std::size_t last_sync_bytes_ = 0;
  std::uint64_t commits_since_checkpoint_ = 0;
  std::chrono::steady_clock::time_point last_checkpoint_;
};

}  // namespace elastic::rt
