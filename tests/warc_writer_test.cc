#include "crawl/warc_writer.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

namespace crawlrank {
namespace {

namespace fs = std::filesystem;

// A .warc.gz read back: each gzip member inflated on its own; `complete` is false when the
// file ends inside a member.
struct WarcFile {
  std::vector<std::string> members;
  bool complete = true;
};

WarcFile ReadWarcFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  WarcFile out;
  size_t pos = 0;
  while (pos < data.size()) {
    z_stream z{};
    EXPECT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + pos));
    z.avail_in = static_cast<uInt>(data.size() - pos);
    std::string member;
    char buffer[1 << 16];
    int result = Z_OK;
    while (result == Z_OK) {
      z.next_out = reinterpret_cast<Bytef*>(buffer);
      z.avail_out = sizeof buffer;
      result = inflate(&z, Z_NO_FLUSH);
      member.append(buffer, sizeof buffer - z.avail_out);
    }
    const size_t used = data.size() - pos - z.avail_in;
    inflateEnd(&z);
    if (result != Z_STREAM_END) {
      out.complete = false;
      break;
    }
    pos += used;
    out.members.push_back(std::move(member));
  }
  return out;
}

struct ParsedRecord {
  std::string version;
  std::map<std::string, std::string> fields;
  std::string block;
};

