// 01_hello: the smallest elastic training loop. The same program runs standalone
// (`mpirun -n 4 hello 100`) and under elasticd (`elastic submit hello.toml`), where the runtime
// grows and shrinks it between steps. The one line a training loop adds is s.report(samples);
// the rest is the step boundary, where membership changes arrive.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "elastic/worker/session.h"

int main(int argc, char** argv) {
  using elastic::rt::Event;
  char* end = nullptr;
  const long steps = argc > 1 ? std::strtol(argv[1], &end, 10) : 100;
  if (argc > 1 && (end == argv[1] || *end != '\0' || steps < 1)) {
    std::fprintf(stderr,
                 "usage: hello [STEPS]   (STEPS: a positive integer, default 100; got '%s')\n",
                 argv[1]);
    return 2;
  }
  auto session = elastic::rt::Session::init(&argc, &argv);
  if (!session.ok()) {
    std::fprintf(stderr, "hello: %s\n", std::string(session.status().message()).c_str());
    return 1;
  }
  elastic::rt::Session& s = **session;
  // The "state", the same on every rank: the model and the steps kept so far.
  double model = 0;
  long step = 0;
  // Rank 0 (the oldest) sends the state to everyone: new members need it, and after a failure the
  // survivors may disagree on whether the last step passed its boundary.
  auto sync = [&] {
    MPI_Bcast(&model, 1, MPI_DOUBLE, 0, s.comm());
    MPI_Bcast(&step, 1, MPI_LONG, 0, s.comm());
  };
  // A rank fresh from init() syncs the state like one that saw kChanged: at a grow the old ranks
  // see kChanged while the new ones come out of init(), so both sides meet in the same Bcast.
  sync();
  for (;;) {
    double grad = 1.0;  // this rank's contribution
    int rc = MPI_Allreduce(MPI_IN_PLACE, &grad, 1, MPI_DOUBLE, MPI_SUM, s.comm());
    absl::StatusOr<Event> ev = Event::kContinue;
    if (rc != MPI_SUCCESS) {
      ev = s.recover();  // a peer died: the survivors carry on
    } else {
      s.report(1);  // <- the one-line change: samples this rank processed
      const int size = s.size();
      ev = s.step_boundary(step + 1 >= steps);
      if (ev.ok()) {
        // The step counts once it passed the boundary: only then is it kept.
        model += grad / size;
        ++step;
      } else if (absl::IsAborted(ev.status())) {
        ev = s.recover();  // the step is dropped and redone
      }
    }
    if (!ev.ok()) {
      std::fprintf(stderr, "hello: %s\n", std::string(ev.status().message()).c_str());
      s.exit(1);
    }
    if (*ev == Event::kChanged || *ev == Event::kRecovered) {
      sync();
      std::printf("rank %d of %d (generation %d)\n", s.rank(), s.size(), s.generation());
    }
    if (*ev == Event::kStop) {
      if (s.rank() == 0)
        std::printf("done: %ld steps, model %.1f, %lld samples\n", step, model,
                    static_cast<long long>(s.samples_total()));
      s.exit(0);
    }
    if (*ev == Event::kLeave) s.exit(0);
  }
}
