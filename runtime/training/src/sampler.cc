// Exactly-once elastic sharding (see sampler.h for the invariant).
#include "elastic/worker/sampler.h"

#include <algorithm>
#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "src/bytes.h"

namespace elastic::rt {
namespace {

constexpr std::uint32_t kMagic = 0x53414d31;  // "SAM1"

std::uint64_t splitmix64(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Appends the positions [a, b) of the concatenation of `ranges` to `out`, as ranges, merging
// with the last one when contiguous.
void slice(const std::vector<Range>& ranges, std::uint64_t a, std::uint64_t b,
           std::vector<Range>& out) {
  std::uint64_t base = 0;
  for (const Range& r : ranges) {
    const std::uint64_t len = r.end - r.begin;
    const std::uint64_t lo = std::max(a, base);
    const std::uint64_t hi = std::min(b, base + len);
    if (lo < hi) {
      const Range piece{r.begin + (lo - base), r.begin + (hi - base)};
      if (!out.empty() && out.back().end == piece.begin) {
        out.back().end = piece.end;
      } else {
        out.push_back(piece);
      }
    }
    base += len;
    if (base >= b) break;
  }
}

}  // namespace

Sampler::Sampler(std::uint64_t dataset_size, std::uint64_t batch_size, std::uint64_t seed, int rank,
                 int world_size)
    : dataset_size_(dataset_size),
      batch_size_(batch_size),
      seed_(seed),
      rank_(rank),
      world_size_(world_size) {
  if (dataset_size == 0 || batch_size == 0 || world_size <= 0 || rank < 0 || rank >= world_size) {
    throw std::invalid_argument(
        "Sampler: dataset_size, batch_size and world_size must be > 0 and rank in range");
  }
  remaining_ = {Range{0, dataset_size_}};
}

std::vector<std::uint64_t> Sampler::permutation(std::uint64_t n, std::uint64_t seed,
                                                std::uint64_t epoch) {
  std::vector<std::uint64_t> p(n);
  for (std::uint64_t i = 0; i < n; ++i) p[i] = i;
  std::uint64_t s = seed ^ (epoch * 0xd1b54a32d192ed03ull);
  for (std::uint64_t i = n; i > 1; --i) {
    const std::uint64_t j = splitmix64(s) % i;
    std::swap(p[i - 1], p[j]);
  }
  return p;
}

void Sampler::ensure_permutation() const {
  if (perm_epoch_ == epoch_) return;
  perm_ = permutation(dataset_size_, seed_, epoch_);
  perm_epoch_ = epoch_;
}

std::uint64_t Sampler::remaining_total() const {
  std::uint64_t t = 0;
  for (const Range& r : remaining_) t += r.end - r.begin;
  return t;
}

std::pair<std::uint64_t, std::uint64_t> Sampler::shard(int r) const {
  const std::uint64_t total = remaining_total();
  const auto w = static_cast<std::uint64_t>(world_size_);
  const auto ur = static_cast<std::uint64_t>(r);
  const std::uint64_t base = total / w;
  const std::uint64_t extra = total % w;
  const std::uint64_t first = ur * base + std::min(ur, extra);
  return {first, first + base + (ur < extra ? 1 : 0)};
}

std::uint64_t Sampler::max_shard() const {
  const std::uint64_t total = remaining_total();
  const auto w = static_cast<std::uint64_t>(world_size_);
  return total / w + (total % w != 0 ? 1 : 0);
}

std::vector<std::uint64_t> Sampler::batch() const {
  if (rank_ >= world_size_) return {};
  const auto [first, last] = shard(rank_);
  const std::uint64_t lo = std::min(last, first + steps_ * batch_size_);
  const std::uint64_t hi = std::min(last, lo + batch_size_);
  std::vector<Range> pos;
  slice(remaining_, lo, hi, pos);
  ensure_permutation();
  std::vector<std::uint64_t> ids;
  ids.reserve(hi - lo);
  for (const Range& r : pos) {
    for (std::uint64_t i = r.begin; i < r.end; ++i) ids.push_back(perm_[i]);
  }
  return ids;
}

std::uint64_t Sampler::global_batch_size() const {
  std::uint64_t n = 0;
  for (int r = 0; r < world_size_; ++r) {
    const auto [first, last] = shard(r);
    const std::uint64_t lo = std::min(last, first + steps_ * batch_size_);
    n += std::min(last, lo + batch_size_) - lo;
  }
  return n;
}

std::uint64_t Sampler::processed_in_epoch() const {
  std::uint64_t done = dataset_size_ - remaining_total();
  for (int r = 0; r < world_size_; ++r) {
    const auto [first, last] = shard(r);
    done += std::min(last - first, steps_ * batch_size_);
  }
  return done;
}

void Sampler::advance() {
  ++steps_;
  if (steps_ * batch_size_ >= max_shard()) {
    ++epoch_;
    remaining_ = {Range{0, dataset_size_}};
    steps_ = 0;
  }
}

void Sampler::repartition(int rank, int world_size) {
  if (world_size <= 0 || rank < 0 || rank >= world_size) {
    throw std::invalid_argument(
        absl::StrCat("Sampler::repartition: rank ", rank, " of ", world_size));
  }
  // The unprocessed suffix of every old shard, in order, becomes the new remainder.
  std::vector<Range> next;
  for (int r = 0; r < world_size_; ++r) {
    const auto [first, last] = shard(r);
    slice(remaining_, std::min(last, first + steps_ * batch_size_), last, next);
  }
  remaining_ = std::move(next);
  steps_ = 0;
  rank_ = rank;
  world_size_ = world_size;
  if (remaining_.empty()) {
    ++epoch_;
    remaining_ = {Range{0, dataset_size_}};
  }
}

std::vector<std::byte> Sampler::save() const {
  std::vector<std::byte> out;
  put(out, kMagic);
  put(out, dataset_size_);
  put(out, batch_size_);
  put(out, seed_);
  put(out, epoch_);
  put(out, static_cast<std::int64_t>(world_size_));
  put(out, steps_);
  put(out, static_cast<std::uint64_t>(remaining_.size()));
  for (const Range& r : remaining_) {
    put(out, r.begin);
    put(out, r.end);
  }
  return out;
}

absl::StatusOr<Sampler::Saved> Sampler::parse(std::span<const std::byte> bytes) const {
  Reader in(bytes);
  const auto magic = in.get<std::uint32_t>();
  const auto n = in.get<std::uint64_t>();
  const auto b = in.get<std::uint64_t>();
  const auto seed = in.get<std::uint64_t>();
  const auto epoch = in.get<std::uint64_t>();
  const auto w = in.get<std::int64_t>();
  const auto steps = in.get<std::uint64_t>();
  const auto nr = in.get<std::uint64_t>();
  if (!magic || *magic != kMagic || !n || !b || !seed || !epoch || !w || !steps || !nr) {
    return absl::DataLossError("Sampler state: truncated or not a sampler");
  }
  if (*n != dataset_size_ || *b != batch_size_ || *seed != seed_) {
    return absl::InvalidArgumentError(
        absl::StrCat("Sampler state is for dataset_size=", *n, " batch_size=", *b, " seed=", *seed,
                     ", this sampler has ", dataset_size_, "/", batch_size_, "/", seed_));
  }
  if (*w <= 0 || *w > (1 << 24) || in.left() != *nr * 16) {
    return absl::DataLossError("Sampler state: bad world size or range count");
  }
  Saved saved{*epoch, static_cast<int>(*w), *steps, {}};
  std::uint64_t prev_end = 0;
  for (std::uint64_t i = 0; i < *nr; ++i) {
    const Range r{*in.get<std::uint64_t>(), *in.get<std::uint64_t>()};
    if (r.begin >= r.end || r.end > dataset_size_ || (i > 0 && r.begin < prev_end)) {
      return absl::DataLossError("Sampler state: ranges not sorted/disjoint/in range");
    }
    prev_end = r.end;
    saved.remaining.push_back(r);
  }
  return saved;
}

absl::Status Sampler::check(std::span<const std::byte> bytes) const {
  return parse(bytes).status();
}

absl::Status Sampler::load(std::span<const std::byte> bytes) {
  absl::StatusOr<Saved> saved = parse(bytes);
  if (!saved.ok()) return saved.status();
  epoch_ = saved->epoch;
  world_size_ = saved->world_size;
  steps_ = saved->steps;
  remaining_ = std::move(saved->remaining);
  return absl::OkStatus();
}

}  // namespace elastic::rt
