// Reproduces the Open MPI 5.0.7 behaviours the runtime is designed around (pitfalls.sh runs it):
//   pitfall_probe spawn HOST:N... one spawn+merge+allreduce per host ("host" and "PMIX_ADD_HOST"
//                                 info keys, 2 ranks; earlier children stay), "spawn HOST:N ok"
//                                 per success
//   pitfall_probe leave MODE      spawns 2 ranks on the local node twice; the children leave by
//                                 MODE: free-finalize | disconnect-finalize | exit-no-finalize |
//                                 sigkill; the parent prints "round N ok" and "parent finalized"
//   pitfall_probe noinit          spawns /bin/sh -c "exit 1" (exits before MPI_Init) with
//                                 MPI_ERRORS_RETURN; prints "spawning" and, if MPI_Comm_spawn ever
//                                 returns, "spawn returned RC"
//   pitfall_probe idup N          under mpirun -n K: the last rank SIGKILLs itself, the others
//                                 call MPI_Comm_idup on a duplicate of the world N times (each
//                                 fails), print "idup I rc RC" and "rank R finalized"
//   pitfall_probe accept-race     under mpirun -n 2 (MPI_THREAD_MULTIPLE): rank 1 sends to rank 0
//                                 while a thread of its own polls; rank 0 sends to rank 1 300 ms
//                                 later; each then receives; prints "accept-race rank R rc RC got
//                                 V" (pitfalls.sh H preloads tcp_add_procs_delay.so into rank 1)
//   pitfall_probe revoke          under mpirun with 2+ ranks on each of 2+ hosts (so that coll/han
//                                 runs the collectives): after one allreduce on a duplicate of the
//                                 world, the last rank revokes it instead of joining the next;
//                                 the others print "revoke rank R rc RC" when theirs returns
//   pitfall_probe async-leave DIR under mpirun with 3+ ranks (one job spanning hosts; pitfalls.sh
//                                 K sets async_mpi_finalize): the last rank frees its
//                                 communicators, calls MPI_Finalize and then creates DIR/left; the
//                                 others wait for that file (30 s at most) before they finalize
//                                 and print "stayer rank R saw the leaver finalized: yes|no",
//                                 then spawn 1 process onto the leaver's host together and print
//                                 "stayer rank R grew back onto HOST: ok|failed"
//   pitfall_probe apps TAG        under mpirun with 2 apps (commands) on one host, TAG differing:
//                                 each prints "apps rank R argv A" (A: OMPI_ARGV, the command line
//                                 its daemon forked it with); then rank 0 spawns 1 process (a job
//                                 of 1 app) onto its host and prints "apps spawn ok|failed"
//   pitfall_probe free-pending HOST
//                                 spawns 1 process onto HOST, posts a receive from it on the
//                                 intercommunicator, frees that and has the child SIGKILL itself;
//                                 prints "free-pending request ended|still pending rc RC" and
//                                 "free-pending parent alive"
//   pitfall_probe dup-fail        under mpirun -n 2+ (pitfalls.sh O preloads activate_hold.so):
//                                 a barrier, then MPI_Comm_dup of the world with the injector
//                                 armed (the last rank dies in it), then a barrier on the
//                                 duplicate if it was made; prints "dup-fail rank R dup rc RC
//                                 barrier rc RC" and "dup-fail rank R alive"
//   pitfall_probe nbc-fail        under mpirun -n 2: rank 1 SIGKILLs itself; once rank 0's receive
//                                 from it has failed, rank 0 runs MPI_Iallreduce (in place, 1 int)
//                                 on the world and prints "nbc-fail rank 0 iallreduce rc RC class
//                                 C ulfm yes|no" (yes: MPIX_ERR_PROC_FAILED or MPIX_ERR_REVOKED)
//   pitfall_probe pmix-nodelay    after MPI_Init: this process's TCP connections to its PMIx
//                                 server (the port of PMIX_SERVER_URI*), and how many have Nagle
//                                 off: "pmix-nodelay port P sockets N nodelay M"
#include <mpi.h>
// mpi-ext.h (MPIX_Comm_revoke) needs mpi.h first.
#include <arpa/inet.h>
#include <dirent.h>
#include <mpi-ext.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace {

