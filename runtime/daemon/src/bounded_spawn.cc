// bounded_spawn (bounded_spawn.h): MPI_Comm_spawn_multiple in a detached helper thread, abandoned
// at the deadline. Everything the call touches lives in a shared Call, so the helper never refers
// to the caller's stack after an abandon.
#include "elastic/daemon/bounded_spawn.h"

#include <mpi-ext.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#include "elastic/collectives/mpi_check.h"
#include "elastic/worker/internal/membership_error.h"
#include "fmt/format.h"

namespace elastic::rt {

namespace {

struct Call {
  std::vector<SpawnRequest> commands;
  std::vector<MPI_Info> infos;
  coll::Comm own_parent;  // the private SELF duplicate, or the caller's parent once abandoned
  MPI_Comm parent = MPI_COMM_NULL;
  coll::Comm inter;
  int rc = MPI_SUCCESS;
  std::vector<int> errcodes;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  bool abandoned = false;

  ~Call() {
    for (MPI_Info& info : infos) MPI_Info_free(&info);
  }
};

void run_spawn(const std::shared_ptr<Call>& call) {
  const std::size_t n = call->commands.size();
  std::vector<std::vector<char*>> argvs(n);
  std::vector<char*> commands(n);
  std::vector<int> procs(n);
  for (std::size_t i = 0; i < n; ++i) {
    const SpawnRequest& req = call->commands[i];
    std::vector<char*>& argv = argvs[i];
    auto arg = [&argv](const std::string& a) { argv.push_back(const_cast<char*>(a.c_str())); };
    if (!req.env.empty()) {
      for (const std::string& kv : req.env) arg(kv);
      arg(req.command);
    }
    for (const std::string& a : req.args) arg(a);
    argv.push_back(nullptr);
    commands[i] = const_cast<char*>(req.env.empty() ? req.command.c_str() : kEnvProgram);
    procs[i] = req.procs;
  }
  std::vector<char**> argv_of(n);
  for (std::size_t i = 0; i < n; ++i) argv_of[i] = argvs[i].data();
  MPI_Comm inter = MPI_COMM_NULL;
  const int rc =
      MPI_Comm_spawn_multiple(static_cast<int>(n), commands.data(), argv_of.data(), procs.data(),
                              call->infos.data(), 0, call->parent, &inter, call->errcodes.data());
  std::lock_guard<std::mutex> lock(call->mu);
  call->rc = rc;
  call->inter = coll::Comm(inter);
  call->done = true;
  if (call->abandoned) {
    // Nobody waits for this spawn any more: late children must not wait on us either.
    call->inter.revoke();
    call->inter.reset();
    call->own_parent.reset();
  }
  call->cv.notify_all();
}

}  // namespace

absl::StatusOr<coll::Comm> bounded_spawn(const std::vector<SpawnRequest>& commands,
                                         coll::Comm* parent, std::chrono::milliseconds timeout) {
  if (commands.empty()) return absl::InvalidArgumentError("spawn: no command");
  std::size_t processes = 0;
  for (const SpawnRequest& request : commands) {
    for (const std::string& kv : request.env) {
      if (kv.find('=') == std::string::npos || kv.front() == '=') {
        return absl::InvalidArgumentError(
            fmt::format("spawn environment: '{}' is not NAME=VALUE", kv));
      }
    }
    if (!request.env.empty() && request.command.find('=') != std::string::npos) {
      // env(1) would take it for one more NAME=VALUE.
      return absl::InvalidArgumentError(fmt::format(
          "command '{}': a path with '=' cannot be spawned with an environment", request.command));
    }
    processes += static_cast<std::size_t>(std::max(1, request.procs));
  }
  auto call = std::make_shared<Call>();
  call->commands = commands;
  call->errcodes.assign(processes, MPI_SUCCESS);
  for (const SpawnRequest& request : commands) {
    MPI_Info info = MPI_INFO_NULL;
    ELASTIC_MPI_CHECK(MPI_Info_create(&info));
    call->infos.push_back(info);
    for (const auto& [k, v] : request.info) {
      ELASTIC_MPI_CHECK(MPI_Info_set(info, k.c_str(), v.c_str()));
    }
  }
  if (parent == nullptr) {
    // A private communicator: an abandoned spawn on MPI_COMM_SELF would share it with the next.
    ELASTIC_MPI_CHECK(MPI_Comm_dup(MPI_COMM_SELF, call->own_parent.out()));
    MPI_Comm_set_errhandler(call->own_parent.get(), MPI_ERRORS_RETURN);
    call->parent = call->own_parent.get();
  } else {
    call->parent = parent->get();
  }
  int level = MPI_THREAD_SINGLE;
  MPI_Query_thread(&level);
  if (level != MPI_THREAD_MULTIPLE) {
    run_spawn(call);
  } else {
    std::thread(run_spawn, call).detach();
    std::unique_lock<std::mutex> lock(call->mu);
    if (!call->cv.wait_for(lock, timeout, [&] { return call->done; })) {
      call->abandoned = true;
      if (parent != nullptr) {
        parent->revoke();
        call->own_parent = std::move(*parent);
      }
      return absl::DeadlineExceededError(fmt::format(
          "MPI_Comm_spawn of {} did not return within {} ms (does the command hang before "
          "MPI_Init?)",
          commands.front().command, timeout.count()));
    }
  }
  if (call->rc != MPI_SUCCESS) {
    const absl::Status st =
        coll::mpi_status(call->rc, "MPI_Comm_spawn_multiple", __FILE__, __LINE__);
    return spawn_error(absl::Status(
        st.code(), fmt::format("{} (its processes did not all start and connect: the command "
                               "exited before MPI_Init, or the host was lost or unreachable; "
                               "mpirun's lines in elasticd's log say which)",
                               std::string(st.message()))));
  }
  for (int code : call->errcodes) {
    if (code != MPI_SUCCESS) {
      call->inter.revoke();
      return spawn_error(
          coll::mpi_status(code, "MPI_Comm_spawn (a process's error code)", __FILE__, __LINE__));
    }
  }
  MPI_Comm_set_errhandler(call->inter.get(), MPI_ERRORS_RETURN);
  return std::move(call->inter);
}

}  // namespace elastic::rt
