// --scale-workload: copies side by side and repetitions in time, with their ids and arrival times;
// the copies needed to reach a trace's mean idle pool.
#include "elastic/replay/scale_workload.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace elastic::replay {
namespace {

std::vector<traces::WorkloadJob> three_jobs() {
  std::vector<traces::WorkloadJob> w(3);
  for (int i = 0; i < 3; ++i) {
    w[i].id = "J" + std::to_string(i);
    w[i].max_nodes = 4;
    w[i].submit_unix = 1000 + 50 * i;  // span 100 s, mean gap 50 s: repetition period 150 s
  }
  return w;
}

std::vector<std::string> ids(const std::vector<traces::WorkloadJob>& w) {
  std::vector<std::string> out;
  for (const auto& j : w)
    out.push_back(j.id + "@" + std::to_string(static_cast<int>(j.submit_unix)));
  return out;
}

TEST(ScaleWorkload, CopiesSideBySideAndRepeatedUntilTheSpanEnds) {
  absl::StatusOr<std::vector<traces::WorkloadJob>> w = scale_workload(three_jobs(), 2, 260);
  ASSERT_TRUE(w.ok()) << w.status();
  // Repetition 1 starts 150 s later; its last job (at 250 s after the first submission) is in the
  // span, a third repetition (300 s) is not.
  EXPECT_EQ(ids(*w),
            (std::vector<std::string>{"J0@1000", "J1@1050", "J2@1100", "J0#2@1000", "J1#2@1050",
                                      "J2#2@1100", "J0@1@1150", "J1@1@1200", "J2@1@1250",
                                      "J0#2@1@1150", "J1#2@1@1200", "J2#2@1@1250"}));
  // One copy over a span shorter than the list is the list itself.
  w = scale_workload(three_jobs(), 1, 10);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(ids(*w), (std::vector<std::string>{"J0@1000", "J1@1050", "J2@1100"}));
  EXPECT_FALSE(scale_workload(three_jobs(), kMaxWorkloadCopies, 1e9).ok());
}

TEST(ScaleWorkload, CopiesToFillTheMeanIdlePool) {
  traces::HoleTrace t;
  t.start = 0;
  t.end = 100;
  for (int i = 0; i < 90; ++i) {  // 90 nodes idle all the time
    t.node_names.push_back("n" + std::to_string(i));
    t.intervals.push_back({i, 0, 100, true});
  }
  // 10 running x 4 nodes = 40 per copy: 3 copies reach 90.
  EXPECT_EQ(copies_to_fill(t, three_jobs(), 10), 3);
  EXPECT_EQ(copies_to_fill(t, three_jobs(), 100), 1);
  EXPECT_EQ(copies_to_fill(t, {}, 10), 1);
}

}  // namespace
}  // namespace elastic::replay