// Rank 1's first send to rank 0 creates its TCP endpoint for rank 0 (Open MPI adds peers on first
// use), while its poller thread runs MPI progress; rank 0's connection arrives in that window.
int accept_race() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  std::atomic<bool> stop{false};
  std::thread poller;
  if (rank == 1) {
    poller = std::thread([&stop] {
      while (!stop) {
        int flag = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        usleep(1000);
      }
    });
  }
  if (rank == 0) usleep(300000);
  const int peer = 1 - rank;
  int mine = 100 + rank;
  int theirs = -1;
  alarm(30);
  int rc = MPI_Send(&mine, 1, MPI_INT, peer, 1, MPI_COMM_WORLD);
  if (rc == MPI_SUCCESS) {
    rc = MPI_Recv(&theirs, 1, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  stop = true;
  if (poller.joinable()) poller.join();
  std::printf("accept-race rank %d rc %d got %d\n", rank, rc, theirs);
  std::fflush(stdout);
  alarm(15);
  MPI_Finalize();
  return 0;
}

// A revoke must end a blocking collective that a rank will never join. coll/han runs it on
// sub-communicators of its own, which stock 5.0.7 does not revoke with their parent.
int revoke_allreduce() {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int one = 1;
  int sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);  // han builds its sub-communicators
  alarm(30);
  if (rank == size - 1) {
    sleep(1);
    MPIX_Comm_revoke(comm);
  } else {
    const int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
    std::printf("revoke rank %d rc %d\n", rank, rc);
    std::fflush(stdout);
  }
  sleep(1);  // the revoke reaches everyone before anyone finalizes
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return 0;
}

// A spawned process and the communicators that reach it.
struct Spawned {
  MPI_Comm inter = MPI_COMM_NULL;
  MPI_Comm merged = MPI_COMM_NULL;  // the parents first
  int sum = 0;                      // the merged size, or 0 when the spawn failed
};

// COLLECTIVE over `parent`: spawns 1 process of `self` onto `host` (argv "child" `child_mode`;
// `host` is added to the job), merges with it and sums a 1 from every member.
Spawned spawn_merge(const char* self, const char* host, MPI_Comm parent,
                    const char* child_mode = "free-finalize") {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "host", host);
  MPI_Info_set(info, "PMIX_ADD_HOST", host);
  MPI_Info_set(info, "map_by", ":OVERSUBSCRIBE");
  char child[] = "child";
  std::string mode = child_mode;
  char* child_argv[] = {child, mode.data(), nullptr};
  MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
  Spawned s;
  if (MPI_Comm_spawn(self, child_argv, 1, info, 0, parent, &s.inter, MPI_ERRCODES_IGNORE) ==
      MPI_SUCCESS) {
    MPI_Intercomm_merge(s.inter, 0, &s.merged);
    MPI_Comm_set_errhandler(s.merged, MPI_ERRORS_RETURN);
    int one = 1;
    MPI_Allreduce(&one, &s.sum, 1, MPI_INT, MPI_SUM, s.merged);
  }
  MPI_Info_free(&info);
  return s;
}

// As spawn_merge, and frees both communicators: the merged size, or 0 when the spawn failed.
int spawn_one_onto(const char* self, const char* host, MPI_Comm parent) {
  Spawned s = spawn_merge(self, host, parent);
  if (s.merged != MPI_COMM_NULL) MPI_Comm_free(&s.merged);
  if (s.inter != MPI_COMM_NULL) MPI_Comm_free(&s.inter);
  return s.sum;
}

