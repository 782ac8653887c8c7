// LD_PRELOAD fault injector for pitfalls.sh test M: makes mpirun lose a launch race every time.
// PRRTE's ssh launcher forks each launch agent; the child calls setpgid(0, 0) and execs the agent,
// and the parent calls setpgid(child, child) too, which fails with EACCES once the child has exec'd
// (a fast agent wins the race now and then). Here every such parent-side call waits
// ELASTIC_TEST_SETPGID_DELAY_MS (default 100) first, so that the child has always exec'd. libprrte
// reaches setpgid through the PLT, so interposing it works on an unmodified build. Prints one line
// per delayed call so that the test can tell the injection happened.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

typedef int (*setpgid_fn)(pid_t, pid_t);

int setpgid(pid_t pid, pid_t pgid) {
  static setpgid_fn real;
  if (real == NULL) real = (setpgid_fn)dlsym(RTLD_NEXT, "setpgid");
  if (pid != 0 && pid != getpid()) {
    const char* env = getenv("ELASTIC_TEST_SETPGID_DELAY_MS");
    const long ms = env != NULL ? strtol(env, NULL, 10) : 100;
    fprintf(stderr, "setpgid_delay: setpgid(%ld) in the parent held back %ld ms\n", (long)pid, ms);
    usleep((useconds_t)(ms * 1000));
  }
  return real(pid, pgid);
}
