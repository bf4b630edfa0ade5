// BestPages (crawlrank/best_pages.h) against lists worked out by hand.
#include "crawlrank/best_pages.h"

#include <cmath>
#include <limits>

#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

CrawledPage PageWithStatus(std::string url, uint16_t status, std::vector<std::string> links) {
  CrawledPage page;
  page.url = std::move(url);
  page.crawl_time_ms = 1;
  page.http_status = status;
  for (std::string& link : links) page.links.push_back({std::move(link), 0});
  return page;
}

std::vector<std::string> UrlsOf(const std::vector<BestPage>& best) {
  std::vector<std::string> urls;
  for (const BestPage& page : best) urls.push_back(page.record.url);
  return urls;
}

class BestPagesTest : public ::testing::Test {
 protected:
  // Ids in discovery order: 0 a.example/ (200), 1 a.example/x (uncrawled),
  // 2 B.example/ (404), 3 b.example/y (uncrawled), 4 c.example/ (200, after the rank).
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(db_, PageDb::Open(dir_.Sub("db"), Fast()));
    ASSERT_OK(db_->Add(PageWithStatus("http://a.example/", 200, {"http://a.example/x"})));
    ASSERT_OK(db_->Add(PageWithStatus("http://b.example/", 404, {"http://b.example/y"})));
    ASSERT_OK(db_->Add(PageWithStatus("http://c.example/", 200, {})));
  }
  std::vector<std::string> Best(size_t n, BestPagesFilter filter) {
    auto snapshot = db_->NewSnapshot();
    EXPECT_TRUE(snapshot.ok());
    auto best = BestPages(*snapshot, scores_, n, filter);
    EXPECT_TRUE(best.ok()) << best.status().ToString();
    return best.ok() ? UrlsOf(*best) : std::vector<std::string>{};
  }

  TempDir dir_;
  std::unique_ptr<PageDb> db_;
  // A rank of the first four pages: page 1 and 3 tie, page 2 is not a number.
  std::vector<double> scores_{0.1, 0.3, std::numeric_limits<double>::quiet_NaN(), 0.3};
};

TEST_F(BestPagesTest, HigherFirstTiesByIdNotANumberLastAndOnlyWhatTheRankCovers) {
  EXPECT_EQ(Best(10, {}), (std::vector<std::string>{"http://a.example/x", "http://b.example/y",
                                                   "http://a.example/", "http://b.example/"}));
  EXPECT_EQ(Best(2, {}), (std::vector<std::string>{"http://a.example/x", "http://b.example/y"}));
  EXPECT_TRUE(Best(0, {}).empty());
}

TEST_F(BestPagesTest, TheFilterTakesWhatItNames) {
  EXPECT_EQ(Best(10, {.pages = PagesShown::kFetchedOk}),
            (std::vector<std::string>{"http://a.example/"}));  // c.example/ came after the rank
  EXPECT_EQ(Best(10, {.pages = PagesShown::kCrawled}),
            (std::vector<std::string>{"http://a.example/", "http://b.example/"}));
  EXPECT_EQ(Best(10, {.pages = PagesShown::kUncrawled}),
            (std::vector<std::string>{"http://a.example/x", "http://b.example/y"}));
  EXPECT_EQ(Best(10, {.host = "B.Example."}),
            (std::vector<std::string>{"http://b.example/y", "http://b.example/"}));
  EXPECT_EQ(Best(10, {.pages = PagesShown::kCrawled, .host = "b.example"}),
            (std::vector<std::string>{"http://b.example/"}));
  EXPECT_TRUE(Best(10, {.host = "nowhere.example"}).empty());
}

TEST_F(BestPagesTest, EachPageComesWithItsScoreAndRecord) {
  auto snapshot = db_->NewSnapshot();
  ASSERT_TRUE(snapshot.ok());
  ASSERT_OK_AND_ASSIGN(std::vector<BestPage> best,
                       BestPages(*snapshot, scores_, 1, {.pages = PagesShown::kCrawled}));
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].score, 0.1);
  EXPECT_EQ(best[0].record.id, 0u);
  EXPECT_EQ(best[0].record.http_status, 200);
}

}  // namespace
}  // namespace crawlrank
