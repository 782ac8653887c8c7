// Tensor fusion over any backend: pack same-dtype tensors into the communicator's scratch buffer
// (host or device memory) up to the threshold, reduce once, unpack.
#include "elastic/collectives/fusion.h"

#include <vector>

#include "absl/strings/str_cat.h"

namespace elastic::coll {
namespace {

// Reduces tensors[idx...] (same dtype, total <= threshold) through one scratch buffer.
absl::Status reduce_group(Communicator& comm, std::span<const Tensor> tensors,
                          const std::vector<std::size_t>& idx, DataType dtype, ReduceOp op,
                          const FusionOptions& opts) {
  if (idx.size() == 1) return comm.allreduce(tensors[idx[0]], op, opts.call);
  std::size_t bytes = 0;
  for (std::size_t i : idx) bytes += tensors[i].bytes();
  absl::StatusOr<std::span<std::byte>> buf = comm.scratch(bytes);
  if (!buf.ok()) return buf.status();
  std::size_t off = 0;
  for (std::size_t i : idx) {
    if (absl::Status st =
            comm.copy(buf->data() + off, tensors[i].data, tensors[i].bytes(), opts.call);
        !st.ok()) {
      return st;
    }
    off += tensors[i].bytes();
  }
  const Tensor fused{buf->data(), bytes / dtype_size(dtype), dtype};
  if (absl::Status st = comm.allreduce(fused, op, opts.call); !st.ok()) return st;
  off = 0;
  for (std::size_t i : idx) {
    if (absl::Status st =
            comm.copy(tensors[i].data, buf->data() + off, tensors[i].bytes(), opts.call);
        !st.ok()) {
      return st;
    }
    off += tensors[i].bytes();
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status allreduce_fused(Communicator& comm, std::span<const Tensor> tensors, ReduceOp op,
                             const FusionOptions& opts) {
  constexpr DataType kTypes[] = {DataType::kFloat32, DataType::kFloat64, DataType::kBFloat16,
                                 DataType::kFloat16};
  // Every rank walks the same list in the same order, so the groups (and hence the sequence of
  // underlying collectives) are identical on every rank.
  for (DataType dtype : kTypes) {
    std::vector<std::size_t> group;
    std::size_t group_bytes = 0;
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      const Tensor& t = tensors[i];
      if (t.dtype != dtype || t.count == 0) continue;
      if (t.data == nullptr)
        return absl::InvalidArgumentError(absl::StrCat("tensor ", i, ": null data"));
      if (t.bytes() > opts.threshold_bytes) {
        if (absl::Status st = comm.allreduce(t, op, opts.call); !st.ok()) return st;
        continue;
      }
      if (group_bytes + t.bytes() > opts.threshold_bytes) {
        if (absl::Status st = reduce_group(comm, tensors, group, dtype, op, opts); !st.ok())
          return st;
        group.clear();
        group_bytes = 0;
      }
      group.push_back(i);
      group_bytes += t.bytes();
    }
    if (!group.empty()) {
      if (absl::Status st = reduce_group(comm, tensors, group, dtype, op, opts); !st.ok())
        return st;
    }
  }
  return comm.health();
}

}  // namespace elastic::coll
