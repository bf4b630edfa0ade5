// Shared plumbing of the command-line tools: option parsing, exit codes, error output,
// opening a DB for reading, and the number formats every tool prints.
//
// Every tool: `--help`, `--version`, data on stdout, errors on stderr as `tool: message`,
// exit 0 (success), 1 (the work failed: missing DB, bad data) or 2 (bad usage).
#ifndef CRAWLRANK_TOOLS_TOOL_COMMON_H_
#define CRAWLRANK_TOOLS_TOOL_COMMON_H_

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli.h"
#include "crawlrank/page_db.h"
#include "crawlrank/status.h"

namespace crawlrank::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;
// page_db_dump --skip-damaged: the dump is done, but left out records it could not read.
inline constexpr int kExitSkippedDamage = 3;

// Parses argv into `app` (CommandLine::Parse: --help and --version exit 0, a parse error
// exits 2), then runs `body`.
int Run(CommandLine& app, int argc, char** argv, const std::function<int()>& body);

// Prints `tool: <status message>` to stderr and returns kExitFailure.
int Fail(const CommandLine& app, const Status& status);

// Prints `tool: <message>` and the usage hint to stderr and returns kExitUsage.
int UsageError(const CommandLine& app, std::string_view message);

// A PEM file's text (a TLS certificate, key or CA), at most 1 MiB; NotFound or
// InvalidArgument naming the file.
Result<std::string> ReadPemFile(const std::string& path);

// Opens an existing PageDB read-only: takes no lock, works beside a running writer.
Result<std::unique_ptr<PageDb>> OpenForReading(const std::string& path);

// Names a page on the command line: 16 hex digits (a fingerprint) or an absolute URL.
// InvalidArgument when it is neither; NotFound when the DB lacks it.
Result<PageRecord> FindPage(const Snapshot& snapshot, std::string_view hash_or_url);

class Output;

// The body of a tool about one page (`tool DB PAGE`): adds the two arguments to `app`,
// parses, opens the DB read-only, finds the page and calls `fn` with a snapshot and it.
// A malformed PAGE is a usage error (exit 2); a missing DB or page, or `fn` failing, 1.
int RunOnPage(CommandLine& app, int argc, char** argv,
              const std::function<Status(const Snapshot&, const PageRecord&, Output&)>& fn);

// Unix milliseconds as seconds with exactly three decimals ("1700000000.123"), and back.
std::string FormatSeconds(int64_t ms);
// Unix milliseconds as ISO 8601 UTC, to the second: "2026-11-25T19:42:24Z" (what people
// read; the TSV the loader reads keeps FormatSeconds).
std::string IsoTime(int64_t ms);
// A time a page or host may not have: IsoTime, or `none` for a negative value or 0.
std::string IsoTimeOr(int64_t ms, std::string_view none);
Result<int64_t> ParseSeconds(std::string_view text);

// A score with 9 significant digits: enough to read the same float back.
std::string FormatScore(double score);
Result<float> ParseScore(std::string_view text);

// Parses a decimal unsigned integer that fits `max`.
Result<uint64_t> ParseUnsigned(std::string_view text, uint64_t max);

// A listening address as --listen takes it: HOST:PORT, an IPv6 host in brackets
// ("[::1]:7072"), the port 0 to 65535 (0: any free one). InvalidArgument naming `text`.
struct ListenAddress {
  std::string host;  // without brackets
  int port = 0;
};
Result<ListenAddress> ParseListenAddress(std::string_view text);

// Splits a line on runs of spaces and tabs.
std::vector<std::string_view> SplitFields(std::string_view line);
// The same into `fields`, without allocating: returns how many fields the line has, of
// which the first fields.size() are stored (the rest only counted).
size_t SplitFields(std::string_view line, std::span<std::string_view> fields);

// Buffered writer to stdout: printing millions of lines through iostreams is slow.
class Output {
 public:
  Output() : buffer_(), file_(stdout) { buffer_.reserve(kFlushAt + 4096); }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;
  ~Output() { (void)Flush(); }

  Output& operator<<(std::string_view text) {
    buffer_.append(text);
    if (buffer_.size() >= kFlushAt) (void)Flush();
    return *this;
  }
  Output& operator<<(char c) {
    buffer_ += c;
    return *this;
  }
  Output& operator<<(uint64_t n);
  // Writes out what is buffered. IoError when stdout refuses (a closed pipe, a full disk).
  Status Flush();

 private:
  static constexpr size_t kFlushAt = size_t{1} << 16;
  std::string buffer_;
  std::FILE* file_;
};

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_TOOL_COMMON_H_
