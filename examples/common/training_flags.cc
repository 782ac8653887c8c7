#include "training_flags.h"

#include <cmath>
#include <cstdlib>

#include "elastic/cli/number_checks.h"

namespace elastic::examples {

void TrainingFlags::add_to(CLI::App& app) {
  app.add_option("--data-dir", data_dir, "folder with the *-idx?-ubyte.gz files");
  app.add_option("--lr", lr, "learning rate");
  app.add_option("--batch", batch, "samples per rank per step")->check(elastic::cli::positive());
  app.add_option("--epochs", epochs, "epochs to train")->check(elastic::cli::positive());
  app.add_option("--seed", seed, "seed of the initialisation and the data order");
  app.add_option("--commit-every", commit_every, "steps between in-memory commits")
      ->check(elastic::cli::positive());
  app.add_option("--checkpoint", checkpoint,
                 "durable checkpoint path, resumed from when it exists (default under elasticd: "
                 "the job's folder in the state dir)");
  app.add_option("--target-accuracy", target_accuracy,
                 "exit 1 when training completes below this test accuracy (not when the runtime "
                 "stops the job)");
  app.add_option("--lr-ranks", lr_ranks,
                 "the number of ranks --lr is meant for: the rate follows the job's size (linear "
                 "scaling rule, lr x ranks / N); 0 keeps it constant")
      ->check(elastic::cli::non_negative());
  app.add_option("--lr-decay", lr_decay,
                 "factor the learning rate is multiplied by after each epoch; 1 keeps it")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--stall-timeout", stall_timeout_s,
                 "a rank whose step or evaluation spends longer than this in its own code (not "
                 "waiting for the others) is stuck: it kills itself and the others repair without "
                 "it; 0: off")
      ->check(elastic::cli::non_negative_seconds());
}

rt::RunOptions TrainingFlags::run_options() const {
  rt::RunOptions opts;
  opts.epochs = epochs;
  opts.commit_every = commit_every;
  opts.checkpoint_path = checkpoint;
  opts.checkpoint_every_commits = 20;
  opts.stall_timeout = std::chrono::milliseconds(std::llround(stall_timeout_s * 1000));
  return opts;
}

double TrainingFlags::rate(int ranks, std::uint64_t epoch) const {
  const double scale = lr_ranks > 0 ? static_cast<double>(ranks) / lr_ranks : 1.0;
  return lr * scale * std::pow(lr_decay, static_cast<double>(epoch));
}

void parse_or_exit(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e) == 0 ? 0 : 2);
  }
}

}  // namespace elastic::examples