// An intercommunicator freed while a receive on it is still pending stays in Open MPI's table
// of communicators (the request holds it) with its local communicator already released. When a
// process of it then fails, ULFM revokes its collectives, and stock 5.0.7's ob1 revokes that
// released local communicator too, which has no PML state: the process crashed in
// mca_pml_ob1_revoke_comm. The receive then fails, and the error must reach the
// intercommunicator's handler (errors return, inherited from MPI_COMM_SELF), not MPI_COMM_WORLD's
// (fatal). The child on `host` kills itself when told to; prints "free-pending request ended rc
// RC" (or "... still pending") and "free-pending parent alive".
int free_pending(const char* self, const char* host) {
  Spawned s = spawn_merge(self, host, MPI_COMM_SELF, "sigkill-on-message");
  if (s.sum != 2) {
    std::printf("free-pending spawn failed\n");
    std::fflush(stdout);
    _exit(1);
  }
  int never = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Irecv(&never, 1, MPI_INT, 0, 1, s.inter, &req);  // the child never sends it
  MPI_Comm_free(&s.inter);
  int one = 1;
  MPI_Send(&one, 1, MPI_INT, 1, 0, s.merged);  // the child's cue to SIGKILL itself
  int done = 0;
  int rc = MPI_SUCCESS;
  for (int i = 0; i < 2000 && done == 0 && rc == MPI_SUCCESS; ++i) {
    rc = MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    if (done == 0 && rc == MPI_SUCCESS) usleep(10000);
  }
  std::printf("free-pending request %s rc %d\n",
              done != 0 || rc != MPI_SUCCESS ? "ended" : "still pending", rc);
  std::printf("free-pending parent alive\n");
  std::fflush(stdout);
  _exit(0);  // as `spawn` does: pitfalls.sh reads only the lines above
}

// A process fails while a new communicator is in Open MPI's table without PML state yet (after
// its context id, before ob1's add_comm; activate_hold.so holds that window open and kills the
// last rank in it). ULFM revokes the collectives of every communicator that has the failed
// process, and a revoke of one without PML state would crash in ob1; ompi_comm_lookup leaves such
// communicators out. The survivors' MPI_Comm_dup must return, and a failure it did not report
// must be reported by the new communicator's first collective.
int dup_fail() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Barrier(MPI_COMM_WORLD);  // every pair connected before the window
  alarm(30);
  setenv("ELASTIC_TEST_ACTIVATE_ARM", "1", 1);
  MPI_Comm dup = MPI_COMM_NULL;
  const int rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int barrier_rc = rc;
  if (rc == MPI_SUCCESS) {
    MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    barrier_rc = MPI_Barrier(dup);
  }
  std::printf("dup-fail rank %d dup rc %d barrier rc %d\n", rank, rc, barrier_rc);
  std::printf("dup-fail rank %d alive\n", rank);
  std::fflush(stdout);
  _exit(0);  // as `spawn` does: pitfalls.sh reads only the lines above
}

// A non-blocking collective on a communicator whose collectives ULFM has disabled after a failure.
// libnbc's in-place binomial allreduce on 2 ranks starts with a round of a local copy; the next
// round's receive fails at once, in the progress call nested in NBC_Start_round, and stock 5.0.7
// turned that error into OMPI_ERROR: the caller got MPI_ERR_OTHER, not a ULFM error class, and
// libnbc printed two error lines. Rank 0 waits until its receive from the dead rank 1 has failed
// (the failure is known), then runs the allreduce.
int nbc_fail() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Barrier(MPI_COMM_WORLD);
  alarm(30);
  if (rank == 1) raise(SIGKILL);
  int never = 0;
  MPI_Recv(&never, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);  // fails: rank 1 died
  int value = rank;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_Iallreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
  if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  const bool ulfm = cls == MPIX_ERR_PROC_FAILED || cls == MPIX_ERR_REVOKED;
  std::printf("nbc-fail rank %d iallreduce rc %d class %d ulfm %s\n", rank, rc, cls,
              ulfm ? "yes" : "no");
  std::fflush(stdout);
  _exit(0);  // as `spawn` does: pitfalls.sh reads only the line above
}

