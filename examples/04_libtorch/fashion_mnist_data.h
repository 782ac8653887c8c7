// Fashion-MNIST as a torch::data dataset, read from Debian's dataset-fashion-mnist (the gzip'ed IDX
// files; example 02's reader) and held as two tensors: images N x 1 x 28 x 28, normalised with the
// training set's mean and standard deviation, and int64 labels. get_batch() gathers the rows of
// the given ids at once (one index_select, not one tensor per sample and a stack).
#pragma once

#include <torch/torch.h>

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace elastic::examples {

class FashionMnist
    : public ::torch::data::datasets::BatchDataset<FashionMnist, ::torch::data::Example<>,
                                                   c10::ArrayRef<std::size_t>> {
 public:
  // LOCAL. `prefix` is "train" or "t10k". Errors name the file (see idx_reader.h).
  static absl::StatusOr<FashionMnist> load(const std::filesystem::path& dir,
                                           const std::string& prefix);

  ::torch::data::Example<> get_batch(c10::ArrayRef<std::size_t> ids) override;
  ::torch::optional<std::size_t> size() const override {
    return static_cast<std::size_t>(labels_.size(0));
  }
  const ::torch::Tensor& images() const { return images_; }
  const ::torch::Tensor& labels() const { return labels_; }

 private:
  FashionMnist(::torch::Tensor images, ::torch::Tensor labels)
      : images_(std::move(images)), labels_(std::move(labels)) {}
  ::torch::Tensor images_;
  ::torch::Tensor labels_;
};

}  // namespace elastic::examples
