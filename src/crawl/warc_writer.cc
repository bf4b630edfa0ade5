#include "crawl/warc_writer.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>

#include "base/ascii.h"
#include "base/errno_text.h"
#include "crawlrank/clock.h"

namespace crawlrank {
namespace {

constexpr std::string_view kCrlf = "\r\n";

// A header value with CR and LF written as %0D and %0A: nothing it holds can end the line.
std::string HeaderValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\r') {
      out += "%0D";
    } else if (c == '\n') {
      out += "%0A";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Base32(const unsigned char* bytes, size_t size) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (size_t i = 0; i < size; ++i) {
    buffer = (buffer << 8) | bytes[i];
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  while (out.size() % 8 != 0) out += '=';
  return out;
}

// The record, as WARC 1.1 lays it out: version line, named fields, Content-Length, an
// empty line, the block, two CRLFs.
std::string Record(std::string_view fields, std::string_view block) {
  std::string record = "WARC/1.1\r\n";
  record += fields;
  record += "Content-Length: " + std::to_string(block.size()) + "\r\n\r\n";
  record += block;
  record += "\r\n\r\n";
  return record;
}

// `record` as one gzip member.
Result<std::string> Gzip(std::string_view record) {
  z_stream z{};
  if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return InternalError("WARC: zlib's deflateInit2 failed");
  }
  std::string out(deflateBound(&z, record.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(record.data()));
  z.avail_in = static_cast<uInt>(record.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int result = deflate(&z, Z_FINISH);
  const size_t written = out.size() - z.avail_out;
  deflateEnd(&z);
  if (result != Z_STREAM_END) return InternalError("WARC: zlib's deflate did not finish");
  out.resize(written);
  return out;
}

// "YYYYMMDDhhmmss" of now, UTC: the file names' stamp.
std::string FileStamp() {
  const time_t now = static_cast<time_t>(UnixNowMs() / 1000);
  std::tm utc{};
  char text[32];
  if (gmtime_r(&now, &utc) == nullptr || std::strftime(text, sizeof text, "%Y%m%d%H%M%S", &utc) == 0) {
    return "00000000000000";
  }
  return text;
}

// The reason phrase of a status code, for status lines rebuilt from HTTP/2's.
std::string_view ReasonPhrase(int code) {
  switch (code) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 203: return "Non-Authoritative Information";
    case 204: return "No Content";
    case 206: return "Partial Content";
    case 300: return "Multiple Choices";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 304: return "Not Modified";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 410: return "Gone";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    default: return "";
  }
}

// The first line of a head in HTTP/1.1 form (see WarcHttpHead).
std::string Http11FirstLine(std::string_view line) {
  for (std::string_view version : {"HTTP/2", "HTTP/3"}) {
    if (line.starts_with(version) && (line.size() == version.size() || line[version.size()] == ' ')) {
      std::string_view rest = line.substr(version.size());
      while (rest.starts_with(' ')) rest.remove_prefix(1);
      while (rest.ends_with(' ')) rest.remove_suffix(1);
      int code = 0;
      for (char c : rest.substr(0, 3)) code = c >= '0' && c <= '9' ? code * 10 + (c - '0') : -1000;
      const std::string_view reason = rest.size() == 3 && code >= 100 ? ReasonPhrase(code) : "";
      return "HTTP/1.1 " + std::string(rest) + (reason.empty() ? "" : " ") + std::string(reason);
    }
    const std::string suffix = " " + std::string(version);
    if (line.ends_with(suffix)) {
      return std::string(line.substr(0, line.size() - suffix.size())) + " HTTP/1.1";
    }
  }
  return std::string(line);
}

// Where the last whole gzip member of the open file `fd` ends: its size when the file ends
// on a member's end, less when it ends inside one. A member that does not inflate, before
// the end, stops the scan there too (the file is left as it is: only a torn end is cut).
Result<uint64_t> WholeMembersEnd(int fd, const std::string& path) {
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) return InternalError("WARC: zlib's inflateInit2 failed");
  std::string in(1 << 20, '\0');
  std::string out(1 << 16, '\0');
  uint64_t read_total = 0, whole_end = 0;
  bool in_member = false;
  Status error;
  for (;;) {
    const ssize_t n = ::pread(fd, in.data(), in.size(), static_cast<off_t>(read_total));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error = IoError("WARC: cannot read \"" + path + "\": " + ErrnoText());
      break;
    }
    if (n == 0) break;
    z.next_in = reinterpret_cast<Bytef*>(in.data());
    z.avail_in = static_cast<uInt>(n);
    bool damaged = false;
    while (z.avail_in > 0) {
      in_member = true;
      z.next_out = reinterpret_cast<Bytef*>(out.data());
      z.avail_out = static_cast<uInt>(out.size());
      const int rc = inflate(&z, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        whole_end = read_total + static_cast<uint64_t>(n) - z.avail_in;
        in_member = false;
        inflateReset(&z);
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        damaged = true;
        break;
      }
    }
    read_total += static_cast<uint64_t>(n);
    if (damaged) {
      in_member = false;
      whole_end = read_total;  // not a torn end: leave the file alone
      break;
    }
  }
  inflateEnd(&z);
  if (!error.ok()) return error;
  return in_member ? whole_end : read_total;
}

}  // namespace

