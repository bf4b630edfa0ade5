#include "tool_common.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>

#include "crawlrank/fault_guard.h"

namespace crawlrank::tools {

int Run(CommandLine& app, int argc, char** argv, const std::function<int()>& body) {
  if (int code = app.Parse(argc, argv); code >= 0) return code;
  InstallFaultGuard(app.name());
  return body();
}

int Fail(const CommandLine& app, const Status& status) {
  std::cerr << app.name() << ": " << status.message() << "\n";
  return kExitFailure;
}

int UsageError(const CommandLine& app, std::string_view message) {
  std::cerr << app.name() << ": " << message << "\n"
            << "Run with --help for more information.\n";
  return kExitUsage;
}

Result<std::string> ReadPemFile(const std::string& path) {
  constexpr size_t kMaxPemBytes = size_t{1} << 20;
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFoundError(QuoteForMessage(path) + ": cannot be read");
  std::string text(kMaxPemBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxPemBytes) {
    return InvalidArgumentError(QuoteForMessage(path) + ": over 1 MiB; not a PEM file");
  }
  if (text.find("-----BEGIN ") == std::string::npos) {
    return InvalidArgumentError(QuoteForMessage(path) + ": not a PEM file (no -----BEGIN line)");
  }
  return text;
}

Result<std::unique_ptr<PageDb>> OpenForReading(const std::string& path) {
  WatchPageDb(path);
  PageDbOptions options;
  options.create_if_missing = false;
  options.read_only = true;
  return PageDb::Open(path, options);
}

Result<PageRecord> FindPage(const Snapshot& snapshot, std::string_view hash_or_url) {
  if (hash_or_url.find("://") != std::string_view::npos) return snapshot.FindUrl(hash_or_url);
  auto fingerprint = ParseFingerprint(hash_or_url);
  if (!fingerprint.ok()) {
    return InvalidArgumentError(QuoteForMessage(hash_or_url) +
                                " is neither a page hash (16 hex digits) nor an absolute URL");
  }
  return snapshot.Find(*fingerprint);
}

int RunOnPage(CommandLine& app, int argc, char** argv,
              const std::function<Status(const Snapshot&, const PageRecord&, Output&)>& fn) {
  std::string db_path, page;
  app.Add("db", db_path, "PageDB directory")->Required();
  app.Add("page", page, "page hash (16 hex digits) or URL")->Required();
  return Run(app, argc, argv, [&] {
    auto db = OpenForReading(db_path);
    if (!db.ok()) return Fail(app, db.status());
    auto snapshot = (*db)->NewSnapshot();
    if (!snapshot.ok()) return Fail(app, snapshot.status());
    auto record = FindPage(*snapshot, page);
    if (!record.ok()) {
      if (record.status().code() == StatusCode::kInvalidArgument) {
        return UsageError(app, record.status().message());
      }
      return Fail(app, record.status());
    }
    Output out;
    Status status = fn(*snapshot, *record, out);
    if (status.ok()) status = out.Flush();
    return status.ok() ? kExitOk : Fail(app, status);
  });
}

std::string FormatSeconds(int64_t ms) {
  const bool negative = ms < 0;
  const uint64_t magnitude = negative ? uint64_t(0) - uint64_t(ms) : uint64_t(ms);
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%s%llu.%03llu", negative ? "-" : "",
                static_cast<unsigned long long>(magnitude / 1000),
                static_cast<unsigned long long>(magnitude % 1000));
  return buffer;
}

std::string IsoTime(int64_t ms) {
  const time_t seconds = static_cast<time_t>(ms >= 0 ? ms / 1000 : (ms - 999) / 1000);
  std::tm utc{};
  if (gmtime_r(&seconds, &utc) == nullptr) return "?";
  char text[32];
  if (std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc) == 0) return "?";
  return text;
}

std::string IsoTimeOr(int64_t ms, std::string_view none) {
  return ms <= 0 ? std::string(none) : IsoTime(ms);
}

Result<int64_t> ParseSeconds(std::string_view text) {
  auto bad = [text] {
    return InvalidArgumentError(QuoteForMessage(text) +
                                " is not a time in seconds with three decimals");
  };
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits.front() == '-';
  if (negative) digits.remove_prefix(1);
  const size_t dot = digits.find('.');
  if (dot == std::string_view::npos || digits.size() - dot != 4 || dot == 0) return bad();
  uint64_t whole = 0, frac = 0;
  const char* end = digits.data() + dot;
  if (std::from_chars(digits.data(), end, whole).ptr != end) return bad();
  const char* frac_end = digits.data() + digits.size();
  if (std::from_chars(end + 1, frac_end, frac).ptr != frac_end) return bad();
  if (whole > uint64_t{INT64_MAX} / 1000 - 1) return bad();
  const auto ms = static_cast<int64_t>(whole * 1000 + frac);
  return negative ? -ms : ms;
}

std::string FormatScore(double score) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", score);
  return buffer;
}

Result<float> ParseScore(std::string_view text) {
  float value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return InvalidArgumentError(QuoteForMessage(text) + " is not a finite number");
  }
  return value;
}

Result<uint64_t> ParseUnsigned(std::string_view text, uint64_t max) {
  uint64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value > max) {
    return InvalidArgumentError(QuoteForMessage(text) + " is not a whole number from 0 to " +
                                std::to_string(max));
  }
  return value;
}

namespace {

// Calls field(text) for every run of characters other than spaces and tabs, in order.
template <typename Field>
void ForEachField(std::string_view line, Field&& field) {
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
    if (i > start) field(line.substr(start, i - start));
  }
}

}  // namespace

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  ForEachField(line, [&](std::string_view f) { fields.push_back(f); });
  return fields;
}

size_t SplitFields(std::string_view line, std::span<std::string_view> fields) {
  size_t n = 0;
  ForEachField(line, [&](std::string_view f) {
    if (n < fields.size()) fields[n] = f;
    ++n;
  });
  return n;
}

Output& Output::operator<<(uint64_t n) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, n);
  buffer_.append(digits, end);
  return *this;
}

Status Output::Flush() {
  if (buffer_.empty()) return Status::Ok();
  const size_t written = std::fwrite(buffer_.data(), 1, buffer_.size(), file_);
  const bool failed = written != buffer_.size() || std::fflush(file_) != 0;
  buffer_.clear();
  if (failed) return IoError(std::string("write to standard output: ") + std::strerror(errno));
  return Status::Ok();
}

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return InvalidArgumentError("listen address \"" + std::string(text) + "\": " +
                                std::string(why) + " (HOST:PORT, e.g. 127.0.0.1:7072 or [::1]:7072)");
  };
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = text.substr(0, colon);
  if (host.starts_with('[') != host.ends_with(']')) return bad("an unclosed [");
  if (host.starts_with('[')) {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("an IPv6 host goes in brackets");
  }
  if (host.empty()) return bad("no host");
  Result<uint64_t> port = ParseUnsigned(text.substr(colon + 1), 65535);
  if (!port.ok()) return bad("the port is not a number from 0 to 65535");
  return ListenAddress{std::string(host), static_cast<int>(*port)};
}

}  // namespace crawlrank::tools
