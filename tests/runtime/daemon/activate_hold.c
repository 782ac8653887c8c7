// LD_PRELOAD fault injector for pitfalls.sh test O: a process fails while a new communicator is
// in Open MPI's table but has no PML state yet. ompi_comm_nextcid puts a new communicator in the
// table when its context id is agreed; ompi_comm_activate_nb adds ob1's state (add_comm) only
// later (ompi_comm_lookup, which the failure's revoke uses, leaves it out until then). Armed by
// ELASTIC_TEST_ACTIVATE_ARM in the environment (the probe sets it right before
// its MPI_Comm_dup), the next ompi_comm_activate_nb of the job's last rank SIGKILLs that rank;
// every other rank first drives progress for ELASTIC_TEST_ACTIVATE_HOLD_MS (default 3000), as
// another thread of the process would (a grow's helper thread merges while the training thread
// drives progress), so that the failure is handled in that window. libmpi calls
// ompi_comm_activate_nb through the PLT, so interposing it works on an unmodified build. Prints
// a line when a hold starts and one when it ends, so that the test can tell the failure was
// handled in between.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*activate_nb_fn)(void**, void*, void*, const void*, const void*, _Bool, int, void**);
typedef int (*progress_fn)(void);

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int ompi_comm_activate_nb(void** newcomm, void* comm, void* bridgecomm, const void* arg0,
                          const void* arg1, _Bool send_first, int mode, void** req) {
  static activate_nb_fn real;
  if (real == NULL) real = (activate_nb_fn)dlsym(RTLD_NEXT, "ompi_comm_activate_nb");
  if (getenv("ELASTIC_TEST_ACTIVATE_ARM") != NULL) {
    unsetenv("ELASTIC_TEST_ACTIVATE_ARM");
    const char* rank = getenv("OMPI_COMM_WORLD_RANK");
    const char* size = getenv("OMPI_COMM_WORLD_SIZE");
    if (rank != NULL && size != NULL && atoi(rank) == atoi(size) - 1) raise(SIGKILL);
    const char* env = getenv("ELASTIC_TEST_ACTIVATE_HOLD_MS");
    const long ms = env != NULL ? strtol(env, NULL, 10) : 3000;
    fprintf(stderr, "activate_hold: rank %s's new communicator held %ld ms before add_comm\n",
            rank != NULL ? rank : "?", ms);
    const progress_fn progress = (progress_fn)dlsym(RTLD_DEFAULT, "opal_progress");
    for (const double end = now_ms() + ms; now_ms() < end;) progress();
    fprintf(stderr, "activate_hold: hold ended\n");
  }
  return real(newcomm, comm, bridgecomm, arg0, arg1, send_first, mode, req);
}