// A process of a job spanning hosts leaves while the others go on, as a node's ranks do on a
// shrink when one spawn placed the job on several nodes: its MPI_Finalize must return without
// waiting for them. DIR is a folder every host sees (the box's hosts have /tmp of their own).
int async_leave(const std::string& self_path, const std::string& dir) {
  int rank = 0;
  int size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm job = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &job);
  int one = 1;
  int sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, job);  // every pair has talked
  const bool leaver = rank == size - 1;
  MPI_Comm rest = MPI_COMM_NULL;
  MPI_Comm_split(job, leaver ? MPI_UNDEFINED : 0, rank, &rest);
  MPI_Comm_free(&job);
  const std::string left = dir + "/left";
  alarm(60);
  if (leaver) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    MPI_Finalize();
    std::FILE* f = std::fopen(left.c_str(), "w");
    if (f != nullptr) {
      std::fputs(host, f);
      std::fclose(f);
    }
    return 0;
  }
  bool saw = false;
  for (int i = 0; i < 300 && !saw; ++i) {
    saw = access(left.c_str(), F_OK) == 0;
    if (!saw) usleep(100000);
  }
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, rest);  // the job goes on without the leaver
  std::printf("stayer rank %d saw the leaver finalized: %s (rest %d)\n", rank, saw ? "yes" : "no",
              sum);
  std::fflush(stdout);
  // ... and grows back onto the leaver's host: the new process connects with the stayers, whose
  // job the leaver's daemon must still know.
  char host[256] = {};
  if (std::FILE* f = std::fopen(left.c_str(), "r"); f != nullptr) {
    if (std::fgets(host, sizeof host, f) == nullptr) host[0] = '\0';
    std::fclose(f);
  }
  sum = spawn_one_onto(self_path.c_str(), host, rest);
  std::printf("stayer rank %d grew back onto %s: %s\n", rank, host, sum == size ? "ok" : "failed");
  std::fflush(stdout);
  MPI_Comm_free(&rest);
  MPI_Finalize();
  return 0;
}

}  // namespace

// The PMIx server's TCP port from the URI the server gave this client ("...;tcp4://ADDR:PORT").
int pmix_server_port() {
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    if (kv.rfind("PMIX_SERVER_URI", 0) != 0) continue;
    const std::size_t colon = kv.rfind(':');
    if (colon != std::string::npos) return std::atoi(kv.c_str() + colon + 1);
  }
  return -1;
}

// Every socket of this process connected to the PMIx server's port, and whether TCP_NODELAY is on.
int pmix_nodelay() {
  const int port = pmix_server_port();
  int sockets = 0;
  int nodelay = 0;
  DIR* d = opendir("/proc/self/fd");
  for (dirent* e = d != nullptr ? readdir(d) : nullptr; e != nullptr; e = readdir(d)) {
    const int fd = std::atoi(e->d_name);
    sockaddr_storage peer{};
    socklen_t len = sizeof(peer);
    if (e->d_name[0] == '.' || getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) {
      continue;
    }
    int peer_port = -1;
    if (peer.ss_family == AF_INET) {
      peer_port = ntohs(reinterpret_cast<sockaddr_in*>(&peer)->sin_port);
    } else if (peer.ss_family == AF_INET6) {
      peer_port = ntohs(reinterpret_cast<sockaddr_in6*>(&peer)->sin6_port);
    }
    if (peer_port != port) continue;
    ++sockets;
    int on = 0;
    socklen_t on_len = sizeof(on);
    if (getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, &on_len) == 0 && on != 0) ++nodelay;
  }
  if (d != nullptr) closedir(d);
  std::printf("pmix-nodelay port %d sockets %d nodelay %d\n", port, sockets, nodelay);
  std::fflush(stdout);
  MPI_Finalize();
  return 0;
}

int apps(const char* self) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* argv = std::getenv("OMPI_ARGV");
  std::printf("apps rank %d argv %s\n", rank, argv != nullptr ? argv : "(unset)");
  std::fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    const int sum = spawn_one_onto(self, host, MPI_COMM_SELF);
    std::printf("apps spawn %s\n", sum == 2 ? "ok" : "failed");
    std::fflush(stdout);
  }
  _exit(0);  // as `spawn` does: pitfalls.sh reads only the lines above
}

