#include "fashion_mnist_data.h"

#include "absl/strings/str_cat.h"
#include "idx_reader.h"

namespace elastic::examples {

absl::StatusOr<FashionMnist> FashionMnist::load(const std::filesystem::path& dir,
                                                const std::string& prefix) {
  absl::StatusOr<Dataset> d = load_idx(dir, prefix);
  if (!d.ok()) return d.status();
  // The tensors are views of 28 x 28 pixels per image: other sizes would be read past their end.
  if (d->features != 28 * 28) {
    return absl::InvalidArgumentError(absl::StrCat("'", images_file(dir, prefix).string(),
                                                   "': images of ", d->features,
                                                   " pixels, the CNN takes 28 x 28 = 784"));
  }
  const auto n = static_cast<std::int64_t>(d->count);
  ::torch::Tensor images =
      ::torch::from_blob(d->images.data(), {n, 1, 28, 28}, ::torch::kFloat32).clone();
  ::torch::Tensor labels =
      ::torch::from_blob(d->labels.data(), {n}, ::torch::kUInt8).to(::torch::kInt64);
  // The training set's statistics (0.2860, 0.3530), used for both sets.
  images.sub_(0.2860).div_(0.3530);
  return FashionMnist(std::move(images), std::move(labels));
}

::torch::data::Example<> FashionMnist::get_batch(c10::ArrayRef<std::size_t> ids) {
  std::vector<std::int64_t> idx(ids.begin(), ids.end());
  const ::torch::Tensor index = ::torch::tensor(idx, ::torch::kInt64);
  return {images_.index_select(0, index), labels_.index_select(0, index)};
}

}  // namespace elastic::examples
