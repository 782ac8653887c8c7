// The main of a fuzz target in builds without libFuzzer (gcc): runs the target once on each file
// given, or on each file of each directory given (sorted), as libFuzzer does with a corpus and no
// fuzzing. ctest runs it over the seeds and the regression inputs (tests/fuzz/CMakeLists.txt), so
// an input that once crashed a parser is fed to it again in every build. Exit 1 when no input was
// found: a replay that ran nothing must not pass.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fuzz_input.h"

namespace {

void run_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::fprintf(stderr, "running %s (%zu bytes)\n", path.c_str(), bytes.size());
  LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  int inputs = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg = argv[i];
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(arg)) {
      for (const auto& entry : std::filesystem::directory_iterator(arg)) {
        if (entry.is_regular_file()) files.push_back(entry.path());
      }
      std::sort(files.begin(), files.end());
    } else if (std::filesystem::exists(arg)) {
      files.push_back(arg);
    }
    for (const auto& file : files) {
      run_file(file);
      ++inputs;
    }
  }
  std::fprintf(stderr, "%d inputs, none failed\n", inputs);
  return inputs > 0 ? 0 : 1;
}
