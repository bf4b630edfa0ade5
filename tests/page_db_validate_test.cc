// Issue #23, item 4: nothing a caller sends can damage a PageDB. Every write path checks a
// page's fields against the bounds in crawlrank/page_db.h (ValidateCrawledPage,
// ValidatePageRecord) before it writes anything; and a DB damaged all the same (by an
// older crawlrank, or on disk) can be salvaged: the snapshot walks with a DamageSink go
// past what does not decode.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "base/coding.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"
#include "page_db/page_record.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::TempDir;

using testing::Fast;

CrawledPage Fetched(std::string url, int64_t time_ms = 1000) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = time_ms;
  page.links = {{"http://linked.test/", 0.5f}};
  return page;
}

// Expects `status` to be InvalidArgument naming each of `words` (field, value, URL).
void ExpectRefusal(const Status& status, const std::vector<std::string>& words) {
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.ToString();
  for (const std::string& word : words) {
    EXPECT_NE(status.message().find(word), std::string::npos)
        << "\"" << word << "\" missing from: " << status.message();
  }
}

// Expects the DB at `path` to hold `pages` pages, to pass the full check, and to take
// another write, after it is closed and opened again.
void ExpectSoundWithPages(const std::string& path, uint64_t pages) {
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
  EXPECT_OK(db->Check());
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  EXPECT_EQ(snapshot.counters().pages, pages);
  EXPECT_OK(snapshot.ForEachPage([](const PageRecord&) { return Status::Ok(); }));
  ASSERT_OK(db->Add(Fetched("http://after.test/")));
}

struct BadPage {
  const char* what;
  void (*spoil)(CrawledPage&);
  std::vector<std::string> words;  // field and value the error must name
};

const BadPage kBadPages[] = {
    {"a negative crawl time",
     [](CrawledPage& p) { p.crawl_time_ms = -5; },
     {"crawl_time_ms", "-5"}},
    {"a crawl time past the year 9999",
     [](CrawledPage& p) { p.crawl_time_ms = kMaxCrawlTimeMs + 1; },
     {"crawl_time_ms", std::to_string(kMaxCrawlTimeMs + 1)}},
    {"the largest time",
     [](CrawledPage& p) { p.crawl_time_ms = INT64_MAX; },
     {"crawl_time_ms", std::to_string(INT64_MAX)}},
    {"a NaN content score",
     [](CrawledPage& p) { p.content_score = std::numeric_limits<float>::quiet_NaN(); },
     {"content_score", "nan"}},
    {"an infinite content score",
     [](CrawledPage& p) { p.content_score = -std::numeric_limits<float>::infinity(); },
     {"content_score", "-inf"}},
    {"a status of four digits",
     [](CrawledPage& p) { p.http_status = 1000; },
     {"http_status", "1000"}},
    {"an infinite link score",
     [](CrawledPage& p) {
       p.links.push_back({"http://x.test/", INFINITY});
     },
     {"the score of link \"http://x.test/\"", "inf"}},
};

TEST(PageDbValidateTest, AddRefusesEachFieldOutOfBoundsAndWritesNothing) {
  for (const BadPage& bad : kBadPages) {
    SCOPED_TRACE(bad.what);
    TempDir dir;
    {
      ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
      ASSERT_OK(db->Add(Fetched("http://first.test/")));
      CrawledPage page = Fetched("http://bad.test/");
      bad.spoil(page);
      std::vector<std::string> words = bad.words;
      words.push_back("page \"http://bad.test/\"");
      ExpectRefusal(db->Add(page), words);
      ExpectRefusal(ValidateCrawledPage(page), words);
      // A batch with the bad page writes none of its pages; a write batch neither.
      const std::vector<CrawledPage> batch = {Fetched("http://good.test/"), page};
      ExpectRefusal(db->AddBatch(batch), words);
      WriteBatch write;
      write.AddCrawled(Fetched("http://good.test/"));
      write.AddCrawled(page);
      ExpectRefusal(db->Write(write), words);
      EXPECT_EQ(db->FindUrl("http://good.test/").status().code(), StatusCode::kNotFound);
      EXPECT_EQ(db->FindUrl("http://bad.test/").status().code(), StatusCode::kNotFound);
    }
    ExpectSoundWithPages(dir.Sub("db"), 2);  // first.test and linked.test
  }
}

