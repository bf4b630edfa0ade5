#include "crawlrank/rank_store.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "base/coding.h"
#include "base/errno_text.h"
#include "base/unique_fd.h"
#include "rank_db/rank_store_internal.h"

namespace crawlrank {
namespace {

constexpr std::string_view kMagic = "CRWLRANK";
// docs/format.md, "Rank files": version 2 adds the graph's links and crawled pages.
constexpr size_t kHeaderBytesV1 = 112;
constexpr size_t kHeaderBytes = 128;
// Version 3 (a global rank's file) adds the run's block after version 2's header.
constexpr size_t kGlobalBlockBytes = 48;
// The graph counters of a rank saved without them (StoredRank::graph unset).
constexpr uint64_t kUnknown = UINT64_MAX;

// The temp file a save writes before its rename: `<rank file>.tmp.PID.TID`. A thread id is
// unique among the live threads of the whole system, and one thread runs one save at a
// time, so concurrent saves of one rank (two threads of a process, or two processes) never
// share a temp file. The PID lets RemoveLeftoverTemps tell whose file it is.
std::string TempPath(const std::string& path) {
  return path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(::gettid());
}

// The PID in the name of a rank's temp file, `*.rank.tmp.PID.TID` (or `*.rank.tmp.PID`, the
// name before issue #23); 0 for any other name.
pid_t TempOwner(const std::string& name) {
  const size_t at = name.rfind(".rank.tmp.");
  if (at == std::string::npos) return 0;
  const std::string_view rest = std::string_view(name).substr(at + 10);
  const size_t dot = rest.find('.');
  const std::string_view pid = rest.substr(0, dot);
  const auto is_number = [](std::string_view d) {
    return !d.empty() && d.size() <= 9 && std::all_of(d.begin(), d.end(), IsAsciiDigit);
  };
  if (!is_number(pid) || (dot != std::string_view::npos && !is_number(rest.substr(dot + 1)))) {
    return 0;
  }
  return static_cast<pid_t>(std::stol(std::string(pid)));
}

// Removes the rank temp files in `dir` that a process which has since died left behind
// (killed while saving): each is as big as a whole rank. Files of live processes (another
// save under way) stay.
void RemoveLeftoverTemps(const std::string& dir) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const pid_t pid = TempOwner(entry.path().filename().string());
    if (pid <= 0 || pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;
    std::filesystem::remove(entry.path(), ec);
  }
}

Status WriteAll(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("cannot write \"" + path + "\": " + ErrnoText());
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status ReadAll(int fd, char* data, size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::read(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return IoError("cannot read \"" + path + "\": " + ErrnoText());
    if (n == 0) return DataLossError("rank file \"" + path + "\" is truncated");
    data += n;
    size -= static_cast<size_t>(n);
  }
  return Status::Ok();
}

// Vectors are stored as little-endian IEEE doubles.
void ToLittleEndian(std::vector<double>& v) {
  if constexpr (std::endian::native != std::endian::little) {
    for (double& x : v) x = std::bit_cast<double>(__builtin_bswap64(std::bit_cast<uint64_t>(x)));
  }
}

// XXH3-64 of the hub bytes, seeded with the XXH3-64 of the score bytes.
uint64_t PayloadHash(const std::vector<double>& scores, const std::vector<double>& hubs) {
  const uint64_t seed = XXH3_64bits(scores.data(), scores.size() * sizeof(double));
  return XXH3_64bits_withSeed(hubs.data(), hubs.size() * sizeof(double), seed);
}

std::string EncodeHeader(const StoredRank& stored, uint64_t payload_hash) {
  const RankResult& r = stored.rank;
  std::string h(kMagic);
  coding::PutFixed32(h, stored.global.has_value() ? 3 : 2);
  coding::PutFixed32(h, static_cast<uint32_t>(r.algorithm));
  coding::PutFixed32(h, r.hubs.empty() ? 1 : 2);
  coding::PutFixed32(h, (stored.cross_host_only ? 1u : 0u) | (r.report.converged ? 2u : 0u) |
                            (r.options.template_links.drop ? 4u : 0u));
  coding::PutFixed32(h, static_cast<uint32_t>(r.report.mode));
  coding::PutFixed32(h, r.options.threads);
  coding::PutFixed32(h, r.options.max_iterations);
  coding::PutFixed32(h, r.report.iterations);
  coding::PutFixed64(h, r.scores.size());
  coding::PutFixed64(h, r.report.links);
  for (double d : {r.options.damping, r.options.tolerance, r.report.residual, r.report.seconds}) {
    coding::PutFixed64(h, std::bit_cast<uint64_t>(d));
  }
  coding::PutFixed64(h, static_cast<uint64_t>(stored.created_ms));
  coding::PutFixed64(h, stored.graph.has_value() ? stored.graph->edges : kUnknown);
  coding::PutFixed64(h, stored.graph.has_value() ? stored.graph->crawled_pages : kUnknown);
  coding::PutFixed64(h, payload_hash);
  coding::PutFixed64(h, XXH3_64bits(h.data(), h.size()));
  if (const auto& g = stored.global; g.has_value()) {
    coding::PutFixed64(h, g->run_id);
    coding::PutFixed32(h, g->shard);
    coding::PutFixed32(h, g->shards);
    coding::PutFixed64(h, g->total.pages);
    coding::PutFixed64(h, g->total.crawled_pages);
    coding::PutFixed64(h, g->total.edges);
    coding::PutFixed64(h, XXH3_64bits(h.data(), h.size()));  // the whole header's
  }
  return h;
}

// Names the first value of `r` that is not a finite number ("page 3 has nan"), or returns
// "". Ranks are finite: a NaN would also break every ordering of pages by rank.
std::string FirstNonFinite(const RankResult& r) {
  for (const std::vector<double>* values : {&r.scores, &r.hubs}) {
    const auto it =
        std::find_if(values->begin(), values->end(), [](double x) { return !std::isfinite(x); });
    if (it != values->end()) {
      return "page " + std::to_string(it - values->begin()) + " has " + std::to_string(*it);
    }
  }
  return "";
}

}  // namespace

std::string RankFilePath(const std::string& db_path, RankAlgorithm algorithm) {
  return RankFilePath(db_path, RankAlgorithmName(algorithm));
}

std::string ShownRankName(const std::string& db_path) {
  struct stat st;
  const bool stored = ::stat(RankFilePath(db_path, kDisplayRankName).c_str(), &st) == 0;
  return stored ? std::string(kDisplayRankName) : std::string(RankAlgorithmName(RankAlgorithm::kPageRank));
}

std::string RankFilePath(const std::string& db_path, std::string_view name) {
  return db_path + "/ranks/" + std::string(name) + ".rank";
}

Status SaveRank(const std::string& db_path, const StoredRank& stored) {
  return SaveRank(db_path, stored, RankAlgorithmName(stored.rank.algorithm));
}

Status SaveRank(const std::string& db_path, const StoredRank& stored, std::string_view name) {
  CRAWLRANK_ASSIGN_OR_RETURN(const std::string temp, SaveRankAside(db_path, stored, name));
  return CommitRank(temp, db_path, name);
}

namespace {

// InvalidArgument when `stored` cannot be saved: vectors that do not match, a value that
// is not finite, counters that do not fit.
Status CheckSavable(const StoredRank& stored) {
  const RankResult& r = stored.rank;
  if (!r.hubs.empty() && r.hubs.size() != r.scores.size()) {
    return InvalidArgumentError("rank to save has " + std::to_string(r.scores.size()) +
                                " scores but " + std::to_string(r.hubs.size()) + " hubs");
  }
  if (const std::string bad = FirstNonFinite(r); !bad.empty()) {
    return InvalidArgumentError("rank to save: " + bad);
  }
  if (const auto& g = stored.graph;
      g.has_value() &&
      (g->pages != r.scores.size() || g->crawled_pages > g->pages || g->edges == kUnknown)) {
    return InvalidArgumentError("rank to save: its graph of " + std::to_string(g->pages) +
                                " pages, " + std::to_string(g->crawled_pages) + " crawled, " +
                                std::to_string(g->edges) + " links does not fit its " +
                                std::to_string(r.scores.size()) + " scores");
  }
  if (const auto& g = stored.global;
      g.has_value() && (g->shard >= g->shards || g->total.crawled_pages > g->total.pages)) {
    return InvalidArgumentError("rank to save: shard " + std::to_string(g->shard) + " of " +
                                std::to_string(g->shards) + ", " +
                                std::to_string(g->total.crawled_pages) + " of " +
                                std::to_string(g->total.pages) + " pages crawled");
  }
  return Status::Ok();
}

// Creates `dir` and the folders above it up to `db_path`/ranks.
Status MakeRankFolder(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return IoError("cannot create \"" + dir + "\": " + ec.message());
  return Status::Ok();
}

}  // namespace

Result<std::string> SaveRankAside(const std::string& db_path, const StoredRank& stored,
                                  std::string_view name) {
  CRAWLRANK_RETURN_IF_ERROR(CheckSavable(stored));
  const std::string path = RankFilePath(db_path, name);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  CRAWLRANK_RETURN_IF_ERROR(MakeRankFolder(dir));
  RemoveLeftoverTemps(dir);
  const std::string temp = TempPath(path);
  std::vector<double> scores = stored.rank.scores, hubs = stored.rank.hubs;
  ToLittleEndian(scores);
  ToLittleEndian(hubs);
  const std::string header = EncodeHeader(stored, PayloadHash(scores, hubs));
  UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) return IoError("cannot create \"" + temp + "\": " + ErrnoText());
  Status status = WriteAll(fd.get(), header.data(), header.size(), temp);
  if (status.ok()) {
    status = WriteAll(fd.get(), reinterpret_cast<const char*>(scores.data()),
                      scores.size() * sizeof(double), temp);
  }
  if (status.ok()) {
    status = WriteAll(fd.get(), reinterpret_cast<const char*>(hubs.data()),
                      hubs.size() * sizeof(double), temp);
  }
  if (status.ok() && ::fsync(fd.get()) != 0) {
    status = IoError("cannot sync \"" + temp + "\": " + ErrnoText());
  }
  if (status.ok() && ::close(fd.release()) != 0) {
    status = IoError("cannot close \"" + temp + "\": " + ErrnoText());
  }
  if (!status.ok()) {
    ::unlink(temp.c_str());
    return status;
  }
  return temp;
}

