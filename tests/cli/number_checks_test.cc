// The option checks for numbers (number_checks.h): what passes is finite, durations and sizes are
// bounded so that the programs' conversions cannot overflow, and a refusal says what is wanted.
#include "elastic/cli/number_checks.h"

#include <gtest/gtest.h>

#include <string>

namespace elastic::cli {
namespace {

// The check's message for `value`: empty when it passes.
std::string check(const CLI::Validator& v, std::string value) { return v(value); }

TEST(NumberChecks, InfinityAndNanAreRefused) {
  for (const CLI::Validator& v :
       {positive(), non_negative(), positive_seconds(), non_negative_seconds(),
        positive_megabytes(), non_negative_megabytes()}) {
    EXPECT_EQ(check(v, "inf"), "must be a finite number, got inf") << v.get_description();
    EXPECT_EQ(check(v, "INF"), "must be a finite number, got INF") << v.get_description();
    EXPECT_NE(check(v, "nan"), "") << v.get_description();
    EXPECT_NE(check(v, "-inf"), "") << v.get_description();
  }
}

TEST(NumberChecks, LowerBounds) {
  EXPECT_EQ(check(positive(), "0"), "must be > 0, got 0");
  EXPECT_EQ(check(positive(), "-1"), "must be > 0, got -1");
  EXPECT_EQ(check(positive(), "1e300"), "");
  EXPECT_EQ(check(positive(), "1e-300"), "");
  EXPECT_EQ(check(non_negative(), "0"), "");
  EXPECT_EQ(check(non_negative(), "-0.5"), "must be >= 0, got -0.5");
  EXPECT_EQ(check(positive_seconds(), "0"), "must be > 0, got 0");
  EXPECT_EQ(check(non_negative_seconds(), "0"), "");
  EXPECT_EQ(check(positive_megabytes(), "0"), "must be > 0, got 0");
  EXPECT_EQ(check(non_negative_megabytes(), "0"), "");
  EXPECT_EQ(check(positive(), "abc"), "'abc' is not a number");
}

TEST(NumberChecks, DurationsAndSizesHaveAnUpperBound) {
  EXPECT_EQ(check(positive_seconds(), "1e7"), "");
  EXPECT_EQ(check(non_negative_seconds(), "1e7"), "");
  EXPECT_EQ(check(positive_seconds(), "1.0001e7"),
            "must be at most 1e7 seconds (about 116 days), got 1.0001e7");
  EXPECT_EQ(check(non_negative_seconds(), "1e300"),
            "must be at most 1e7 seconds (about 116 days), got 1e300");
  EXPECT_EQ(check(positive_megabytes(), "1e6"), "");
  EXPECT_EQ(check(non_negative_megabytes(), "1e300"),
            "must be at most 1e6 MB (about 1 TB), got 1e300");
  EXPECT_EQ(check(positive_megabytes(), "2e6"), "must be at most 1e6 MB (about 1 TB), got 2e6");
  // The bounds keep the conversions the programs do in range.
  EXPECT_LT(kMaxSeconds * 1e9, 9.2e18 / 2);  // int64 nanoseconds, with room for now() + it
  EXPECT_LT(kMaxMegabytes * 1024 * 1024, 1.8e19 / 2);
}

// Through CLI11: the option is named and a bad value is a parse error (exit 2 in every main).
TEST(NumberChecks, AnOptionRefusesInfinity) {
  CLI::App app;
  double every = 0;
  app.add_option("--every", every)->check(non_negative_seconds());
  const char* argv[] = {"prog", "--every", "inf"};
  try {
    app.parse(3, const_cast<char**>(argv));
    FAIL() << "--every inf was accepted";
  } catch (const CLI::ValidationError& e) {
    EXPECT_NE(std::string(e.what()).find("--every: must be a finite number, got inf"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace elastic::cli