// One WARC record, checked as ISO 28500 lays it out.
ParsedRecord ParseRecord(const std::string& member) {
  ParsedRecord record;
  const size_t head_end = member.find("\r\n\r\n");
  EXPECT_NE(head_end, std::string::npos);
  std::istringstream head(member.substr(0, head_end));
  std::string line;
  std::getline(head, line);
  record.version = line.substr(0, line.size() - 1);  // without the CR
  while (std::getline(head, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const size_t colon = line.find(": ");
    EXPECT_NE(colon, std::string::npos) << line;
    record.fields[line.substr(0, colon)] = line.substr(colon + 2);
  }
  const size_t length = std::stoull(record.fields.at("Content-Length"));
  record.block = member.substr(head_end + 4, length);
  EXPECT_EQ(member.size(), head_end + 4 + length + 4) << "the block, then two CRLFs";
  EXPECT_EQ(member.substr(member.size() - 4), "\r\n\r\n");
  return record;
}

std::vector<fs::path> WarcFiles(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

class WarcWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("warc_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  WarcExchange Exchange(std::string url, std::string_view body) {
    WarcExchange e;
    e.url = std::move(url);
    e.time_ms = 1'764'000'000'123;
    e.ip = "127.0.0.1";
    e.request_head = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
    e.response_head = "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n";
    e.body = body;
    return e;
  }

  fs::path dir_;
};

TEST(WarcDigestTest, IsSha1InBase32) {
  // Independent values: Python's hashlib.sha1 and base64.b32encode.
  EXPECT_EQ(WarcDigest(""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
  EXPECT_EQ(WarcDigest("abc"), "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
  EXPECT_EQ(WarcDigest("hello world"), "sha1:FKXGYNOJJ7H3IFO35FPUBC445EPOQRXN");
}

TEST_F(WarcWriterTest, AFileIsWarcinfoThenRequestAndResponsePerExchange) {
  auto writer = WarcWriter::Open({.dir = dir_.string(), .prefix = "t"});
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  const std::string body = std::string("\x1f\x8b binary \0 bytes", 17);
  ASSERT_TRUE((*writer)->Write(Exchange("http://a.test/", body)).ok());
  ASSERT_TRUE((*writer)->Write(Exchange("http://a.test/2", "second")).ok());
  EXPECT_EQ((*writer)->records_written(), 5u);
  const std::string path = (*writer)->current_file();
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE((*writer)->current_file().empty());
  const auto files = WarcFiles(dir_);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].string(), path);
  EXPECT_TRUE(files[0].filename().string().starts_with("t-"));
  EXPECT_TRUE(files[0].filename().string().ends_with("-00000.warc.gz"));
  const WarcFile file = ReadWarcFile(files[0]);
  ASSERT_TRUE(file.complete);
  ASSERT_EQ(file.members.size(), 5u) << "one gzip member a record";
  const ParsedRecord info = ParseRecord(file.members[0]);
  EXPECT_EQ(info.version, "WARC/1.1");
  EXPECT_EQ(info.fields.at("WARC-Type"), "warcinfo");
  EXPECT_EQ(info.fields.at("Content-Type"), "application/warc-fields");
  EXPECT_EQ(info.fields.at("WARC-Filename"), files[0].filename().string());
  EXPECT_NE(info.block.find("format: WARC File Format 1.1\r\n"), std::string::npos);
  const ParsedRecord request = ParseRecord(file.members[1]);
  const ParsedRecord response = ParseRecord(file.members[2]);
  EXPECT_EQ(request.fields.at("WARC-Type"), "request");
  EXPECT_EQ(request.fields.at("Content-Type"), "application/http;msgtype=request");
  EXPECT_EQ(request.block, "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
  EXPECT_EQ(request.fields.at("WARC-Concurrent-To"), response.fields.at("WARC-Record-ID"));
  EXPECT_EQ(response.fields.at("WARC-Type"), "response");
  EXPECT_EQ(response.fields.at("WARC-Target-URI"), "http://a.test/");
  EXPECT_EQ(response.fields.at("WARC-Date"), "2025-11-24T16:00:00.123Z");
  EXPECT_EQ(response.fields.at("WARC-IP-Address"), "127.0.0.1");
  EXPECT_EQ(response.fields.at("WARC-Warcinfo-ID"), info.fields.at("WARC-Record-ID"));
  EXPECT_EQ(response.block, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n" + body);
  EXPECT_EQ(response.fields.at("WARC-Payload-Digest"), WarcDigest(body));
  EXPECT_EQ(response.fields.at("WARC-Block-Digest"), WarcDigest(response.block));
  EXPECT_EQ(request.fields.at("WARC-Block-Digest"), WarcDigest(request.block));
  // Record IDs: version 4 UUIDs, all different.
  std::set<std::string> ids;
  for (const std::string& member : file.members) {
    const std::string id = ParseRecord(member).fields.at("WARC-Record-ID");
    EXPECT_TRUE(id.starts_with("<urn:uuid:") && id.size() == 47 && id[24] == '4') << id;
    ids.insert(id);
  }
  EXPECT_EQ(ids.size(), 5u);
}

TEST_F(WarcWriterTest, AFullFileIsClosedAndTheNextBeginsWithItsOwnWarcinfo) {
  auto writer = WarcWriter::Open({.dir = dir_.string(), .max_file_bytes = 1});
  ASSERT_TRUE(writer.ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*writer)->Write(Exchange("http://a.test/" + std::to_string(i), "x")).ok());
  }
  ASSERT_TRUE((*writer)->Close().ok());
  const auto files = WarcFiles(dir_);
  ASSERT_EQ(files.size(), 3u);
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_TRUE(files[i].string().ends_with("-0000" + std::to_string(i) + ".warc.gz"));
    const WarcFile file = ReadWarcFile(files[i]);
    ASSERT_EQ(file.members.size(), 3u);
    EXPECT_EQ(ParseRecord(file.members[0]).fields.at("WARC-Type"), "warcinfo");
    EXPECT_EQ(ParseRecord(file.members[2]).fields.at("WARC-Target-URI"),
              "http://a.test/" + std::to_string(i));
  }
}

TEST_F(WarcWriterTest, NoValueCanAddAHeader) {
  auto writer = WarcWriter::Open({.dir = dir_.string()});
  ASSERT_TRUE(writer.ok());
  WarcExchange e = Exchange("http://a.test/\r\nWARC-Type: evil", "x");
  e.ip = "1.2.3.4\nX: y";
  ASSERT_TRUE((*writer)->Write(e).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  const WarcFile file = ReadWarcFile(WarcFiles(dir_).at(0));
  const ParsedRecord response = ParseRecord(file.members.at(2));
  EXPECT_EQ(response.fields.at("WARC-Type"), "response");
  EXPECT_EQ(response.fields.at("WARC-Target-URI"), "http://a.test/%0D%0AWARC-Type: evil");
  EXPECT_EQ(response.fields.at("WARC-IP-Address"), "1.2.3.4%0AX: y");
  EXPECT_EQ(response.fields.count("X"), 0u);
}

TEST_F(WarcWriterTest, BadOptionsAreRefused) {
  EXPECT_EQ(WarcWriter::Open({}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(WarcWriter::Open({.dir = dir_.string(), .prefix = "a/b"}).status().code(),
            StatusCode::kInvalidArgument);
  fs::create_directories(dir_);
  std::ofstream(dir_ / "file") << "x";
  EXPECT_EQ(WarcWriter::Open({.dir = (dir_ / "file" / "sub").string()}).status().code(),
            StatusCode::kIoError);
}

// A write cut short (a kill during a large write(2), a power loss) leaves part of a member at
// the end; the next Open cuts it, and only it.
TEST_F(WarcWriterTest, OpenCutsATornEndOfTheNewestFileOnly) {
  auto first = WarcWriter::Open({.dir = dir_.string(), .max_file_bytes = 1});
  ASSERT_TRUE(first.ok());
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE((*first)->Write(Exchange("http://a.test/" + std::to_string(i), "body")).ok());
  }
  ASSERT_TRUE((*first)->Close().ok());
  auto files = WarcFiles(dir_);
  ASSERT_EQ(files.size(), 2u);
  const auto whole = fs::file_size(files[1]);
  // Half of a copy of the file's first member, appended to both files.
  std::ifstream in(files[1], std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string torn = bytes.substr(0, 40);
  for (const auto& f : files) std::ofstream(f, std::ios::binary | std::ios::app) << torn;
  ASSERT_FALSE(ReadWarcFile(files[1]).complete);
  auto second = WarcWriter::Open({.dir = dir_.string()});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ((*second)->repaired_bytes(), torn.size());
  EXPECT_EQ(fs::file_size(files[1]), whole);
  EXPECT_TRUE(ReadWarcFile(files[1]).complete);
  EXPECT_EQ(ReadWarcFile(files[1]).members.size(), 3u);
  EXPECT_FALSE(ReadWarcFile(files[0]).complete) << "only the newest file is looked at";
  // A whole file is left as it is.
  auto third = WarcWriter::Open({.dir = dir_.string()});
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)->repaired_bytes(), 0u);
  EXPECT_EQ(fs::file_size(files[1]), whole);
}

TEST_F(WarcWriterTest, OpenLeavesAFileAnotherWriterHoldsAlone) {
  auto writing = WarcWriter::Open({.dir = dir_.string()});
  ASSERT_TRUE(writing.ok());
  ASSERT_TRUE((*writing)->Write(Exchange("http://a.test/", "body")).ok());
  const std::string path = (*writing)->current_file();
  std::ofstream(path, std::ios::binary | std::ios::app) << std::string("\x1f\x8b\x08\0", 4);
  const auto size = fs::file_size(path);
  auto other = WarcWriter::Open({.dir = dir_.string()});
  ASSERT_TRUE(other.ok());
  EXPECT_EQ((*other)->repaired_bytes(), 0u);
  EXPECT_EQ(fs::file_size(path), size);
}

TEST_F(WarcWriterTest, OpenRemovesAnEmptyNewestFile) {
  fs::create_directories(dir_);
  std::ofstream(dir_ / "crawlrank-20990101000000-00000.warc.gz");
  ASSERT_TRUE(WarcWriter::Open({.dir = dir_.string()}).ok());
  EXPECT_FALSE(fs::exists(dir_ / "crawlrank-20990101000000-00000.warc.gz"));
}

// A writer SIGKILLed at a random moment leaves whole records only.
TEST_F(WarcWriterTest, KillNineLeavesWholeRecordsOnly) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 3; ++round) {
    fs::remove_all(dir_);
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      close(ready[0]);
      auto writer = WarcWriter::Open({.dir = dir_.string(), .max_file_bytes = 256 << 10});
      if (!writer.ok()) _exit(1);
      std::string body(200 << 10, 'b');
      for (uint64_t i = 0;; ++i) {
        body[i % body.size()] = static_cast<char>('a' + i % 26);
        if (!(*writer)->Write(Exchange("http://a.test/" + std::to_string(i), body)).ok()) _exit(1);
        if (i == 2) (void)!write(ready[1], "r", 1);  // some records are down: kill me any time
      }
    }
    close(ready[1]);
    char byte;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 30000));
    kill(child, SIGKILL);
    int status;
    waitpid(child, &status, 0);
    size_t records = 0;
    for (const fs::path& path : WarcFiles(dir_)) {
      const WarcFile file = ReadWarcFile(path);
      EXPECT_TRUE(file.complete) << path << " (seed " << seed << ", round " << round << ")";
      for (const std::string& member : file.members) {
        const ParsedRecord record = ParseRecord(member);
        EXPECT_EQ(record.fields.at("WARC-Block-Digest"), WarcDigest(record.block));
      }
      // Whole exchanges: the warcinfo, then request and response pairs.
      EXPECT_EQ(file.members.size() % 2, 1u) << path;
      records += file.members.size();
    }
    EXPECT_GE(records, 7u);
  }
}