Status CommitRank(const std::string& temp, const std::string& db_path, std::string_view name) {
  const std::string path = RankFilePath(db_path, name);
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const Status status =
        IoError("cannot rename \"" + temp + "\" to \"" + path + "\": " + ErrnoText());
    ::unlink(temp.c_str());
    return status;
  }
  // Make the rename itself durable.
  const std::string dir = std::filesystem::path(path).parent_path().string();
  UniqueFd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.get() < 0 || ::fsync(dir_fd.get()) != 0) {
    return IoError("cannot sync directory \"" + dir + "\": " + ErrnoText());
  }
  return Status::Ok();
}

namespace {

// A rank file's header fields, as stored (docs/format.md, "Rank files").
struct Header {
  uint32_t version = 0, algo = 0, vectors = 0, flags = 0, mode = 0, threads = 0, max_iterations = 0,
           iterations = 0;
  uint64_t pages = 0, links = 0, damping = 0, tolerance = 0, residual = 0, seconds = 0, created = 0,
           graph_links = kUnknown, crawled = kUnknown, payload_hash = 0, header_hash = 0;
};

// Decodes the fields after the magic and the version from `in`, the rest of a header of
// `h->version`; false when `in` ends first.
bool GetHeaderFields(std::string_view in, Header* h) {
  bool ok = coding::GetFixed32(in, &h->algo) && coding::GetFixed32(in, &h->vectors) &&
            coding::GetFixed32(in, &h->flags) && coding::GetFixed32(in, &h->mode) &&
            coding::GetFixed32(in, &h->threads) && coding::GetFixed32(in, &h->max_iterations) &&
            coding::GetFixed32(in, &h->iterations) && coding::GetFixed64(in, &h->pages) &&
            coding::GetFixed64(in, &h->links) && coding::GetFixed64(in, &h->damping) &&
            coding::GetFixed64(in, &h->tolerance) && coding::GetFixed64(in, &h->residual) &&
            coding::GetFixed64(in, &h->seconds) && coding::GetFixed64(in, &h->created);
  if (h->version >= 2) {
    ok = ok && coding::GetFixed64(in, &h->graph_links) && coding::GetFixed64(in, &h->crawled);
  }
  return ok && coding::GetFixed64(in, &h->payload_hash) &&
         coding::GetFixed64(in, &h->header_hash) && in.empty();
}

// The graph counters a header records: both unknown, or both known and the crawled pages
// no more than the pages. False for any other combination.
bool GraphOf(const Header& h, std::optional<PageDbCounters>* graph) {
  if (h.graph_links == kUnknown || h.crawled == kUnknown) {
    graph->reset();
    return h.graph_links == h.crawled;
  }
  *graph = PageDbCounters{.pages = h.pages, .crawled_pages = h.crawled, .edges = h.graph_links};
  return h.crawled <= h.pages;
}

// The rank a checked header describes, with its vectors sized but not read.
StoredRank RankOf(const Header& h, RankAlgorithm algorithm) {
  StoredRank stored;
  RankResult& r = stored.rank;
  r.algorithm = algorithm;
  r.options.damping = std::bit_cast<double>(h.damping);
  r.options.tolerance = std::bit_cast<double>(h.tolerance);
  r.options.max_iterations = h.max_iterations;
  r.options.threads = h.threads;
  r.options.mode = static_cast<RankMode>(h.mode);
  // Whether template links were dropped; their share and minimum pages are not stored.
  r.options.template_links.drop = (h.flags & 4) != 0;
  r.report.iterations = h.iterations;
  r.report.residual = std::bit_cast<double>(h.residual);
  r.report.seconds = std::bit_cast<double>(h.seconds);
  r.report.converged = (h.flags & 2) != 0;
  r.report.mode = static_cast<RankMode>(h.mode);
  r.report.pages = static_cast<uint32_t>(h.pages);
  r.report.links = h.links;
  stored.cross_host_only = (h.flags & 1) != 0;
  stored.created_ms = static_cast<int64_t>(h.created);
  r.scores.resize(h.pages);
  if (h.vectors == 2) r.hubs.resize(h.pages);
  return stored;
}

// The run's block of a version 3 header (its last kGlobalBlockBytes), checked: the
// whole header's checksum, a shard within the shards, crawled pages within the pages.
Result<GlobalRun> DecodeGlobalBlock(std::string_view header, const std::string& path) {
  std::string_view in = header.substr(kHeaderBytes);
  GlobalRun g;
  uint64_t checksum = 0;
  if (!coding::GetFixed64(in, &g.run_id) || !coding::GetFixed32(in, &g.shard) ||
      !coding::GetFixed32(in, &g.shards) || !coding::GetFixed64(in, &g.total.pages) ||
      !coding::GetFixed64(in, &g.total.crawled_pages) ||
      !coding::GetFixed64(in, &g.total.edges) || !coding::GetFixed64(in, &checksum) ||
      !in.empty()) {
    return DataLossError("rank file \"" + path + "\" is damaged: header truncated");
  }
  if (XXH3_64bits(header.data(), header.size() - 8) != checksum) {
    return DataLossError("rank file \"" + path + "\" is damaged: global run checksum");
  }
  if (g.shard >= g.shards || g.total.crawled_pages > g.total.pages) {
    return DataLossError("rank file \"" + path + "\" is damaged: global run out of range");
  }
  return g;
}

// Reads and checks a rank file of `file_size` bytes named `path`: `read(data, size)` fills
// `data` with the file's next `size` bytes, or fails (DataLoss when the file ends first).
// LoadRank reads the file through it, ParseRankFile a buffer.
template <typename Read>
Result<StoredRank> DecodeRankFile(uint64_t file_size, RankAlgorithm algorithm,
                                  const std::string& path, Read&& read) {
  const auto damaged = [&](const std::string& what) {
    return DataLossError("rank file \"" + path + "\" is damaged: " + what);
  };
  // A version 1 header first: as long as or shorter than any other.
  std::string header(std::min<uint64_t>(file_size, kHeaderBytesV1), '\0');
  CRAWLRANK_RETURN_IF_ERROR(read(header.data(), header.size()));
  if (header.size() < kMagic.size() ||
      std::string_view(header).substr(0, kMagic.size()) != kMagic) {
    return DataLossError("\"" + path + "\" is not a crawlrank rank file");
  }
  std::string_view in(header);
  in.remove_prefix(kMagic.size());
  Header h;
  if (!coding::GetFixed32(in, &h.version)) return damaged("header truncated");
  if (h.version < 1 || h.version > kRankFileFormatVersion) {
    return FailedPreconditionError("rank file \"" + path + "\" has format version " +
                                   std::to_string(h.version) + "; this build reads versions 1 to " +
                                   std::to_string(kRankFileFormatVersion));
  }
  const size_t header_bytes = h.version == 1   ? kHeaderBytesV1
                              : h.version == 2 ? kHeaderBytes
                                               : kHeaderBytes + kGlobalBlockBytes;
  if (header.size() == kHeaderBytesV1 && header_bytes > kHeaderBytesV1) {
    const size_t more =
        std::min<uint64_t>(file_size - kHeaderBytesV1, header_bytes - kHeaderBytesV1);
    header.resize(kHeaderBytesV1 + more);
    CRAWLRANK_RETURN_IF_ERROR(read(header.data() + kHeaderBytesV1, more));
  }
  const size_t base_bytes = std::min(header_bytes, kHeaderBytes);
  if (header.size() != header_bytes ||
      !GetHeaderFields(std::string_view(header).substr(kMagic.size() + 4,
                                                       base_bytes - kMagic.size() - 4),
                       &h)) {
    return damaged("header truncated");
  }
  if (XXH3_64bits(header.data(), base_bytes - 8) != h.header_hash) {
    return damaged("header checksum");
  }
  std::optional<GlobalRun> global;
  if (h.version >= 3) {
    CRAWLRANK_ASSIGN_OR_RETURN(global, DecodeGlobalBlock(header, path));
  }
  std::optional<PageDbCounters> graph;
  if (h.algo != static_cast<uint32_t>(algorithm) || (h.vectors != 1 && h.vectors != 2) ||
      h.mode > 2 || h.pages > UINT32_MAX || !GraphOf(h, &graph)) {
    return damaged("header fields out of range");
  }
  if (file_size != header_bytes + h.pages * h.vectors * sizeof(double)) {
    return damaged("size " + std::to_string(file_size) + " bytes does not match " +
                   std::to_string(h.pages) + " pages");
  }
  StoredRank stored = RankOf(h, algorithm);
  stored.graph = graph;
  stored.global = global;
  RankResult& r = stored.rank;
  CRAWLRANK_RETURN_IF_ERROR(
      read(reinterpret_cast<char*>(r.scores.data()), h.pages * sizeof(double)));
  CRAWLRANK_RETURN_IF_ERROR(
      read(reinterpret_cast<char*>(r.hubs.data()), r.hubs.size() * sizeof(double)));
  if (PayloadHash(r.scores, r.hubs) != h.payload_hash) return damaged("vector checksum");
  ToLittleEndian(r.scores);  // the same swap reads them back on a big-endian machine
  ToLittleEndian(r.hubs);
  if (const std::string bad = FirstNonFinite(r); !bad.empty()) return damaged(bad);
  return stored;
}

}  // namespace

