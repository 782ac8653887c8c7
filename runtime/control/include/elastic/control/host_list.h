// Compressed host lists as the schedulers print them, expanded to one name per host. LOCAL, pure.
//   Slurm (sinfo and squeue %N, SLURM_JOB_NODELIST, scontrol show hostlist): names separated by
//     commas, each with any number of bracket groups of numbers and ranges; a range keeps the
//     width of its first bound (zero padding) and groups multiply out left to right:
//       node[1-4,7]       -> node1 node2 node3 node4 node7
//       n[01-10]          -> n01 n02 ... n10
//       r[1-2]-n[1-2],gpu -> r1-n1 r1-n2 r2-n1 r2-n2 gpu
//   PBS (qstat -f exec_vnode and exec_host, nodes=/select= style lists): chunks joined by '+';
//     a chunk is "(vnode:res=value:...)", which may itself join several vnodes with '+', or
//     "host/slots" (slots: N, N*COUNT, N-M or N,M,...), or a plain host. Brackets are part of a
//     PBS name (vnodes of one host are called host[0], host[1], ...), never a range:
//       (x1:ncpus=64:ngpus=4)+(x2:ncpus=64)   -> x1 x2
//       (uv[0]:ncpus=8+uv[1]:ncpus=8)          -> uv[0] uv[1]
//       n1/0*16+n2/0*16                        -> n1 n2
//       n1/0-15+n1/16-31+n2/0-31               -> n1 n2
// Names keep the order of their first appearance; a host listed again (a job with several chunks
// on one node) appears once. Errors: InvalidArgument "<source>: <what> '<token>'" for an empty
// name, unbalanced brackets or parentheses, a range that is not two numbers in order, a chunk
// that is not of the forms above, or more than alloc::kMaxNodes names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace elastic::rt {

absl::StatusOr<std::vector<std::string>> expand_slurm_hosts(std::string_view text,
                                                            std::string_view source);
absl::StatusOr<std::vector<std::string>> expand_pbs_hosts(std::string_view text,
                                                          std::string_view source);

}  // namespace elastic::rt
