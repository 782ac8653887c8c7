// The sizes and magnitudes the allocator's inputs (problem JSON, workload CSV, traces read through
// GzLineReader) may have. Each is checked where the input is read, before anything sized by it is
// allocated, and refused as InvalidArgument naming the file, line and field; nothing beyond them
// is assumed to work. They are generous: the largest machines today have ~160,000 nodes, measured
// scaling tables a few dozen rows, BFTrainer's horizon is 10 s.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace elastic::alloc {

// Nodes in a pool or machine, and any node count (table rows, min/max nodes, SWF capacity).
inline constexpr int kMaxNodes = 1'000'000;
// Rows of one scaling or value table.
inline constexpr std::size_t kMaxTableRows = 10'000;
// Bytes of one line of a text input, without its newline.
inline constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;
// Look-ahead horizon and stall seconds: T * v(n) and U * v(n) must stay finite in the MILP.
inline constexpr double kMaxSeconds = 1e7;  // about 116 days
// A table value (samples/s, or whatever is maximised) read from a file. Tables the online
// scaling model builds from measurements are not bound by it.
inline constexpr double kMaxTableValue = 1e15;

// A job's weight (the weighted objective): weight x value x seconds must stay finite.
inline constexpr double kMaxWeight = 1e6;

// How much of a bad token an error message echoes.
inline constexpr std::size_t kEchoedChars = 64;

// `token` as an error message shows it: whole when short, else its first kEchoedChars characters,
// "..." and its length ("aaaa... (2097152 bytes)"), so a huge token never makes a huge message.
std::string echo_token(std::string_view token);

// The same for any string type with data() and size() (absl::string_view, std::string).
template <typename String>
std::string echo_token(const String& token) {
  return echo_token(std::string_view(token.data(), token.size()));
}

}  // namespace elastic::alloc