Status WarcWriter::RepairNewest() {
  std::string newest;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(options_.dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(options_.prefix + "-") && name.ends_with(".warc.gz") && name > newest) {
      newest = name;
    }
  }
  if (ec) return IoError("WARC: cannot list \"" + options_.dir + "\": " + ec.message());
  if (newest.empty()) return Status::Ok();
  const std::string path = options_.dir + "/" + newest;
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) return IoError("WARC: cannot open \"" + path + "\": " + ErrnoText());
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return Status::Ok();  // another writer's
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return IoError("WARC: cannot stat \"" + path + "\": " + ErrnoText());
  if (st.st_size == 0) {  // killed before its warcinfo was written
    if (::unlink(path.c_str()) != 0) return IoError("WARC: cannot remove \"" + path + "\": " + ErrnoText());
    return Status::Ok();
  }
  CRAWLRANK_ASSIGN_OR_RETURN(const uint64_t end, WholeMembersEnd(fd.get(), path));
  if (end >= static_cast<uint64_t>(st.st_size)) return Status::Ok();
  if (::ftruncate(fd.get(), static_cast<off_t>(end)) != 0 || ::fdatasync(fd.get()) != 0) {
    return IoError("WARC: cannot cut the torn end of \"" + path + "\": " + ErrnoText());
  }
  repaired_bytes_ = static_cast<uint64_t>(st.st_size) - end;
  return Status::Ok();
}

std::string WarcHttpHead(std::string_view head) {
  std::string out;
  bool first = true;
  while (!head.empty()) {
    size_t end = head.find('\n');
    std::string_view line = head.substr(0, end);
    head.remove_prefix(end == std::string_view::npos ? head.size() : end + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (line.empty()) break;  // the blank line that ends the head
    if (first) {
      out += Http11FirstLine(line);
      first = false;
    } else {
      constexpr std::string_view kTe = "transfer-encoding:";
      if (line.size() >= kTe.size() && AsciiEqualsIgnoreCase(line.substr(0, kTe.size()), kTe)) {
        continue;
      }
      out += line;
    }
    out += kCrlf;
  }
  out += kCrlf;
  return out;
}

std::string WarcDigest(std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha1(), nullptr) != 1) {
    return "sha1:";
  }
  return "sha1:" + Base32(digest.data(), size);
}

Result<std::unique_ptr<WarcWriter>> WarcWriter::Open(WarcOptions options) {
  if (options.dir.empty()) return InvalidArgumentError("WARC: no directory given");
  if (options.prefix.empty() || options.prefix.find('/') != std::string::npos) {
    return InvalidArgumentError("WARC: file prefix \"" + options.prefix +
                                "\" must be non-empty and hold no '/'");
  }
  std::error_code error;
  std::filesystem::create_directories(options.dir, error);
  if (error) {
    return IoError("WARC: cannot create \"" + options.dir + "\": " + error.message());
  }
  auto writer = std::make_unique<WarcWriter>(Key{}, std::move(options));
  CRAWLRANK_RETURN_IF_ERROR(writer->RepairNewest());
  return writer;
}

WarcWriter::WarcWriter(Key, WarcOptions options)
    : options_(std::move(options)), ids_(std::random_device{}()) {}

WarcWriter::~WarcWriter() { (void)Close(); }

std::string WarcWriter::NewRecordId() {
  // A version 4 UUID (RFC 9562): 122 random bits.
  const uint64_t high = (ids_() & ~uint64_t{0xF000}) | 0x4000;
  const uint64_t low = (ids_() & ~(uint64_t{3} << 62)) | (uint64_t{2} << 62);
  char text[64];
  std::snprintf(text, sizeof text, "<urn:uuid:%08x-%04x-%04x-%04x-%012llx>",
                static_cast<unsigned>(high >> 32), static_cast<unsigned>((high >> 16) & 0xFFFF),
                static_cast<unsigned>(high & 0xFFFF), static_cast<unsigned>(low >> 48),
                static_cast<unsigned long long>(low & 0xFFFFFFFFFFFFull));
  return text;
}

