#include "crawl/warc_writer.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <system_error>

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

}  // namespace

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
  return std::make_unique<WarcWriter>(Key{}, std::move(options));
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
