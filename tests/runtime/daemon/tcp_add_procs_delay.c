// LD_PRELOAD fault injector for pitfalls.sh test H: widens a race in Open MPI's TCP BTL.
// mca_btl_tcp_proc_create publishes a new peer in the component's table (opal_proc_table_set_value,
// its only caller) and releases the component lock; mca_btl_tcp_add_procs then takes the peer's
// own lock and inserts its endpoints. Here the thread that published a peer sleeps
// ELASTIC_TEST_ADD_PROCS_DELAY_MS (default 1000) right after its next pthread_mutex_unlock (that
// release), so that a connection from that peer, accepted meanwhile by another thread, meets the
// peer with no endpoint. Both symbols are reached through the PLT (libopen-pal calls
// opal_proc_table_set_value that way), so interposing them works on an unmodified build. Prints one
// line per delay so that the test can tell the injection happened.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  uint32_t jobid;
  uint32_t vpid;
} process_name;  // opal_process_name_t: passed by value, same layout

typedef int (*set_value_fn)(void*, process_name, void*);
typedef int (*unlock_fn)(pthread_mutex_t*);

static set_value_fn real_set_value;
static unlock_fn real_unlock;
static __thread int armed;
static __thread process_name published;

__attribute__((constructor)) static void resolve(void) {
  real_set_value = (set_value_fn)dlsym(RTLD_NEXT, "opal_proc_table_set_value");
  real_unlock = (unlock_fn)dlsym(RTLD_NEXT, "pthread_mutex_unlock");
}

int opal_proc_table_set_value(void* table, process_name key, void* value) {
  const int rc = real_set_value(table, key, value);
  published = key;
  armed = 1;
  return rc;
}

int pthread_mutex_unlock(pthread_mutex_t* m) {
  const int rc = real_unlock(m);
  if (armed) {
    armed = 0;
    const char* env = getenv("ELASTIC_TEST_ADD_PROCS_DELAY_MS");
    const long ms = env != NULL ? strtol(env, NULL, 10) : 1000;
    fprintf(stderr, "tcp_add_procs_delay: peer vpid %u published, its endpoints held back %ld ms\n",
            published.vpid, ms);
    usleep((useconds_t)(ms * 1000));
  }
  return rc;
}
