// The pages' creation times (format version 6, src/page_db/creation_marks.cc): marks per
// second of the writer's wall clock, the look-up, compaction, damage, and the upgrade of
// the committed version 5 DB (tests/data/format-v5.db).
#include <lmdb.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "base/coding.h"
#include "crawlrank/crawl_config.h"
#include "crawlrank/scheduler.h"
#include "page_db/page_db_impl.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

CrawledPage Unfetched(std::string url) {
  CrawledPage page;
  page.url = std::move(url);
  return page;
}

// Sleeps into the next second of the wall clock, 10 ms past its start.
void NextSecond() {
  const int64_t now = UnixNowMs();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000 - now % 1000 + 10));
}

TEST(CreationMarksTest, APageIsDatedByTheLastMarkAtOrBeforeIt) {
  const std::vector<CreationMark> marks{{0, 5'000}, {3, 7'000}, {10, 9'000}};
  EXPECT_EQ(CreatedMs(marks, 0), 5'000);
  EXPECT_EQ(CreatedMs(marks, 2), 5'000);
  EXPECT_EQ(CreatedMs(marks, 3), 7'000);
  EXPECT_EQ(CreatedMs(marks, 9), 7'000);
  EXPECT_EQ(CreatedMs(marks, 4'000'000'000u), 9'000);
  EXPECT_EQ(CreatedMs(std::vector<CreationMark>{{2, 1}}, 1), 0) << "before any mark: unknown";
  EXPECT_EQ(CreatedMs({}, 0), 0);
}

TEST(CreationMarksTest, TheWriterMarksTheFirstPageOfEachSecondItCreatesPagesIn) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
  NextSecond();
  const int64_t before = UnixNowMs();
  ASSERT_OK(db->Add(Unfetched("http://a.example/0")));
  ASSERT_OK(db->Add(Unfetched("http://a.example/1")));  // the same second (10 ms in): no mark
  ASSERT_OK(db->Add(Unfetched("http://a.example/0")));  // no page created: no mark
  NextSecond();
  const int64_t middle = UnixNowMs();
  ASSERT_OK(db->Add(Unfetched("http://a.example/2")));
  ASSERT_OK_AND_ASSIGN(auto snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(const std::vector<CreationMark> marks, snapshot.CreationMarks());
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks[0].first_id, 0u);
  EXPECT_GE(marks[0].ms, before);
  EXPECT_LT(marks[0].ms, middle);
  EXPECT_EQ(marks[1].first_id, 2u);
  EXPECT_GE(marks[1].ms, middle);
  EXPECT_LE(marks[1].ms, UnixNowMs());
  // A compacted copy keeps them; Check reads them.
  ASSERT_OK(db->CompactTo(dir.Sub("copy"), true));
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto copy, PageDb::Open(dir.Sub("copy"), reading));
  ASSERT_OK(copy->Check());
  ASSERT_OK_AND_ASSIGN(auto copied, copy->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(const std::vector<CreationMark> kept, copied.CreationMarks());
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept[1].ms, marks[1].ms);
}

TEST(CreationMarksTest, CheckReportsAMarkBeyondTheLastPageAndADamagedOne) {
  for (const bool beyond : {true, false}) {
    TempDir dir;
    {
      ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), Fast()));
      ASSERT_OK(db->Add(Unfetched("http://a.example/")));
      PageDbImpl& impl = PageDbInternals::Of(*db);
      MDB_txn* txn;
      ASSERT_EQ(mdb_txn_begin(impl.env.get(), nullptr, 0, &txn), 0);
      char key[4];
      coding::EncodeBigEndian32(beyond ? 5 : 0, key);
      const std::string value = beyond ? std::string("\x02", 1) : std::string("\x80", 1);
      MDB_val k{sizeof key, key}, v{value.size(), const_cast<char*>(value.data())};
      ASSERT_EQ(mdb_put(txn, impl.created, &k, &v, 0), 0);
      ASSERT_EQ(mdb_txn_commit(txn), 0);
    }
    PageDbOptions reading = Fast();
    reading.read_only = true;
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir.Sub("db"), reading));
    const Status check = db->Check();
    EXPECT_EQ(check.code(), StatusCode::kDataLoss);
    EXPECT_NE(check.message().find(beyond ? "beyond the last id" : "mark of page 0 is damaged"),
              std::string::npos)
        << check.ToString();
  }
}

// tests/data/format-v5.db (its README says what it holds): read as it is, refused for
// writing, upgraded in place; nothing but the format version and the new table changes.
TEST(CreationMarksTest, CommittedVersion5DbIsReadThenUpgradedWithPagesDatedFromTheUpgrade) {
  TempDir dir;
  const std::string path = testing::CopyCommittedDb(dir, 5);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  const auto schedule_of = [](const PageDb& db) {
    auto options = StoredSchedulerOptions(db);
    EXPECT_TRUE(options.ok()) << options.status().ToString();
    auto view = Scheduler::Inspect(db, *options, 100, 100);
    EXPECT_TRUE(view.ok()) << view.status().ToString();
    return *std::move(view);
  };
  ScheduleView before;
  StoredConfig config;
  {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
    EXPECT_EQ(db->Info()->format_version, 5u);
    ASSERT_OK(db->Check());
    ASSERT_OK_AND_ASSIGN(auto snapshot, db->NewSnapshot());
    EXPECT_TRUE(snapshot.CreationMarks()->empty());
    before = schedule_of(*db);
    ASSERT_OK_AND_ASSIGN(config, db->ReadConfig());
  }
  EXPECT_EQ(before.stats.queued, 5u);
  EXPECT_EQ(before.stats.failed, 3u);
  EXPECT_EQ(before.stats.crawled, 2u);
  const Status refused = PageDb::Open(path, Fast()).status();
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("page_db_upgrade"), std::string::npos) << refused.ToString();
  EXPECT_NE(refused.message().find("creation times"), std::string::npos) << refused.ToString();
  PageDbOptions upgrade = Fast();
  upgrade.upgrade = true;
  const int64_t upgraded_at = UnixNowMs();
  { ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, upgrade)); }
  ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(path, reading));
  EXPECT_EQ(db->Info()->format_version, kPageDbFormatVersion);
  ASSERT_OK(db->Check());
  ASSERT_OK_AND_ASSIGN(auto snapshot, db->NewSnapshot());
  ASSERT_OK_AND_ASSIGN(const std::vector<CreationMark> marks, snapshot.CreationMarks());
  ASSERT_EQ(marks.size(), 1u);
  EXPECT_EQ(marks[0].first_id, 0u);
  EXPECT_GE(marks[0].ms, upgraded_at);
  EXPECT_LE(marks[0].ms, UnixNowMs());
  EXPECT_EQ(*db->ReadConfig(), config);
  const ScheduleView after = schedule_of(*db);
  EXPECT_EQ(after.stats.queued, before.stats.queued);
  EXPECT_EQ(after.stats.failed, before.stats.failed);
  EXPECT_EQ(after.stats.crawled, before.stats.crawled);
  ASSERT_EQ(after.hosts.size(), before.hosts.size());
  for (size_t i = 0; i < after.hosts.size(); ++i) {
    EXPECT_EQ(after.hosts[i].key, before.hosts[i].key);
    EXPECT_EQ(after.hosts[i].hold_until_ms, before.hosts[i].hold_until_ms);
    EXPECT_EQ(after.hosts[i].delay_ms, before.hosts[i].delay_ms);
  }
}

}  // namespace
}  // namespace crawlrank
