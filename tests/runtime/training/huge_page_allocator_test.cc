// HugePageAllocator (elastic/worker/huge_page_allocator.h): alignment, use through std::vector,
// and, where the kernel lets a process ask for transparent huge pages, that a large buffer gets
// them (read back from /proc/self/smaps).
#include "elastic/worker/huge_page_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace elastic::rt {
namespace {

using Bytes = std::vector<std::byte, HugePageAllocator<std::byte>>;
constexpr std::size_t kHuge = HugePageAllocator<std::byte>::kHugePage;

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  const auto open = line.find('[');
  const auto close = line.find(']');
  return open == std::string::npos || close == std::string::npos
             ? ""
             : line.substr(open + 1, close - open - 1);
}

// AnonHugePages (kB) of the mapping that contains `p`.
long anon_huge_kb(const void* p) {
  std::ifstream in("/proc/self/smaps");
  const auto addr = reinterpret_cast<std::uintptr_t>(p);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    std::uintptr_t lo = 0;
    std::uintptr_t hi = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> lo >> dash >> hi && dash == '-') {
      inside = lo <= addr && addr < hi;
      continue;
    }
    if (inside && line.rfind("AnonHugePages:", 0) == 0) return std::stol(line.substr(14));
  }
  return -1;
}

TEST(HugePageAllocator, LargeBuffersAreHugePageAligned) {
  HugePageAllocator<std::byte> a;
  for (std::size_t n : {kHuge, kHuge + 1, 3 * kHuge + 12345}) {
    std::byte* p = a.allocate(n);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p) % kHuge, 0u) << n;
    std::memset(p, 0x5a, n);  // the whole rounded-up block is ours
    a.deallocate(p, n);
  }
}

TEST(HugePageAllocator, SmallBuffersAndVectorsWork) {
  Bytes v;
  for (int i = 0; i < 100000; ++i) v.push_back(static_cast<std::byte>(i));  // grows through 2 MiB
  ASSERT_EQ(v.size(), 100000u);
  for (int i = 0; i < 100000; i += 997) EXPECT_EQ(v[i], static_cast<std::byte>(i));
  Bytes empty(0);
  Bytes copy = v;
  EXPECT_EQ(copy, v);
  EXPECT_THROW(HugePageAllocator<std::uint64_t>().allocate(SIZE_MAX / 4),
               std::bad_array_new_length);
}

TEST(HugePageAllocator, LargeBufferGetsHugePagesWhereTheKernelAllowsIt) {
  const std::string mode = thp_mode();
  if (mode != "madvise" && mode != "always") {
    GTEST_SKIP() << "transparent huge pages are '" << mode << "' on this kernel";
  }
  Bytes v(4 * kHuge);  // zero-filled: every page touched
  const long kb = anon_huge_kb(v.data());
  ASSERT_GE(kb, 0) << "no mapping of the buffer in /proc/self/smaps";
  // The kernel may lack free huge pages at the moment; at least one of the four must be huge.
  EXPECT_GE(kb, static_cast<long>(kHuge / 1024)) << "THP mode " << mode;
}

}  // namespace
}  // namespace elastic::rt