// WARC 1.1 §6.3.2 and the IIPC's readers take `application/http` blocks in HTTP/1.1 form.
TEST(WarcHttpHeadTest, Http2StatusAndRequestLinesTakeHttp11Form) {
  EXPECT_EQ(WarcHttpHead("HTTP/2 200 \r\ncontent-type: text/html\r\n\r\n"),
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\n\r\n");
  EXPECT_EQ(WarcHttpHead("HTTP/2 404\r\n\r\n"), "HTTP/1.1 404 Not Found\r\n\r\n");
  EXPECT_EQ(WarcHttpHead("HTTP/3 299\r\n\r\n"), "HTTP/1.1 299\r\n\r\n");
  EXPECT_EQ(WarcHttpHead("GET /a?b HTTP/2\r\nHost: x.example\r\n\r\n"),
            "GET /a?b HTTP/1.1\r\nHost: x.example\r\n\r\n");
}

TEST(WarcHttpHeadTest, Http11HeadsStayAsSent) {
  const std::string head = "HTTP/1.1 301 Gone Fishing\r\nLocation: /b\r\nX-A:  b \r\n\r\n";
  EXPECT_EQ(WarcHttpHead(head), head);
  EXPECT_EQ(WarcHttpHead("HTTP/1.0 200 OK\nServer: old\n\n"),
            "HTTP/1.0 200 OK\r\nServer: old\r\n\r\n");
}

TEST(WarcHttpHeadTest, TransferEncodingIsDroppedWithTheCodingLibcurlRemoved) {
  EXPECT_EQ(WarcHttpHead("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
                         "Content-Encoding: gzip\r\ntransfer-encoding: chunked\r\n\r\n"),
            "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n");
}

TEST(WarcHttpHeadTest, EndsWithOneBlankLineWhateverItWasGiven) {
  EXPECT_EQ(WarcHttpHead("HTTP/1.1 200 OK\r\nA: b"), "HTTP/1.1 200 OK\r\nA: b\r\n\r\n");
  EXPECT_EQ(WarcHttpHead(""), "\r\n");
}

}  // namespace
}  // namespace crawlrank