Status WarcWriter::BeginFile() {
  const std::string stamp = FileStamp();
  for (int attempt = 0; attempt < 100000; ++attempt, ++serial_) {
    char serial[16];
    std::snprintf(serial, sizeof serial, "%05u", serial_);
    std::string path = options_.dir + "/" + options_.prefix + "-" + stamp + "-" + serial + ".warc.gz";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0) return IoError("WARC: cannot create \"" + path + "\": " + ErrnoText());
    fd_ = UniqueFd(fd);
    // Held until the file is closed: the Open of another writer leaves it alone.
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      return IoError("WARC: cannot lock \"" + path + "\": " + ErrnoText());
    }
    path_ = std::move(path);
    file_bytes_ = 0;
    ++serial_;
    break;
  }
  if (!fd_.valid()) return IoError("WARC: no free file name in \"" + options_.dir + "\"");
  warcinfo_id_ = NewRecordId();
  const std::string filename = path_.substr(path_.rfind('/') + 1);
  const std::string block = "software: " + HeaderValue(options_.software) +
                            "\r\nformat: WARC File Format 1.1\r\n"
                            "conformsTo: http://iipc.github.io/warc-specifications/"
                            "specifications/warc-format/warc-1.1/\r\n";
  const std::string fields = "WARC-Type: warcinfo\r\nWARC-Record-ID: " + warcinfo_id_ +
                             "\r\nWARC-Date: " + IsoMillis(UnixNowMs()) +
                             "\r\nWARC-Filename: " + HeaderValue(filename) +
                             "\r\nWARC-Block-Digest: " + WarcDigest(block) +
                             "\r\nContent-Type: application/warc-fields\r\n";
  return Append(Record(fields, block));
}

Status WarcWriter::Append(std::string_view record, std::string_view second) {
  CRAWLRANK_ASSIGN_OR_RETURN(std::string member, Gzip(record));
  if (!second.empty()) {
    CRAWLRANK_ASSIGN_OR_RETURN(const std::string more, Gzip(second));
    member += more;
  }
  size_t done = 0;
  while (done < member.size()) {
    const ssize_t n = ::write(fd_.get(), member.data() + done, member.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      failed_ = IoError("WARC: cannot write \"" + path_ + "\": " + ErrnoText());
      return failed_;
    }
    done += static_cast<size_t>(n);
  }
  file_bytes_ += member.size();
  records_ += second.empty() ? 1 : 2;
  return Status::Ok();
}

Status WarcWriter::Write(const WarcExchange& exchange) {
  std::lock_guard lock(mu_);
  CRAWLRANK_RETURN_IF_ERROR(failed_);
  if (fd_.valid() && file_bytes_ >= options_.max_file_bytes) CRAWLRANK_RETURN_IF_ERROR(CloseFile());
  if (!fd_.valid()) CRAWLRANK_RETURN_IF_ERROR(BeginFile());
  const std::string date = IsoMillis(exchange.time_ms);
  const std::string uri = HeaderValue(exchange.url);
  const std::string response_id = NewRecordId();
  std::string response_block = exchange.response_head;
  response_block += exchange.body;
  std::string fields = "WARC-Type: response\r\nWARC-Record-ID: " + response_id +
                       "\r\nWARC-Warcinfo-ID: " + warcinfo_id_ + "\r\nWARC-Date: " + date +
                       "\r\nWARC-Target-URI: " + uri + "\r\n";
  if (!exchange.ip.empty()) fields += "WARC-IP-Address: " + HeaderValue(exchange.ip) + "\r\n";
  fields += "WARC-Block-Digest: " + WarcDigest(response_block) +
            "\r\nWARC-Payload-Digest: " + WarcDigest(exchange.body) +
            "\r\nContent-Type: application/http;msgtype=response\r\n";
  std::string request_fields = "WARC-Type: request\r\nWARC-Record-ID: " + NewRecordId() +
                               "\r\nWARC-Warcinfo-ID: " + warcinfo_id_ +
                               "\r\nWARC-Concurrent-To: " + response_id + "\r\nWARC-Date: " +
                               date + "\r\nWARC-Target-URI: " + uri + "\r\n";
  if (!exchange.ip.empty()) {
    request_fields += "WARC-IP-Address: " + HeaderValue(exchange.ip) + "\r\n";
  }
  request_fields += "WARC-Block-Digest: " + WarcDigest(exchange.request_head) +
                    "\r\nContent-Type: application/http;msgtype=request\r\n";
  // Both records in one write: a kill leaves the exchange whole or absent.
  return Append(Record(request_fields, exchange.request_head), Record(fields, response_block));
}

Status WarcWriter::CloseFile() {
  if (!fd_.valid()) return Status::Ok();
  const std::string path = std::exchange(path_, std::string());
  const bool synced = ::fdatasync(fd_.get()) == 0;
  const std::string sync_error = synced ? std::string() : ErrnoText();
  const int fd = fd_.release();
  if (!synced) {
    ::close(fd);
    return IoError("WARC: cannot sync \"" + path + "\": " + sync_error);
  }
  if (::close(fd) != 0) return IoError("WARC: cannot close \"" + path + "\": " + ErrnoText());
  return Status::Ok();
}

Status WarcWriter::Close() {
  std::lock_guard lock(mu_);
  return CloseFile();
}

std::string WarcWriter::current_file() const {
  std::lock_guard lock(mu_);
  return path_;
}

uint64_t WarcWriter::records_written() const {
  std::lock_guard lock(mu_);
  return records_;
}

}  // namespace crawlrank
