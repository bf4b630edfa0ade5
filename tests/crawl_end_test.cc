// RankCrawlEnd (crawlrank/crawl_end.h): the rank files a crawl leaves, against ranks
// computed one by one with db_rank.h.
#include "crawlrank/crawl_end.h"

#include <filesystem>

#include "crawlrank/db_rank.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

CrawledPage LinkingPage(std::string url, std::vector<std::string> links) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = 1;
  for (std::string& link : links) page.links.push_back({std::move(link), 0});
  return page;
}

class CrawlEndTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(dir_.Sub("db"), Fast()));
    ASSERT_OK(db->Add(LinkingPage("http://a.example/", {"http://a.example/1", "http://b.example/"})));
    ASSERT_OK(db->Add(LinkingPage("http://a.example/1", {"http://a.example/", "http://b.example/"})));
    ASSERT_OK(db->Add(LinkingPage("http://b.example/", {"http://a.example/"})));
  }
  std::unique_ptr<PageDb> Reader() {
    PageDbOptions reading = Fast();
    reading.read_only = true;
    auto db = PageDb::Open(dir_.Sub("db"), reading);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? *std::move(db) : nullptr;
  }
  bool Stored(std::string_view name) const {
    return std::filesystem::exists(RankFilePath(dir_.Sub("db"), name));
  }

  TempDir dir_;
};

TEST_F(CrawlEndTest, AModeThatRanksLeavesItsOwnRankAndTheDisplayRank) {
  std::unique_ptr<PageDb> db = Reader();  // read-only is enough
  SchedulerOptions options;
  options.score = ScoreMode::kPageRank;
  ASSERT_OK_AND_ASSIGN(CrawlEndRanks ranks, RankCrawlEnd(*db, options));
  ASSERT_TRUE(ranks.mode_rank.has_value());
  EXPECT_EQ(ranks.mode_rank->rank.algorithm, RankAlgorithm::kPageRank);
  EXPECT_TRUE(Stored("pagerank"));
  EXPECT_TRUE(Stored(kDisplayRankName));
  // The same scores as one rank at a time, unsaved.
  DbRankOptions unsaved;
  unsaved.save = false;
  ASSERT_OK_AND_ASSIGN(StoredRank pagerank, RankPageDb(*db, RankAlgorithm::kPageRank, unsaved));
  ASSERT_OK_AND_ASSIGN(StoredRank display, RankForDisplay(*db, unsaved));
  ASSERT_EQ(ranks.mode_rank->rank.scores.size(), pagerank.rank.scores.size());
  for (size_t i = 0; i < pagerank.rank.scores.size(); ++i) {
    EXPECT_NEAR(ranks.mode_rank->rank.scores[i], pagerank.rank.scores[i], 1e-6) << i;
    EXPECT_NEAR(ranks.display.rank.scores[i], display.rank.scores[i], 1e-12) << i;
  }
  ASSERT_OK_AND_ASSIGN(StoredRank reloaded,
                       LoadRank(dir_.Sub("db"), kDisplayRankName, RankAlgorithm::kPageRank));
  EXPECT_EQ(reloaded.rank.scores, ranks.display.rank.scores);
}

TEST_F(CrawlEndTest, AnOnlineModeLeavesTheDisplayRankOnly) {
  std::unique_ptr<PageDb> db = Reader();
  for (const ScoreMode mode : {ScoreMode::kOpic, ScoreMode::kBreadthFirst, ScoreMode::kTopical}) {
    SchedulerOptions options;
    options.score = mode;
    ASSERT_OK_AND_ASSIGN(CrawlEndRanks ranks, RankCrawlEnd(*db, options));
    EXPECT_FALSE(ranks.mode_rank.has_value());
    EXPECT_EQ(ranks.display.rank.scores.size(), 3u);
  }
  EXPECT_FALSE(Stored("pagerank"));
  EXPECT_TRUE(Stored(kDisplayRankName));
  // The blend (the default) keeps a partial PageRank: it leaves pagerank.rank.
  SchedulerOptions blend;
  ASSERT_OK_AND_ASSIGN(CrawlEndRanks ranks, RankCrawlEnd(*db, blend));
  ASSERT_TRUE(ranks.mode_rank.has_value());
  EXPECT_EQ(ranks.mode_rank->rank.algorithm, RankAlgorithm::kPageRank);
  EXPECT_TRUE(Stored("pagerank"));
}

}  // namespace
}  // namespace crawlrank
