// WarcWriter: what a crawl fetched, kept as WARC 1.1 files (ISO 28500:2017).
//
// Each file starts with a `warcinfo` record; each fetch adds a `request` record (the
// request as sent) and a `response` record (the response's head and its body as received:
// content codings such as gzip kept, transfer codings such as chunked removed), the
// request naming the response in WARC-Concurrent-To. Every record carries its digest
// (WARC-Block-Digest) and a response its body's (WARC-Payload-Digest), SHA-1 in base32
// as the IIPC's tools write them.
//
// Files: DIR/PREFIX-YYYYMMDDhhmmss-NNNNN.warc.gz (UTC, a serial from 00000), each record
// a gzip member of its own, so that a reader can seek to any record and a damaged record
// costs only itself. A file is closed and the next begun once it reaches max_file_bytes.
//
// Durability: each record is compressed whole in memory, and an exchange's two records
// are appended with one write(2). Linux may still end a large write early when the process
// is killed, and a power loss may lose the last write's end, so Open repairs: the newest
// file of the prefix in the directory, when it ends inside a gzip member, is cut back to
// its last whole member (and synced). So after a kill -9 or a crash, the next writer's
// Open leaves whole records only. A file being written holds an exclusive flock(2), and
// Open leaves a locked file alone (another writer's). Close() and each rotation fdatasync
// the file.
//
// Hostile input: the URL, IP and the heads are the server's or the crawl's; CR and LF in a
// WARC header value are written as %0D and %0A, so that no value can add a header.
// Thread safety: one writer may be called from several threads (a mutex orders records).
#ifndef CRAWLRANK_SRC_CRAWL_WARC_WRITER_H_
#define CRAWLRANK_SRC_CRAWL_WARC_WRITER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>

#include "base/unique_fd.h"
#include "crawlrank/status.h"

namespace crawlrank {

struct WarcOptions {
  std::string dir;                     // created when missing
  std::string prefix = "crawlrank";    // of each file's name
  // Begins a new file once the current one reaches this many bytes (compressed). Default
  // 1 GB, the size the WARC guidelines suggest.
  uint64_t max_file_bytes = uint64_t{1} << 30;
  std::string software = "crawlrank";  // the warcinfo record's `software` field
};

// One HTTP exchange, as it went over the wire.
struct WarcExchange {
  std::string url;            // WARC-Target-URI
  int64_t time_ms = 0;        // when the request was sent, Unix ms (WARC-Date)
  std::string ip;             // the address connected to (WARC-IP-Address); may be empty
  std::string request_head;   // request line and headers, ending with an empty line
  std::string response_head;  // status line and headers, ending with an empty line
  std::string_view body;      // the body as received (content codings kept)
};

class WarcWriter {
 public:
  // The directory is created if missing; the first file is begun at the first record.
  static Result<std::unique_ptr<WarcWriter>> Open(WarcOptions options);
  // For Open only: std::make_unique needs a public constructor, and the private Key keeps
  // it Open's.
 private:
  struct Key {
    explicit Key() = default;
  };

 public:
  WarcWriter(Key, WarcOptions options);
  ~WarcWriter();
  WarcWriter(const WarcWriter&) = delete;
  WarcWriter& operator=(const WarcWriter&) = delete;

  // Appends the request and response records of `exchange` (a new file first when the
  // current one is full). IoError naming the file when it cannot be written; the records
  // of a failed call may be partly written and the writer refuses further calls.
  Status Write(const WarcExchange& exchange);
  // Syncs and closes the current file; later Writes begin a new one.
  Status Close();

  // The file being written, empty before the first record and after Close.
  std::string current_file() const;
  uint64_t records_written() const;
  // Bytes Open cut from the end of a torn file (0: none was torn).
  uint64_t repaired_bytes() const { return repaired_bytes_; }

 private:
  // Cuts the torn end of the newest file of the prefix, unless another writer holds it.
  Status RepairNewest();
  Status BeginFile();                                 // REQUIRES: mu_ held
  // Appends `record` (and `second`, when not empty) with one write(2).
  Status Append(std::string_view record, std::string_view second = {});  // REQUIRES: mu_ held
  Status CloseFile();                                 // REQUIRES: mu_ held
  std::string NewRecordId();                          // REQUIRES: mu_ held

  const WarcOptions options_;
  mutable std::mutex mu_;
  UniqueFd fd_;
  std::string path_;
  std::string warcinfo_id_;
  uint64_t file_bytes_ = 0;
  uint64_t records_ = 0;
  uint32_t serial_ = 0;
  uint64_t repaired_bytes_ = 0;
  Status failed_ = Status::Ok();  // a write failed: every later call fails the same
  std::mt19937_64 ids_;
};

// A request or response head as libcurl saw it, in the form WARC readers expect:
//  - HTTP/2 and HTTP/3 in HTTP/1.1 form: "GET /a HTTP/2" becomes "GET /a HTTP/1.1", and
//    "HTTP/2 404" becomes "HTTP/1.1 404 Not Found" (their frames carry no reason phrase;
//    an unknown code gets none); header names stay as sent (lower case in HTTP/2);
//  - without Transfer-Encoding lines: libcurl has removed the transfer coding (chunked)
//    from the body kept, so the head says what the record holds;
//  - ending with exactly one blank line (CRLF CRLF).
std::string WarcHttpHead(std::string_view head);

// The WARC digest of `bytes`: "sha1:" and the SHA-1 in base32 (RFC 4648, upper case).
std::string WarcDigest(std::string_view bytes);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_CRAWL_WARC_WRITER_H_
