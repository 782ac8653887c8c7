// State without MPI peers: commit/restore, durable checkpoints (atomic write, reload, damaged
// files give clear errors), registration rules.
#include "elastic/worker/state.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "elastic/worker/sampler.h"

namespace elastic::rt {
namespace {

namespace fs = std::filesystem;

fs::path temp_dir() {
  fs::path d = fs::temp_directory_path() / ("elastic_state_test_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d;
}

struct Model {
  std::vector<float> w = std::vector<float>(1000);
  std::vector<double> m = std::vector<double>(77);
  std::int64_t step = 0;
  double lr = 0.1;
  Sampler sampler{500, 10, 3, 0, 2};
  void fill(float base) {
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = base + static_cast<float>(i) * 0.25f;
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = base * 2 + static_cast<double>(i);
  }
  absl::Status register_in(State& s) {
    for (absl::Status st : {s.add_buffer("w", std::span<float>(w)),
                            s.add_buffer("m", std::span<double>(m)), s.add_scalar("step", &step),
                            s.add_scalar("lr", &lr), s.add_object("sampler", &sampler)}) {
      if (!st.ok()) return st;
    }
    return absl::OkStatus();
  }
};

TEST(State, CommitRestoreRollsBack) {
  Model md;
  State s;
  ASSERT_TRUE(md.register_in(s).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(s.restore()));
  md.fill(1);
  md.step = 5;
  md.sampler.advance();
  ASSERT_TRUE(s.commit().ok());
  const auto w0 = md.w;
  const auto sam0 = md.sampler.save();
  md.fill(9);
  md.step = 6;
  md.sampler.advance();
  ASSERT_TRUE(s.restore().ok());
  EXPECT_EQ(md.w, w0);
  EXPECT_EQ(md.step, 5);
  EXPECT_EQ(md.sampler.save(), sam0);
  EXPECT_EQ(s.commits(), 1u);
}

TEST(State, RegistrationRules) {
  Model md;
  State s;
  ASSERT_TRUE(md.register_in(s).ok());
  float x[2];
  EXPECT_TRUE(absl::IsInvalidArgument(s.add_buffer("w", std::span<float>(x))));
  ASSERT_TRUE(s.commit().ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(s.add_buffer("late", std::span<float>(x))));
}

TEST(State, DurableCheckpointEveryNCommitsReloads) {
  const fs::path dir = temp_dir();
  const fs::path ckpt = dir / "every3.ckpt";
  fs::remove(ckpt);
  Model md;
  State s(StateOptions{ckpt, 3, std::chrono::seconds(0), true});
  ASSERT_TRUE(md.register_in(s).ok());
  md.fill(1);
  ASSERT_TRUE(s.commit().ok());
  ASSERT_TRUE(s.commit().ok());
  EXPECT_FALSE(fs::exists(ckpt));
  md.fill(2);
  md.step = 3;
  ASSERT_TRUE(s.commit().ok());  // third commit: written
  ASSERT_TRUE(fs::exists(ckpt));
  EXPECT_FALSE(fs::exists(fs::path(ckpt).concat(".tmp")));
  const auto w_saved = md.w;

  // "After a runtime restart": a fresh process state loads it.
  Model md2;
  State s2;
  ASSERT_TRUE(md2.register_in(s2).ok());
  ASSERT_TRUE(s2.load_checkpoint(ckpt).ok());
  EXPECT_EQ(md2.w, w_saved);
  EXPECT_EQ(md2.step, 3);
  EXPECT_EQ(s2.commits(), 3u);
  md2.fill(7);
  ASSERT_TRUE(s2.restore().ok());  // the loaded checkpoint is the committed snapshot
  EXPECT_EQ(md2.w, w_saved);
  fs::remove_all(dir);
}

// A checkpoint whose sampler is for another dataset (the job restarted with 600 samples instead of
// 500): refused naming the sampler, and nothing loaded. The weights used to be copied in before the
// sampler refused (a caller that went on from scratch had the checkpoint's model).
TEST(State, ACheckpointAnObjectRefusesLoadsNothing) {
  const fs::path dir = temp_dir();
  const fs::path ckpt = dir / "other_dataset.ckpt";
  Model md;
  State s;
  ASSERT_TRUE(md.register_in(s).ok());
  md.fill(3);
  md.step = 9;
  ASSERT_TRUE(s.commit().ok());
  ASSERT_TRUE(s.save_checkpoint(ckpt).ok());

  Model other;
  other.sampler = Sampler{600, 10, 3, 0, 2};
  State s2;
  ASSERT_TRUE(other.register_in(s2).ok());
  other.fill(5);
  const auto w = other.w;
  const auto m = other.m;
  const absl::Status st = s2.load_checkpoint(ckpt);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("'sampler'"), std::string_view::npos) << st;
  EXPECT_NE(st.message().find("dataset_size=500"), std::string_view::npos) << st;
  EXPECT_EQ(other.w, w);
  EXPECT_EQ(other.m, m);
  EXPECT_EQ(other.step, 0);
  EXPECT_FALSE(s2.has_commit());
  fs::remove_all(dir);
}

// The checkpoint cannot take its name (a folder is there): the error names it and the written
// temp file is removed (it was left behind).
TEST(State, ACheckpointThatCannotBeRenamedLeavesNoTempFile) {
  const fs::path dir = temp_dir();
  const fs::path ckpt = dir / "taken.ckpt";
  fs::create_directories(ckpt / "inside");
  Model md;
  State s;
  ASSERT_TRUE(md.register_in(s).ok());
  ASSERT_TRUE(s.commit().ok());
  const absl::Status st = s.save_checkpoint(ckpt);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("rename to checkpoint '" + ckpt.string() + "'"),
            std::string_view::npos)
      << st;
  EXPECT_FALSE(fs::exists(fs::path(ckpt).concat(".tmp")));
  fs::remove_all(dir);
}

TEST(State, TruncatedOrCorruptCheckpointIsAClearError) {
  const fs::path dir = temp_dir();
  const fs::path ckpt = dir / "c.ckpt";
  Model md;
  State s;
  ASSERT_TRUE(md.register_in(s).ok());
  md.fill(3);
  ASSERT_TRUE(s.commit().ok());
  ASSERT_TRUE(s.save_checkpoint(ckpt).ok());
  const auto full = fs::file_size(ckpt);

  Model other;
  State s2;
  ASSERT_TRUE(other.register_in(s2).ok());
  other.fill(5);
  const auto before = other.w;

  fs::resize_file(ckpt, full - 100);  // truncate the real file
  absl::Status st = s2.load_checkpoint(ckpt);
  EXPECT_TRUE(absl::IsDataLoss(st)) << st;
  EXPECT_NE(st.message().find("truncated"), std::string_view::npos) << st;
  EXPECT_NE(st.message().find(ckpt.string()), std::string_view::npos) << st;
  EXPECT_EQ(other.w, before);  // nothing half-loaded

  ASSERT_TRUE(s.save_checkpoint(ckpt).ok());
  {
    std::fstream f(ckpt, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(full / 2));
    char c = 0;
    f.read(&c, 1);
    f.seekp(static_cast<std::streamoff>(full / 2));
    c = static_cast<char>(c ^ 0x10);
    f.write(&c, 1);
  }
  st = s2.load_checkpoint(ckpt);
  EXPECT_TRUE(absl::IsDataLoss(st)) << st;
  EXPECT_NE(st.message().find("CRC"), std::string_view::npos) << st;
  EXPECT_EQ(other.w, before);

  EXPECT_TRUE(absl::IsNotFound(s2.load_checkpoint(dir / "missing.ckpt")));

  // A checkpoint of a different model is refused, not misread.
  std::vector<float> small(10);
  State s3;
  ASSERT_TRUE(s3.add_buffer("w", std::span<float>(small)).ok());
  ASSERT_TRUE(s.save_checkpoint(ckpt).ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(s3.load_checkpoint(ckpt)));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace elastic::rt
