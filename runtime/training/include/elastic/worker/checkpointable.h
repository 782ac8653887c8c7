// Something whose state can be saved into and loaded from bytes, so that State can commit it,
// broadcast it to a joining rank and write it into a durable checkpoint alongside the model
// (the Sampler is the main example).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "absl/status/status.h"

namespace elastic::rt {

class Checkpointable {
 public:
  virtual ~Checkpointable() = default;
  // LOCAL. Must be deterministic: equal states give equal bytes.
  virtual std::vector<std::byte> save() const = 0;
  // LOCAL. Rejects malformed input with InvalidArgument/DataLoss and then leaves the object unchanged.
  virtual absl::Status load(std::span<const std::byte> bytes) = 0;
  // LOCAL. What load(bytes) would return, changing nothing. State asks every object before it
  // loads any, so that a snapshot one object refuses changes none of the others nor the buffers.
  // The default accepts: an object whose load() can refuse well-formed bytes (another dataset,
  // another model) should say so here.
  virtual absl::Status check(std::span<const std::byte> /*bytes*/) const {
    return absl::OkStatus();
  }
};

}  // namespace elastic::rt
