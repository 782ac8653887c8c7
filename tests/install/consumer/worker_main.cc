// Uses the installed rank-side API only (elastic/worker/: Session, State, Sampler), which must not
// need the internal headers that are never installed. Runs standalone on one process (no mpirun):
// a Session on MPI_COMM_WORLD, one committed step. Prints "worker size=1 samples=8".
#include <cstdio>
#include <span>
#include <vector>

#include "elastic/worker/sampler.h"
#include "elastic/worker/session.h"
#include "elastic/worker/state.h"

int main(int argc, char** argv) {
  auto session = elastic::rt::Session::init(&argc, &argv);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    return 1;
  }
  elastic::rt::Sampler sampler(64, 8, 1, (*session)->rank(), (*session)->size());
  std::vector<double> weights(4, 0.0);
  elastic::rt::State state;
  if (!state.add_buffer("w", std::span<double>(weights)).ok() ||
      !state.add_object("sampler", &sampler).ok()) {
    return 1;
  }
  (*session)->report(static_cast<std::int64_t>(sampler.batch().size()));
  sampler.advance();
  if (!state.commit().ok()) return 1;
  auto event = (*session)->step_boundary();
  if (!event.ok()) return 1;
  std::printf("worker size=%d samples=%lld\n", (*session)->size(),
              static_cast<long long>((*session)->samples_total()));
  (*session)->exit(0);
}
