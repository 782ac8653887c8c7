#include "elastic/daemon/process_table.h"

#include <pmix.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "absl/strings/str_split.h"
#include "fmt/format.h"

namespace elastic::rt {
namespace {

constexpr std::chrono::seconds kQueryTimeout{2};

// One PMIx request in flight (queries, or a job-control request with its targets and directives).
// PMIx keeps pointers to what it was given until its callback, and that may come after the caller
// gave up waiting (or never: a query that the client answers from its own cache never calls back,
// openpmix 5.0 pmix_parse_localquery), so the callback owns a reference.
struct Pending {
  explicit Pending(std::size_t n) : queries(n > 0 ? PMIx_Query_create(n) : nullptr), nqueries(n) {}
  ~Pending() {
    if (queries != nullptr) PMIx_Query_free(queries, nqueries);
    if (directives != nullptr) PMIx_Info_free(directives, ndirectives);
    if (info != nullptr) PMIx_Info_free(info, ninfo);
  }
  Pending(const Pending&) = delete;
  Pending& operator=(const Pending&) = delete;

  pmix_query_t* queries;
  std::size_t nqueries;
  std::vector<pmix_proc_t> targets;
  pmix_info_t* directives = nullptr;
  std::size_t ndirectives = 0;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  pmix_status_t status = PMIX_ERROR;
  pmix_info_t* info = nullptr;
  std::size_t ninfo = 0;
};

void on_answer(pmix_status_t status, pmix_info_t* info, std::size_t ninfo, void* cbdata,
               pmix_release_cbfunc_t release_fn, void* release_cbdata) {
  std::unique_ptr<std::shared_ptr<Pending>> ref(static_cast<std::shared_ptr<Pending>*>(cbdata));
  Pending& p = **ref;
  {
    std::lock_guard lock(p.mu);
    p.status = status;
    if (ninfo > 0) {
      p.info = PMIx_Info_create(ninfo);
      p.ninfo = ninfo;
      for (std::size_t i = 0; i < ninfo; ++i) PMIx_Info_xfer(&p.info[i], &info[i]);
    }
    p.done = true;
  }
  p.cv.notify_all();
  if (release_fn != nullptr) release_fn(release_cbdata);
}

// Sends p's request (`post(cbdata)` passes on_answer and cbdata to a PMIx *_nb call named `what`)
// and waits for the answer, at most kQueryTimeout.
template <typename Post>
absl::Status ask(const std::shared_ptr<Pending>& p, const char* what, Post post) {
  auto* ref = new std::shared_ptr<Pending>(p);
  if (const pmix_status_t rc = post(ref); rc != PMIX_SUCCESS) {
    delete ref;  // no callback comes
    if (rc == PMIX_OPERATION_SUCCEEDED) return absl::OkStatus();
    return absl::UnavailableError(fmt::format("{}: {}", what, PMIx_Error_string(rc)));
  }
  std::unique_lock lock(p->mu);
  if (!p->cv.wait_for(lock, kQueryTimeout, [&] { return p->done; })) {
    return absl::DeadlineExceededError(
        fmt::format("{} unanswered after {} s", what, kQueryTimeout.count()));
  }
  if (p->status != PMIX_SUCCESS && p->status != PMIX_ERR_PARTIAL_SUCCESS) {
    return absl::UnavailableError(fmt::format("{}: {}", what, PMIx_Error_string(p->status)));
  }
  return absl::OkStatus();
}

absl::Status ask(const std::shared_ptr<Pending>& p) {
  return ask(p, "PMIx query", [&](void* cbdata) {
    return PMIx_Query_info_nb(p->queries, p->nqueries, on_answer, cbdata);
  });
}

// The namespaces (jobs) mpirun runs, this process's own left out: it is elasticd alone, and
// asking for it is what the client answers from its cache.
absl::StatusOr<std::vector<std::string>> other_namespaces() {
  auto p = std::make_shared<Pending>(1);
  PMIx_Argv_append_nosize(&p->queries[0].keys, PMIX_QUERY_NAMESPACES);
  if (absl::Status st = ask(p); !st.ok()) return st;
  const char* self = std::getenv("PMIX_NAMESPACE");
  std::vector<std::string> out;
  std::lock_guard lock(p->mu);
  for (std::size_t i = 0; i < p->ninfo; ++i) {
    const pmix_info_t& in = p->info[i];
    if (std::strcmp(in.key, PMIX_QUERY_NAMESPACES) != 0 || in.value.type != PMIX_STRING ||
        in.value.data.string == nullptr) {
      continue;
    }
    for (absl::string_view ns : absl::StrSplit(in.value.data.string, ',', absl::SkipEmpty())) {
      if (self == nullptr || ns != self) out.emplace_back(ns);
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::map<ProcessKey, PrrteProc>> running_processes() {
  absl::StatusOr<std::vector<std::string>> spaces = other_namespaces();
  if (!spaces.ok()) return spaces.status();
  std::map<ProcessKey, PrrteProc> running;
  // One query per job: PRRTE fails a whole query when one of its jobs has ended meanwhile.
  for (const std::string& ns : *spaces) {
    auto p = std::make_shared<Pending>(1);
    PMIx_Argv_append_nosize(&p->queries[0].keys, PMIX_QUERY_PROC_TABLE);
    PMIx_Query_qualifiers_create(&p->queries[0], 1);
    PMIx_Info_load(&p->queries[0].qualifiers[0], PMIX_NSPACE, ns.c_str(), PMIX_STRING);
    if (absl::Status st = ask(p); absl::IsDeadlineExceeded(st)) {
      return st;
    } else if (!st.ok()) {
      continue;  // the job is gone, and its processes with it
    }
    std::lock_guard lock(p->mu);
    for (std::size_t i = 0; i < p->ninfo; ++i) {
      const pmix_value_t& v = p->info[i].value;
      if (std::strcmp(p->info[i].key, PMIX_QUERY_PROC_TABLE) != 0 || v.type != PMIX_DATA_ARRAY ||
          v.data.darray == nullptr || v.data.darray->type != PMIX_PROC_INFO) {
        continue;
      }
      const auto* procs = static_cast<const pmix_proc_info_t*>(v.data.darray->array);
      for (std::size_t k = 0; k < v.data.darray->size; ++k) {
        if (procs[k].state < PMIX_PROC_STATE_TERMINATED && procs[k].hostname != nullptr) {
          running.emplace(ProcessKey{procs[k].hostname, static_cast<int>(procs[k].pid)},
                          PrrteProc{procs[k].proc.nspace, procs[k].proc.rank});
        }
      }
    }
  }
  return running;
}

absl::Status kill_processes(std::span<const PrrteProc> procs) {
  if (procs.empty()) return absl::OkStatus();
  auto p = std::make_shared<Pending>(0);
  for (const PrrteProc& proc : procs) {
    pmix_proc_t& t = p->targets.emplace_back();
    PMIx_Load_procid(&t, proc.nspace.c_str(), proc.rank);
  }
  p->ndirectives = 1;
  p->directives = PMIx_Info_create(1);
  const bool kill = true;
  PMIx_Info_load(&p->directives[0], PMIX_JOB_CTRL_KILL, &kill, PMIX_BOOL);
  return ask(p, "PMIx_Job_control_nb(kill)", [&](void* cbdata) {
    return PMIx_Job_control_nb(p->targets.data(), p->targets.size(), p->directives, p->ndirectives,
                               on_answer, cbdata);
  });
}

}  // namespace elastic::rt
