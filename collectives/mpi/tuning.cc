#include "mpi/tuning.h"

#include <mpi.h>


namespace elastic::coll::mpi {

namespace {

// Runs `f(handle)` on the control variable `name` inside an MPI_T session. False when the variable
// does not exist (another MPI) or MPI_T is unavailable.
template <typename F>
bool with_cvar(const char* name, F&& f) {
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return false;
  bool found = false;
  int index = -1;
  if (MPI_T_cvar_get_index(name, &index) == MPI_SUCCESS && index >= 0) {
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    int count = 0;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
      found = true;
      f(handle);
      MPI_T_cvar_handle_free(&handle);
    }
  }
  MPI_T_finalize();
  return found;
}

}  // namespace

bool process_failures_reported() {
  static const bool reported = [] {
    bool on = false;
    with_cvar("mpi_ft_enable", [&](MPI_T_cvar_handle h) {
      // A C bool: read into zeroed storage wide enough for any scalar type.
      unsigned char value[16] = {};
      if (MPI_T_cvar_read(h, value) == MPI_SUCCESS) on = value[0] != 0;
    });
    return on;
  }();
  return reported;
}

}  // namespace elastic::coll::mpi
