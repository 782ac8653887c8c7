// The controller <-> rank directive encoding (protocol.h): what decode()/validate_leaving() accept
// and reject. An invalid header must come back as Aborted (the repair path), never as OK.
#include "elastic/worker/internal/protocol.h"

#include <gtest/gtest.h>

#include <vector>

namespace elastic::rt::proto {
namespace {

TEST(Protocol, RoundTripsEveryDirective) {
  for (Directive d : {Directive::kLeave, Directive::kResume, Directive::kStop}) {
    const int count = d == Directive::kLeave ? 2 : 0;
    const Header h{d, count, 17, Reason::kRepair, d == Directive::kLeave ? 12345 : 0};
    absl::StatusOr<Header> back = decode(encode(h), 5);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->directive, d);
    EXPECT_EQ(back->count, count);
    EXPECT_EQ(back->generation, 17);
    EXPECT_EQ(back->reason, Reason::kRepair);
  }
}

TEST(Protocol, EncodedValuesAreNonNegativeForTheSumExchange) {
  const RawHeader raw = encode(Header{Directive::kLeave, 3, 1 << 30, Reason::kStart,
                                      list_checksum(std::vector<int>{1, 2, 3})});
  for (int v : raw) EXPECT_GE(v, 0);
}

TEST(Protocol, RejectsTheAllZeroHeaderOfAFailedExchange) {
  absl::StatusOr<Header> h = decode(RawHeader{}, 4);
  ASSERT_FALSE(h.ok());
  EXPECT_TRUE(absl::IsAborted(h.status())) << h.status();
}

TEST(Protocol, RejectsAnyChangedField) {
  const RawHeader good =
      encode(Header{Directive::kLeave, 1, 4, Reason::kPlan, list_checksum(std::vector<int>{2})});
  for (int i = 0; i < kHeaderInts; ++i) {
    for (int delta : {1, -1, 1 << 20}) {
      RawHeader bad = good;
      bad[static_cast<std::size_t>(i)] += delta;
      absl::StatusOr<Header> h = decode(bad, 4);
      EXPECT_TRUE(absl::IsAborted(h.status())) << "field " << i << " delta " << delta;
    }
  }
}

TEST(Protocol, RejectsOutOfRangeValuesEvenWithAValidChecksum) {
  // count must fit the job: a kLeave of every rank or none, counts on other directives.
  EXPECT_FALSE(decode(encode(Header{Directive::kLeave, 0, 1, Reason::kPlan, 0}), 4).ok());
  EXPECT_FALSE(decode(encode(Header{Directive::kLeave, 3, 1, Reason::kPlan, 0}), 4)
                   .ok());  // ranks 1..3 = all
  EXPECT_FALSE(decode(encode(Header{Directive::kResume, 1, 1, Reason::kPlan, 0}), 4).ok());
  EXPECT_FALSE(
      decode(encode(Header{Directive::kStop, 0, 1, static_cast<Reason>(3), 0}), 4).ok());  // reason
  EXPECT_FALSE(decode(encode(Header{static_cast<Directive>(9), 0, 1, Reason::kPlan, 0}), 4).ok());
  // 1 is no directive: grows go through kTagSpawns.
  EXPECT_FALSE(decode(encode(Header{static_cast<Directive>(1), 0, 1, Reason::kPlan, 0}), 4).ok());
  EXPECT_TRUE(decode(encode(Header{Directive::kLeave, 2, 1, Reason::kPlan, 0}), 4).ok());
}

TEST(Protocol, ValidatesTheLeavingList) {
  const std::vector<int> list{1, 3};
  const Header h{Directive::kLeave, 2, 5, Reason::kPlan, list_checksum(list)};
  EXPECT_TRUE(validate_leaving(list, h, 5).ok());
  EXPECT_TRUE(absl::IsAborted(validate_leaving(std::vector<int>{0, 0}, h, 5)));  // zeroed
  EXPECT_TRUE(absl::IsAborted(validate_leaving(std::vector<int>{3, 1}, h, 5)));  // order
  EXPECT_TRUE(absl::IsAborted(validate_leaving(std::vector<int>{1}, h, 5)));     // length
  const std::vector<int> outside{1, 5};
  EXPECT_TRUE(absl::IsAborted(validate_leaving(
      outside, Header{Directive::kLeave, 2, 5, Reason::kPlan, list_checksum(outside)}, 5)));
  const std::vector<int> controller{0, 2};
  EXPECT_TRUE(absl::IsAborted(validate_leaving(
      controller, Header{Directive::kLeave, 2, 5, Reason::kPlan, list_checksum(controller)}, 5)));
}

}  // namespace
}  // namespace elastic::rt::proto
