#include "crawlrank/fetch_log.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <ctime>

#include "crawlrank/clock.h"

namespace crawlrank {

namespace {

// `text` as a JSON string: quotes, backslashes, control characters and every byte outside
// ASCII escaped (\u00XX), so that the line is valid JSON whatever the bytes were.
void AppendJsonString(std::string_view text, std::string& out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20 || byte >= 0x7f) {
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

void AppendNullable(std::string_view text, std::string& out) {
  if (text.empty()) {
    out += "null";
  } else {
    AppendJsonString(text, out);
  }
}

constexpr std::chrono::seconds kFlushEvery{1};
constexpr size_t kMaxBuffered = 1 << 20;

}  // namespace

std::string FetchLogLine(const FetchLogEntry& e) {
  std::string out;
  out.reserve(160 + e.url.size() + e.referrer.size());
  out += "{\"time\":";
  AppendJsonString(IsoMillis(e.time_ms), out);
  out += ",\"url\":";
  AppendJsonString(e.url, out);
  out += ",\"status\":" + std::to_string(e.http_status);
  out += ",\"bytes\":" + std::to_string(e.bytes);
  out += ",\"content_type\":";
  AppendNullable(std::string_view(e.content_type).substr(0, kMaxContentTypeBytes), out);
  out += ",\"ms\":" + std::to_string(e.duration_ms);
  out += ",\"referrer\":";
  AppendNullable(e.referrer, out);
  out += ",\"failure\":";
  AppendNullable(e.failure, out);
  out += '}';
  return out;
}

struct FetchLogFile::File {
  std::string path;
  std::FILE* stream = nullptr;
  std::string buffer;
  std::chrono::steady_clock::time_point last_write = std::chrono::steady_clock::now();
  Status error;

  ~File() {
    if (stream != nullptr) std::fclose(stream);
  }
  void Append(const FetchLogEntry& entry) {
    buffer += FetchLogLine(entry);
    buffer += '\n';
    if (buffer.size() >= kMaxBuffered ||
        std::chrono::steady_clock::now() - last_write >= kFlushEvery) {
      Write();
    }
  }
  void Write() {
    if (!buffer.empty() && error.ok()) {
      if (std::fwrite(buffer.data(), 1, buffer.size(), stream) != buffer.size() ||
          std::fflush(stream) != 0) {
        error = InternalError("crawl log \"" + path + "\": " + std::strerror(errno));
      }
    }
    buffer.clear();
    last_write = std::chrono::steady_clock::now();
  }
};

Result<FetchLogFile> FetchLogFile::Open(const std::string& path) {
  auto file = std::make_unique<File>();
  file->path = path;
  file->stream = std::fopen(path.c_str(), "ae");
  if (file->stream == nullptr) {
    return Status(errno == ENOENT ? StatusCode::kNotFound : StatusCode::kInternal,
                  "crawl log \"" + path + "\": " + std::strerror(errno));
  }
  return FetchLogFile(std::move(file));
}

FetchLogFile::FetchLogFile(std::unique_ptr<File> file) : file_(std::move(file)) {}
FetchLogFile::FetchLogFile(FetchLogFile&&) noexcept = default;
FetchLogFile& FetchLogFile::operator=(FetchLogFile&&) noexcept = default;
FetchLogFile::~FetchLogFile() {
  if (file_ != nullptr) file_->Write();
}

void FetchLogFile::Append(const FetchLogEntry& entry) { file_->Append(entry); }

FetchLogFn FetchLogFile::Writer() {
  return [file = file_.get()](const FetchLogEntry& entry) { file->Append(entry); };
}

Status FetchLogFile::Flush() {
  file_->Write();
  return file_->error;
}

}  // namespace crawlrank
