// State: registration, in-memory commit/restore, sync to the ranks that lack root's commit (see
// state.h). Checkpoint file I/O lives in checkpoint_file.cc.
#include "elastic/worker/state.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "src/bytes.h"
#include "src/crc32.h"

namespace elastic::rt {

namespace {
enum Kind : std::uint8_t { kF32 = 1, kF64, kU16, kBytes, kScalarI64, kScalarF64, kObject };

std::uint64_t fnv1a(std::span<const std::byte> b) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::byte x : b) h = (h ^ static_cast<std::uint64_t>(x)) * 1099511628211ull;
  return h;
}
}  // namespace

struct State::Entry {
  std::string name;
  std::uint8_t kind;
  void* ptr;
  std::size_t bytes;  // fixed size; 0 for objects (variable)
  Checkpointable* object;
};

State::State(StateOptions opts)
    : opts_(std::move(opts)), last_checkpoint_(std::chrono::steady_clock::now()) {}
State::~State() = default;

absl::Status State::add(std::string name, std::uint8_t kind, void* ptr, std::size_t bytes,
                        Checkpointable* object) {
  if (has_commit()) {
    return absl::FailedPreconditionError(
        absl::StrCat("State: '", name, "' registered after the first commit"));
  }
  for (const Entry& e : entries_) {
    if (e.name == name)
      return absl::InvalidArgumentError(absl::StrCat("State: '", name, "' registered twice"));
  }
  if (ptr == nullptr && object == nullptr && bytes != 0) {
    return absl::InvalidArgumentError(absl::StrCat("State: '", name, "' has null data"));
  }
  entries_.push_back(Entry{std::move(name), kind, ptr, bytes, object});
  return absl::OkStatus();
}

absl::Status State::add_buffer(std::string name, std::span<float> d) {
  return add(std::move(name), kF32, d.data(), d.size_bytes(), nullptr);
}
absl::Status State::add_buffer(std::string name, std::span<double> d) {
  return add(std::move(name), kF64, d.data(), d.size_bytes(), nullptr);
}
absl::Status State::add_buffer(std::string name, std::span<std::uint16_t> d) {
  return add(std::move(name), kU16, d.data(), d.size_bytes(), nullptr);
}
absl::Status State::add_bytes(std::string name, std::span<std::byte> d) {
  return add(std::move(name), kBytes, d.data(), d.size_bytes(), nullptr);
}
absl::Status State::add_scalar(std::string name, std::int64_t* v) {
  if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat("State: '", name, "' is null"));
  return add(std::move(name), kScalarI64, v, sizeof(*v), nullptr);
}
absl::Status State::add_scalar(std::string name, double* v) {
  if (v == nullptr) return absl::InvalidArgumentError(absl::StrCat("State: '", name, "' is null"));
  return add(std::move(name), kScalarF64, v, sizeof(*v), nullptr);
}
absl::Status State::add_object(std::string name, Checkpointable* object) {
  if (object == nullptr)
    return absl::InvalidArgumentError(absl::StrCat("State: '", name, "' is null"));
  return add(std::move(name), kObject, nullptr, 0, object);
}

std::vector<std::byte> State::layout_bytes() const {
  std::vector<std::byte> out;
  put(out, static_cast<std::uint64_t>(entries_.size()));
  for (const Entry& e : entries_) {
    put(out, e.kind);
    put(out, static_cast<std::uint64_t>(e.name.size()));
    put_bytes(out, e.name.data(), e.name.size());
    put(out, static_cast<std::uint64_t>(e.bytes));
  }
  return out;
}

std::size_t State::snapshot_bytes() const { return snapshot_.size(); }

absl::Status State::commit() {
  // Reuses the snapshot's capacity: after the first commit this is a memcpy per buffer.
  snapshot_.clear();
  for (const Entry& e : entries_) {
    if (e.kind == kObject) {
      const std::vector<std::byte> b = e.object->save();
      put(snapshot_, static_cast<std::uint64_t>(b.size()));
      put_bytes(snapshot_, b.data(), b.size());
    } else {
      put(snapshot_, static_cast<std::uint64_t>(e.bytes));
      put_bytes(snapshot_, e.ptr, e.bytes);
    }
  }
  if (snapshot_.empty()) put(snapshot_, std::uint64_t{0});  // nothing registered: still "committed"
  ++commits_;
  ++commits_since_checkpoint_;

  if (opts_.checkpoint_path.empty() || !opts_.checkpoint_writer) return absl::OkStatus();
  const auto now = std::chrono::steady_clock::now();
  const bool by_count = opts_.checkpoint_every_commits > 0 &&
                        commits_since_checkpoint_ >= opts_.checkpoint_every_commits;
  const bool by_time =
      opts_.checkpoint_every.count() > 0 && now - last_checkpoint_ >= opts_.checkpoint_every;
  if (!by_count && !by_time) return absl::OkStatus();
  commits_since_checkpoint_ = 0;
  last_checkpoint_ = now;
  return save_checkpoint(opts_.checkpoint_path);
}

