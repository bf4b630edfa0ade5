// The crawl log's lines: valid JSON whatever a server sent, ISO times, nulls for what is
// absent; the file appends and flushes.
#include "crawlrank/fetch_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace crawlrank {
namespace {

TEST(FetchLogTest, ALineNamesEveryFieldWithNullsForWhatIsAbsent) {
  FetchLogEntry entry;
  entry.time_ms = 1'700'000'000'250;
  entry.url = "https://a.example/x";
  entry.http_status = 200;
  entry.bytes = 5120;
  entry.content_type = "text/html; charset=utf-8";
  entry.duration_ms = 38;
  EXPECT_EQ(FetchLogLine(entry),
            "{\"time\":\"2023-11-14T22:13:20.250Z\",\"url\":\"https://a.example/x\","
            "\"status\":200,\"bytes\":5120,\"content_type\":\"text/html; charset=utf-8\","
            "\"ms\":38,\"referrer\":null,\"failure\":null}");
  entry.referrer = "https://a.example/";
  entry.failure = "http-5xx";
  entry.content_type.clear();
  const std::string line = FetchLogLine(entry);
  EXPECT_NE(line.find("\"content_type\":null"), std::string::npos) << line;
  EXPECT_NE(line.find("\"referrer\":\"https://a.example/\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"failure\":\"http-5xx\"}"), std::string::npos) << line;
}

TEST(FetchLogTest, HostileBytesAreEscapedAndTheContentTypeIsCut) {
  FetchLogEntry entry;
  entry.url = "https://a.example/\"q\\";
  entry.content_type = std::string("text/html\r\n\x01\xff\xc3\xa9") +
                       std::string(2 * kMaxContentTypeBytes, 'x');
  const std::string line = FetchLogLine(entry);
  EXPECT_NE(line.find("\"url\":\"https://a.example/\\\"q\\\\\""), std::string::npos) << line;
  EXPECT_NE(line.find("text/html\\u000d\\u000a\\u0001\\u00ff\\u00c3\\u00a9xxx"),
            std::string::npos)
      << line;
  for (const char c : line) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "byte " << static_cast<int>(c);
  }
  // The cut: 256 bytes of the header, 15 of them escaped into 6-character forms.
  EXPECT_LT(line.size(), 200 + kMaxContentTypeBytes * 2);
}

TEST(FetchLogTest, TheFileAppendsAcrossOpensAndNamesItsPathOnError) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("fetch_log_test." + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "crawl.jsonl").string();
  FetchLogEntry entry;
  entry.url = "https://a.example/1";
  {
    Result<FetchLogFile> log = FetchLogFile::Open(path);
    ASSERT_TRUE(log.ok()) << log.status().ToString();
    log->Append(entry);
    ASSERT_TRUE(log->Flush().ok());
  }
  entry.url = "https://a.example/2";
  {
    Result<FetchLogFile> log = FetchLogFile::Open(path);
    ASSERT_TRUE(log.ok());
    log->Writer()(entry);
  }  // closing writes what is buffered
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), FetchLogLine([] {
                          FetchLogEntry e;
                          e.url = "https://a.example/1";
                          return e;
                        }()) + "\n" + FetchLogLine(entry) + "\n");
  const Result<FetchLogFile> missing = FetchLogFile::Open((dir / "no/such/dir/log").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find("no/such/dir/log"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace crawlrank
