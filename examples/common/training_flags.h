// The command-line options that examples 02-04 share, and what rt::run gets from them.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

#include "elastic/worker/run.h"
#include "idx_reader.h"

namespace elastic::examples {

struct TrainingFlags {
  std::string data_dir = kFashionMnistDir;
  double lr = 0.01;
  std::size_t batch = 64;
  std::uint64_t epochs = 5;
  std::uint64_t commit_every = 10;
  std::uint64_t seed = 1;
  std::string checkpoint;
  double target_accuracy = 0;
  int lr_ranks = 0;
  double lr_decay = 1.0;
  double stall_timeout_s = 0;

  // --data-dir, --lr, --batch, --epochs, --seed, --commit-every, --checkpoint, --target-accuracy,
  // --lr-ranks, --lr-decay and --stall-timeout, with the values above as their defaults (set a
  // field before calling this to change one).
  void add_to(CLI::App& app);
  // rt::run's options: these, and a durable checkpoint every 20 commits.
  rt::RunOptions run_options() const;
  // The learning rate at `ranks` ranks in epoch `epoch` (0-based): --lr times ranks / --lr-ranks
  // (the linear scaling rule; 1 without --lr-ranks) times --lr-decay to the power `epoch` (step
  // decay). The examples set it when a membership starts and when an epoch ends.
  double rate(int ranks, std::uint64_t epoch) const;
};

// Parses the command line into the options added to `app`. --help prints the help and exits 0; a
// bad option prints CLI11's message naming it and exits 2.
void parse_or_exit(CLI::App& app, int argc, char** argv);

}  // namespace elastic::examples