TEST(PageDbValidateTest, TheBoundsThemselvesAreStored) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  CrawledPage page = Fetched("http://edge.test/", kMaxCrawlTimeMs);
  page.http_status = kMaxHttpStatus;
  page.content_score = -std::numeric_limits<float>::max();
  ASSERT_OK(db->Add(page));
  ASSERT_OK_AND_ASSIGN(PageRecord record, db->FindUrl("http://edge.test/"));
  EXPECT_EQ(record.first_crawl_ms, kMaxCrawlTimeMs);
  EXPECT_EQ(record.http_status, kMaxHttpStatus);
  EXPECT_OK(ValidatePageRecord(record));
  EXPECT_OK(db->Check());
}

TEST(PageDbValidateTest, RestoreRefusesARecordTheDecoderWouldRefuse) {
  TempDir dir;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
    PageRecord record;
    record.url = "http://restored.test/";
    record.fingerprint = UrlFingerprint(record.url);
    record.n_crawls = 1;
    record.first_crawl_ms = -5000;
    record.last_crawl_ms = 1000;
    WriteBatch batch;
    batch.RestorePage(record);
    ExpectRefusal(db->Write(batch),
                  {"restore page \"http://restored.test/\"", "first_crawl_ms", "-5000"});
    record.first_crawl_ms = 1000;
    record.n_changes = 1;  // a change needs a recrawl
    ExpectRefusal(ValidatePageRecord(record), {"n_changes", "1", "n_crawls"});
    record.n_changes = 0;
    record.link_score = std::numeric_limits<float>::quiet_NaN();
    ExpectRefusal(ValidatePageRecord(record), {"link_score", "nan"});
    record.link_score = 0;
    record.url.clear();
    ExpectRefusal(ValidatePageRecord(record), {"url", "0 bytes"});
  }
  ExpectSoundWithPages(dir.Sub("db"), 0);
}

TEST(PageDbValidateTest, TheSchedulersReportsAreCheckedTheSameWay) {
  TempDir dir;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
    SchedulerOptions options;
    options.delay_ms = 0;
    ASSERT_OK_AND_ASSIGN(auto scheduler, Scheduler::Open(*db, options));
    ASSERT_OK(scheduler->AddSeeds({"http://seed.test/"}));
    ASSERT_OK_AND_ASSIGN(std::vector<Request> leased, scheduler->Next(1));
    ASSERT_EQ(leased.size(), 1u);
    CrawlReport report{Fetched("http://seed.test/", -5), leased[0].lease, {}};
    ExpectRefusal(scheduler->Crawled(report),
                  {"page \"http://seed.test/\"", "crawl_time_ms", "-5"});
    CrawlReport good{Fetched("http://other.test/"), 0, {}};
    ExpectRefusal(scheduler->CrawledBatch({good, report}), {"crawl_time_ms", "-5"});
    EXPECT_EQ(db->FindUrl("http://other.test/").status().code(), StatusCode::kNotFound);
    // The lease still stands and a good report ends it.
    report.page.crawl_time_ms = 5;
    ASSERT_OK(scheduler->Crawled(report));
    ASSERT_OK_AND_ASSIGN(PageRecord seed, db->FindUrl("http://seed.test/"));
    EXPECT_EQ(seed.first_crawl_ms, 5);
  }
  ExpectSoundWithPages(dir.Sub("db"), 2);  // seed.test and linked.test
}