int main(int argc, char** argv) {
  const std::string what = argc > 1 ? argv[1] : "";
  int provided = 0;
  MPI_Init_thread(&argc, &argv, what == "accept-race" ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE,
                  &provided);
  if (what == "accept-race") return accept_race();
  if (what == "revoke") return revoke_allreduce();
  if (what == "pmix-nodelay") return pmix_nodelay();
  if (what == "async-leave") return async_leave(argv[0], argc > 2 ? argv[2] : ".");
  if (what == "apps") return apps(argv[0]);
  if (what == "dup-fail") return dup_fail();
  if (what == "nbc-fail") return nbc_fail();
  if (what == "free-pending") return free_pending(argv[0], argc > 2 ? argv[2] : "localhost");
  MPI_Comm parent = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    MPI_Comm merged = MPI_COMM_NULL;
    MPI_Intercomm_merge(parent, 1, &merged);
    int one = 1;
    int sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    const std::string mode = argc > 2 ? argv[2] : "free-finalize";
    if (what == "spawn") sleep(30);  // stay until the parent's mpirun ends
    if (mode == "sigkill-on-message") {
      MPI_Recv(&one, 1, MPI_INT, 0, 0, merged, MPI_STATUS_IGNORE);
      raise(SIGKILL);
    }
    if (mode == "sigkill") raise(SIGKILL);
    if (mode == "exit-no-finalize") {
      MPI_Comm_free(&merged);
      _exit(0);
    }
    if (mode == "disconnect-finalize") {
      MPI_Comm_disconnect(&merged);
      MPI_Comm_disconnect(&parent);
    } else {
      MPI_Comm_free(&merged);
      MPI_Comm_free(&parent);
    }
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  if (what == "idup") {
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);  // the duplicate inherits it
    MPI_Comm world = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &world);
    MPI_Barrier(world);
    if (rank == size - 1) raise(SIGKILL);
    sleep(1);
    const int n = argc > 2 ? std::atoi(argv[2]) : 2;
    for (int i = 0; i < n; ++i) {
      MPI_Comm out = MPI_COMM_NULL;
      MPI_Request req = MPI_REQUEST_NULL;
      int rc = MPI_Comm_idup(world, &out, &req);
      if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
      std::printf("rank %d idup %d rc %d\n", rank, i, rc);
      std::fflush(stdout);
    }
    MPI_Comm_free(&world);
    alarm(15);
    MPI_Finalize();
    std::printf("rank %d finalized\n", rank);
    return 0;
  }
  if (what == "noinit") {
    char sh[] = "/bin/sh";
    char dash_c[] = "-c";
    char code[] = "exit 1";
    char* sh_argv[] = {dash_c, code, nullptr};
    MPI_Comm inter = MPI_COMM_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    std::printf("spawning\n");
    std::fflush(stdout);
    const int rc = MPI_Comm_spawn(sh, sh_argv, 1, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                                  MPI_ERRCODES_IGNORE);
    std::printf("spawn returned %d\n", rc);
    std::fflush(stdout);
    _exit(0);
  }
  const bool spawn_mode = what == "spawn";
  const int rounds = spawn_mode ? argc - 2 : 2;
  for (int i = 0; i < rounds; ++i) {
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "map_by", ":OVERSUBSCRIBE");
    if (spawn_mode) {
      MPI_Info_set(info, "host", argv[i + 2]);
      MPI_Info_set(info, "PMIX_ADD_HOST", argv[i + 2]);
      MPI_Info_set(info, "bind_to", "none");
    }
    char* child_argv[] = {argv[1], spawn_mode ? nullptr : argv[2], nullptr};
    MPI_Comm inter = MPI_COMM_NULL;
    if (MPI_Comm_spawn(argv[0], child_argv, 2, info, 0, MPI_COMM_SELF, &inter,
                       MPI_ERRCODES_IGNORE) != MPI_SUCCESS) {
      std::printf("spawn %d failed\n", i);
      continue;
    }
    MPI_Comm merged = MPI_COMM_NULL;
    MPI_Intercomm_merge(inter, 0, &merged);
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    int one = 1;
    int sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    if (spawn_mode) {
      std::printf("spawn %s %s\n", argv[i + 2], sum == 3 ? "ok" : "wrong");
    } else {
      std::printf("round %d %s\n", i, sum == 3 ? "ok" : "wrong");
    }
    std::fflush(stdout);
    if (!spawn_mode && std::strcmp(argv[2], "disconnect-finalize") == 0) {
      MPI_Comm_disconnect(&merged);
      MPI_Comm_disconnect(&inter);
    } else {
      MPI_Comm_free(&merged);
      MPI_Comm_free(&inter);
    }
    sleep(1);
  }
  if (spawn_mode) _exit(0);
  alarm(15);
  MPI_Finalize();
  std::printf("parent finalized\n");
  return 0;
}