Result<StoredRank> LoadRank(const std::string& db_path, RankAlgorithm algorithm) {
  return LoadRank(db_path, RankAlgorithmName(algorithm), algorithm);
}

Result<StoredRank> LoadRank(const std::string& db_path, std::string_view name,
                            RankAlgorithm algorithm) {
  const std::string path = RankFilePath(db_path, name);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) {
      return NotFoundError("no " + std::string(name) + " rank stored for \"" + db_path +
                           "\" (no " + path + "); compute it with `page_db_rank " + db_path +
                           " --algo " + std::string(name) + "`");
    }
    return IoError("cannot open \"" + path + "\": " + ErrnoText());
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return IoError("cannot stat \"" + path + "\": " + ErrnoText());
  const auto read = [&](char* data, size_t size) { return ReadAll(fd.get(), data, size, path); };
  return DecodeRankFile(static_cast<uint64_t>(st.st_size), algorithm, path, read);
}

Result<StoredRank> ParseRankFile(std::string_view bytes, RankAlgorithm algorithm,
                                 const std::string& path) {
  size_t at = 0;
  return DecodeRankFile(bytes.size(), algorithm, path, [&](char* data, size_t size) {
    if (bytes.size() - at < size) return DataLossError("rank file \"" + path + "\" is truncated");
    if (size > 0) std::memcpy(data, bytes.data() + at, size);  // data may be null when 0
    at += size;
    return Status::Ok();
  });
}

}  // namespace crawlrank