// The record of page `id` of `db` as stored.
std::string StoredRecord(PageDb& db, uint32_t id) {
  PageRecord record = *db.FindId(id);
  std::string value;
  EncodePageRecord(record, &value);
  return value;
}

TEST(PageDbValidateTest, SalvageWalksGoPastWhatDoesNotDecode) {
  TempDir dir;
  const std::string path = dir.Sub("db");
  testing::BuildDb(path, 100);
  std::string negative_time, block_key(4, '\0');
  std::vector<uint32_t> kept_sources;  // those outside the block damaged below
  size_t lost_sources = 0;             // and those in it
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, Fast()));
    ASSERT_OK_AND_ASSIGN(Snapshot before, db->NewSnapshot());
    for (EdgeCursor c = before.Edges(); c.Valid(); c.Next()) {
      if (c.source() < 64 || c.source() >= 96) {
        kept_sources.push_back(c.source());
      } else {
        ++lost_sources;
      }
    }
    ASSERT_GT(lost_sources, 0u);
    // What an older crawlrank wrote for crawl_time_ms = -5: first_crawl_ms and
    // last_crawl_ms as the varint of a negative int64.
    PageRecord record = *db->FindId(7);
    record.first_crawl_ms = record.last_crawl_ms = -5;
    EncodePageRecord(record, &negative_time);
    EXPECT_NE(StoredRecord(*db, 7), negative_time);
  }
  std::string key(4, '\0');
  coding::EncodeBigEndian32(7, key.data());
  testing::PutRaw(path, "pages", key, negative_time);
  coding::EncodeBigEndian32(2, block_key.data());  // the links of pages 64 .. 95
  testing::PutRaw(path, "links", block_key, std::string("\x01", 1));

  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  const Status check = db->Check();
  EXPECT_EQ(check.code(), StatusCode::kDataLoss);
  EXPECT_NE(check.message().find("id 7: damaged (first_crawl_ms is -5, a negative time)"),
            std::string::npos)
      << check.ToString();
  ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
  EXPECT_EQ(snapshot.ForEachPage([](const PageRecord&) { return Status::Ok(); }).code(),
            StatusCode::kDataLoss);

  std::vector<DamagedEntry> damaged;
  const DamageSink note = [&](const DamagedEntry& entry) {
    damaged.push_back(entry);
    return Status::Ok();
  };
  std::vector<uint32_t> ids;
  ASSERT_OK(snapshot.ForEachPage(
      [&](const PageRecord& r) {
        ids.push_back(r.id);
        return Status::Ok();
      },
      note));
  EXPECT_EQ(ids.size(), snapshot.counters().pages - 1);
  EXPECT_EQ(std::count(ids.begin(), ids.end(), 7u), 0);
  ASSERT_EQ(damaged.size(), 1u);
  EXPECT_EQ(damaged[0].table, "pages");
  EXPECT_EQ(damaged[0].key, 7u);
  EXPECT_EQ(damaged[0].why.code(), StatusCode::kDataLoss);

  damaged.clear();
  std::vector<uint32_t> sources;
  EdgeCursor edges = snapshot.Edges(note);
  for (; edges.Valid(); edges.Next()) sources.push_back(edges.source());
  ASSERT_OK(edges.status());
  ASSERT_EQ(damaged.size(), 1u);
  EXPECT_EQ(damaged[0].table, "links");
  EXPECT_EQ(damaged[0].key, 2u);
  EXPECT_EQ(sources, kept_sources);
  // Without a sink, the stream stops there; a sink's error stops the salvage walks.
  EdgeCursor plain = snapshot.Edges();
  while (plain.Valid()) plain.Next();
  EXPECT_EQ(plain.status().code(), StatusCode::kDataLoss);
  const Status stop =
      snapshot.ForEachPage([](const PageRecord&) { return Status::Ok(); },
                           [](const DamagedEntry&) { return AbortedError("enough"); });
  EXPECT_EQ(stop.code(), StatusCode::kAborted);
}

}  // namespace
}  // namespace crawlrank
