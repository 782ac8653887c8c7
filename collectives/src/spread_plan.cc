// Rounds of Communicator::spread (spread_plan.h).
#include "elastic/collectives/spread_plan.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace elastic::coll {

absl::StatusOr<std::vector<std::vector<Transfer>>> spread_plan(std::span<const std::uint8_t> holds,
                                                               int size) {
  if (holds.size() != static_cast<std::size_t>(size)) {
    return absl::InvalidArgumentError(
        absl::StrCat("spread: holds has ", holds.size(), " entries for ", size, " ranks"));
  }
  std::vector<int> holders;
  std::vector<int> lacking;
  for (int r = 0; r < size; ++r)
    (holds[static_cast<std::size_t>(r)] != 0 ? holders : lacking).push_back(r);
  if (holders.empty()) return absl::InvalidArgumentError("spread: no rank holds the data");
  std::vector<std::vector<Transfer>> rounds;
  std::size_t next = 0;  // lacking[next..] have not been served
  while (next < lacking.size()) {
    const std::size_t n = std::min(holders.size(), lacking.size() - next);
    std::vector<Transfer>& round = rounds.emplace_back();
    for (std::size_t i = 0; i < n; ++i) round.push_back(Transfer{holders[i], lacking[next + i]});
    holders.insert(holders.end(), lacking.begin() + static_cast<std::ptrdiff_t>(next),
                   lacking.begin() + static_cast<std::ptrdiff_t>(next + n));
    std::sort(holders.begin(), holders.end());
    next += n;
  }
  return rounds;
}

std::optional<Transfer> transfer_of(std::span<const Transfer> round, int rank) {
  for (const Transfer& t : round) {
    if (t.from == rank || t.to == rank) return t;
  }
  return std::nullopt;
}

}  // namespace elastic::coll
