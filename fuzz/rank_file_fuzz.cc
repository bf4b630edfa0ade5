// Fuzzes the rank file reader (ParseRankFile, the decoder LoadRank reads files through;
// src/rank_db/rank_store_internal.h).
//
// Input: a selector byte, then the file's bytes. The byte's low bits pick the algorithm
// the file is read as; with its top bit set, the target first writes valid checksums into
// the header (the payload hash over the bytes after the header, 112 bytes for format
// version 1 and 128 for any other, split into scores and hubs as the header's page count
// says, then the header hash), so that the fuzzer reaches the checks behind them instead of
// stopping at the checksums.
//
// Properties of a file ParseRankFile accepts: it is the header and one or two vectors of
// report.pages doubles, all finite, for the algorithm asked. A file it refuses is DataLoss
// or, for another format version, FailedPrecondition.
#include <xxhash.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz_check.h"
#include "rank_db/rank_store_internal.h"

namespace {

// docs/format.md, "Rank files": the header of version 1, and of version 2. The checksums
// end it: the payload hash, then the header hash.
constexpr size_t kHeaderBytesV1 = 112;
constexpr size_t kHeaderBytes = 128;
constexpr size_t kVersionAt = 8;  // fixed32
constexpr size_t kPagesAt = 40;   // the page count, fixed64

// The header's size for the version `file` names (an unknown one is refused before it).
size_t HeaderBytes(const std::string& file) {
  return file.size() > kVersionAt && file[kVersionAt] == 1 ? kHeaderBytesV1 : kHeaderBytes;
}

void PutFixed64(std::string& s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + i] = static_cast<char>(v >> (8 * i));
}

uint64_t GetFixed64(const std::string& s, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{static_cast<uint8_t>(s[at + i])} << (8 * i);
  return v;
}

void FixChecksums(std::string& file) {
  const size_t header = HeaderBytes(file);
  if (file.size() < header) return;
  const size_t payload = file.size() - header;
  const uint64_t pages = GetFixed64(file, kPagesAt);
  const size_t score_bytes = pages <= payload / 8 ? static_cast<size_t>(pages) * 8 : payload;
  const char* scores = file.data() + header;
  const uint64_t seed = XXH3_64bits(scores, score_bytes);
  PutFixed64(file, header - 16,
             XXH3_64bits_withSeed(scores + score_bytes, payload - score_bytes, seed));
  PutFixed64(file, header - 8, XXH3_64bits(file.data(), header - 8));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace crawlrank;
  fuzz::Bytes in(data, size);
  const uint8_t selector = in.U8();
  const auto algorithm = static_cast<RankAlgorithm>(1 + (selector & 0x7F) % 7);
  std::string file(in.rest());
  if (selector & 0x80) FixChecksums(file);
  const Result<StoredRank> stored = ParseRankFile(file, algorithm, "fuzz.rank");
  if (!stored.ok()) {
    FUZZ_CHECK(stored.status().code() == StatusCode::kDataLoss ||
               stored.status().code() == StatusCode::kFailedPrecondition);
    return 0;
  }
  const RankResult& r = stored->rank;
  FUZZ_CHECK(r.algorithm == algorithm);
  FUZZ_CHECK(r.scores.size() == r.report.pages);
  FUZZ_CHECK(r.hubs.empty() || r.hubs.size() == r.scores.size());
  FUZZ_CHECK(file.size() == HeaderBytes(file) + 8 * (r.scores.size() + r.hubs.size()));
  FUZZ_CHECK(!stored->graph.has_value() || (stored->graph->pages == r.report.pages &&
                                            stored->graph->crawled_pages <= stored->graph->pages));
  for (double x : r.scores) FUZZ_CHECK(std::isfinite(x));
  for (double x : r.hubs) FUZZ_CHECK(std::isfinite(x));
  return 0;
}
