// torch::data batches from the exactly-once Sampler: the run loop hands each step this rank's
// sample ids (StepContext::ids, from elastic::rt::Sampler, which State commits and re-cuts over
// every new membership); get_batch() turns them into the batch of a torch::data dataset. Any
// dataset with get_batch(ArrayRef<size_t>) works: a BatchDataset of your own, or a Dataset mapped
// with a stacking transform:
//
//   auto data = torch::data::datasets::MNIST(dir).map(torch::data::transforms::Stack<>());
//   step: auto batch = elastic::libtorch::get_batch(data, ctx.ids);   // batch.data, batch.target
//
// Use it instead of a torch::data::DataLoader: a loader prefetches and shuffles on its own, which
// would take samples out of the Sampler's lockstep (and out of the committed state). LOCAL.
#pragma once

#include <c10/util/ArrayRef.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace elastic::libtorch {

template <typename Dataset>
auto get_batch(Dataset& dataset, std::span<const std::uint64_t> ids) {
  std::vector<std::size_t> idx(ids.begin(), ids.end());
  return dataset.get_batch(c10::ArrayRef<std::size_t>(idx));
}

}  // namespace elastic::libtorch