absl::Status State::apply_snapshot(std::span<const std::byte> snap) {
  // Check every section (buffer sizes, objects' check()) before touching any registered memory.
  std::vector<std::span<const std::byte>> sections;
  sections.reserve(entries_.size());
  Reader in(snap);
  for (const Entry& e : entries_) {
    const std::optional<std::uint64_t> len = in.get<std::uint64_t>();
    if (!len || in.left() < *len) {
      return absl::DataLossError(absl::StrCat("State snapshot truncated at '", e.name, "'"));
    }
    if (e.kind != kObject && *len != e.bytes) {
      return absl::FailedPreconditionError(absl::StrCat("State snapshot: '", e.name, "' has ", *len,
                                                        " bytes, the registered buffer ", e.bytes));
    }
    sections.push_back(*in.take(*len));
    if (e.kind == kObject) {
      if (absl::Status st = e.object->check(sections.back()); !st.ok()) {
        return absl::Status(st.code(),
                            absl::StrCat("State: loading '", e.name, "': ", st.message()));
      }
    }
  }
  // Objects before buffers: an object that refuses in load() what its check() let through
  // leaves the buffers as they were.
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (e.kind != kObject) continue;
    if (absl::Status st = e.object->load(sections[i]); !st.ok()) {
      return absl::Status(st.code(), absl::StrCat("State: loading '", e.name, "': ", st.message()));
    }
  }
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (e.kind != kObject && !sections[i].empty()) {
      std::memcpy(e.ptr, sections[i].data(), sections[i].size());
    }
  }
  return absl::OkStatus();
}

absl::Status State::restore() {
  if (!has_commit()) return absl::FailedPreconditionError("State::restore: nothing committed yet");
  return apply_snapshot(snapshot_);
}

absl::Status State::sync(coll::Communicator& comm, int root, coll::CallOptions opts) {
  // Header: [root has a commit, layout hash, snapshot size, commit count, CRC-32 of the snapshot].
  const bool is_root = comm.rank() == root;
  std::uint64_t header[5] = {has_commit() ? 1u : 0u, fnv1a(layout_bytes()), snapshot_.size(),
                             commits_, is_root ? crc32(snapshot_) : 0u};
  const std::uint64_t my_layout = header[1];
  if (absl::Status st = comm.broadcast(header, sizeof(header), root, opts); !st.ok()) return st;
  if (header[0] == 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("State::sync: root ", root, " has no commit"));
  }
  // A rank whose last commit is root's (same layout, size, count and CRC: the survivors of a
  // shrink or a failure, the old members in a grow) holds the snapshot already; its CRC costs one
  // pass over it, far less than sending it. Only the ranks that lack it receive it, each from one
  // holder (Communicator::spread), and not at all when every rank holds it.
  const bool holds =
      is_root || (has_commit() && my_layout == header[1] && snapshot_.size() == header[2] &&
                  commits_ == header[3] && crc32(snapshot_) == header[4]);
  std::vector<float> held(static_cast<std::size_t>(comm.size()), 0.0f);
  held[static_cast<std::size_t>(comm.rank())] = holds ? 1.0f : 0.0f;
  if (absl::Status st =
          comm.allreduce(coll::Tensor{held.data(), held.size(), coll::DataType::kFloat32},
                         coll::ReduceOp::kSum, opts);
      !st.ok()) {
    return st;
  }
  std::vector<std::uint8_t> holders(held.size());
  for (std::size_t r = 0; r < held.size(); ++r) holders[r] = held[r] != 0.0f ? 1 : 0;
  last_sync_bytes_ = 0;
  if (std::find(holders.begin(), holders.end(), 0) == holders.end()) return restore();
  decltype(snapshot_) incoming;
  if (!holds) incoming.resize(header[2]);
  std::byte* buf = holds ? snapshot_.data() : incoming.data();
  if (absl::Status st = comm.spread(buf, header[2], holders, opts); !st.ok()) return st;
  if (holds) return restore();
  if (header[1] != my_layout) {
    return absl::FailedPreconditionError(
        absl::StrCat("State::sync: rank ", comm.rank(),
                     " registered a different set of buffers than root ", root));
  }
  if (absl::Status st = apply_snapshot(incoming); !st.ok()) return st;
  snapshot_ = std::move(incoming);
  commits_ = header[3];
  last_sync_bytes_ = header[2];
  return absl::OkStatus();
}

}  // namespace elastic::rt
