// page_db_reshard (crawlrank/page_db_reshard.h): a cluster of two nodes crawled by a
// seeded random walk, resharded over three nodes and then one, holds the same pages,
// links, schedule, payloads, fetch details, host entries, counters and settings at every
// step. The expectation is the first cluster itself, read page by page by URL.
#include "crawlrank/page_db_reshard.h"

#include <map>
#include <random>
#include <set>

#include "crawlrank/crawl_config.h"
#include "crawlrank/scheduler.h"
#include "page_db/schedule_table.h"
#include "schedule/cluster_membership.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Fast;
using testing::TempDir;

// Everything a cluster holds, by URL and host: what a reshard must keep.
struct Content {
  std::map<std::string, std::string> pages;  // url -> record fields, entry, payload, fetch
  std::set<std::pair<std::string, std::string>> links;
  std::map<std::string, std::string> hosts;  // politeness key -> entry
  std::map<std::string, std::string> counters;
  StoredConfig config;  // the first node's, without its membership
  friend bool operator==(const Content&, const Content&) = default;
};

std::string Describe(const PageRecord& r) {
  return std::to_string(r.first_crawl_ms) + " " + std::to_string(r.last_crawl_ms) + " " +
         std::to_string(r.n_changes) + " " + std::to_string(r.n_crawls) + " " +
         std::to_string(r.content_score) + " " + std::to_string(r.depth) + " " +
         std::to_string(r.discovered_from) + " " + std::to_string(r.link_score) + " " +
         std::to_string(r.content_hash) + " " + std::to_string(r.http_status) + " " +
         std::to_string(r.n_errors);
}

Content Read(const std::vector<std::string>& paths) {
  Content out;
  for (const std::string& path : paths) {
    PageDbOptions reading = Fast();
    reading.read_only = true;
    auto db = PageDb::Open(path, reading);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    if (!db.ok()) return out;
    EXPECT_OK((*db)->Check());
    auto snapshot = (*db)->NewSnapshot();
    const ScheduleTables tables(**db);
    std::map<uint32_t, std::string> extra;  // by id: schedule entry and payload
    std::set<uint32_t> ghosts;
    EXPECT_OK(tables.ForEachEntry(*snapshot, [&](uint32_t id, ScheduleEntry& entry) {
      if (entry.state == EntryState::kElsewhere) ghosts.insert(id);
      std::string value;
      EncodeScheduleEntry(entry, &value);
      extra[id] += "entry " + value;
      return Status::Ok();
    }));
    EXPECT_OK(tables.ForEachPayload(*snapshot, [&](uint32_t id, std::string_view payload) {
      extra[id] += " payload " + std::string(payload);
      return Status::Ok();
    }));
    std::map<uint32_t, std::string> urls;
    EXPECT_OK(snapshot->ForEachPage([&](const PageRecord& page) {
      urls[page.id] = page.url;
      if (ghosts.contains(page.id)) return Status::Ok();
      Result<FetchInfo> fetch = snapshot->FetchOf(page.id);
      const std::string shown = Describe(page) + " | " + extra[page.id] + " | " +
                                (fetch.ok() ? fetch->content_type + " " +
                                                  std::to_string(fetch->wire_bytes)
                                            : "");
      EXPECT_TRUE(out.pages.emplace(page.url, shown).second) << page.url << " twice";
      return Status::Ok();
    }));
    for (EdgeCursor e = snapshot->Edges(); e.Valid(); e.Next()) {
      if (ghosts.contains(e.source())) ADD_FAILURE() << "a ghost with links: " << e.source();
      for (uint32_t t : e.targets()) out.links.emplace(urls[e.source()], urls[t]);
    }
    EXPECT_OK(tables.ForEachHost(*snapshot, [&](std::string_view key, HostEntry& entry) {
      std::string value;
      EncodeHostEntry(entry, &value);
      EXPECT_TRUE(out.hosts.emplace(std::string(key), value).second) << key << " twice";
      return Status::Ok();
    }));
    EXPECT_OK(snapshot->ForEachHostTotals([&](std::string_view host, const CrawlCounters& c) {
      std::string& shown = out.counters[std::string(host)];
      EXPECT_TRUE(shown.empty()) << host << " counted twice";
      shown = std::to_string(c.pages) + " " + std::to_string(c.crawled_pages) + " " +
              std::to_string(c.failed_pages) + " " + std::to_string(c.fetches_total()) + " " +
              std::to_string(c.failures_total()) + " " + std::to_string(c.wire_bytes);
      return Status::Ok();
    }));
    if (&path == &paths.front()) {
      out.config = *snapshot->Config();
      for (std::string_view key : {kClusterNodesKey, kClusterNodeKey, kClusterPartitionKey}) {
        out.config.erase(std::string(key));
      }
    }
  }
  return out;
}

// Two nodes crawled as crawlrank serve would: each page's links written at its owner
// (a link to the other node's page keeps it as a ghost there), and the linked page sent
// on to its owner with its depth and link score.
std::vector<std::string> CrawlTwoNodes(const TempDir& dir, uint32_t seed) {
  const std::string list = "127.0.0.1:7001,127.0.0.1:7002";
  std::vector<std::string> paths = {dir.Sub("a.0"), dir.Sub("a.1")};
  std::vector<std::unique_ptr<PageDb>> dbs;
  std::vector<std::unique_ptr<Scheduler>> nodes;
  auto members = NodeList::Parse(list, "127.0.0.1:7001");
  for (size_t i = 0; i < 2; ++i) {
    const NodeList member = *NodeList::Make(members->nodes(), members->nodes()[i]);
    dbs.push_back(*PageDb::Open(paths[i], Fast()));
    StoredConfig config = MembershipConfig(member, "host");
    config["max_depth"] = "9";
    EXPECT_OK(dbs[i]->WriteConfig(config));
    SchedulerOptions options;
    options.delay_ms = 0;
    options.per_host = 4;
    options.elsewhere = [member](std::string_view url) {
      return OwnerOfUrl(member, HostKeyMode::kHost, url) != member.self_index();
    };
    nodes.push_back(*Scheduler::Open(*dbs[i], options));
  }
  const auto owner = [&](const std::string& url) {
    return OwnerOfUrl(*members, HostKeyMode::kHost, url);
  };
  std::mt19937 rng(seed);
  const auto url_of = [&](uint32_t n) {
    return "http://h" + std::to_string(n % 7) + ".test/p" + std::to_string(n / 7);
  };
  for (uint32_t h = 0; h < 7; ++h) {
    const std::string root = url_of(h);
    EXPECT_OK(nodes[owner(root)]->AddSeeds({QueuedExtra{.url = root, .payload = "seed", .priority = 1}}));
  }
  for (int round = 0; round < 6; ++round) {
    for (size_t i = 0; i < 2; ++i) {
      auto batch = nodes[i]->Next(20);
      EXPECT_TRUE(batch.ok());
      for (const Request& r : *batch) {
        const uint32_t roll = rng() % 10;
        if (roll == 0) continue;  // left leased
        if (roll == 1) {
          EXPECT_OK(nodes[i]->Failed({.url = r.url, .lease = r.lease, .retryable = false,
                                      .http_status = 404, .reason = "gone"}));
          continue;
        }
        CrawledPage page{.url = r.url, .http_status = 200};
        page.fetch = {.content_type = "text/html", .wire_bytes = 100 + rng() % 900};
        for (uint32_t k = 1 + rng() % 5; k > 0; --k) {
          page.links.push_back({.url = url_of(rng() % 70), .score = float(rng() % 4) / 4});
        }
        EXPECT_OK(nodes[i]->Crawled({.page = page, .lease = r.lease}));
        for (const Link& link : page.links) {
          const size_t to = owner(link.url);
          if (to == i) continue;
          WriteBatch sent;  // HandOnUrl's, as the owner writes it
          sent.AddDiscovered(link.url, r.depth + 1, link.score);
          const QueuedExtra extra{.url = link.url, .payload = "from " + r.url};
          EXPECT_OK(nodes[to]->Write(sent, {&extra, 1}, {}));
        }
      }
    }
  }
  // Whatever the walk left: a queued page with a payload (crawled pages drop theirs), one
  // failed for good and one leased.
  const std::string kept = "http://h3.test/kept";
  EXPECT_OK(nodes[owner(kept)]->AddSeeds({QueuedExtra{.url = kept, .payload = "kept"}}));
  // On a host of its own, so that no page the walk left leased holds its slots.
  const std::string failed = "http://h9.test/failed", leased = "http://h9.test/leased";
  Scheduler& h5 = *nodes[owner(failed)];
  EXPECT_OK(h5.AddSeeds({failed, leased}));
  bool failed_out = false, leased_out = false;
  for (int tries = 0; tries < 100 && !(failed_out && leased_out); ++tries) {
    auto batch = h5.Next(20);
    EXPECT_TRUE(batch.ok());
    for (const Request& r : *batch) {  // the rest stay leased too
      if (r.url == failed) {
        EXPECT_OK(h5.Failed({.url = r.url, .lease = r.lease, .retryable = false,
                             .http_status = 404, .reason = "gone"}));
        failed_out = true;
      }
      leased_out = leased_out || r.url == leased;
    }
  }
  EXPECT_TRUE(failed_out && leased_out);
  EXPECT_OK(nodes[1]->SetHostGroup(url_of(1).substr(7, 7), "group"));
  EXPECT_OK(nodes[0]->Remove({.host = "h2.test"}).status());
  return paths;
}

TEST(PageDbReshardTest, TwoNodesToThreeToOneKeepEverything) {
  const uint32_t seed = std::random_device()();
  std::cout << "seed " << seed << "\n";
  TempDir dir;
  const std::vector<std::string> two = CrawlTwoNodes(dir, seed);
  const Content original = Read(two);
  ASSERT_GT(original.pages.size(), 10u);
  ASSERT_GT(original.links.size(), 10u);
  // The walk made every kind of thing a reshard carries.
  const auto pages_with = [&](std::string_view what) {
    return std::count_if(original.pages.begin(), original.pages.end(),
                         [&](const auto& page) { return page.second.find(what) != std::string::npos; });
  };
  EXPECT_GT(pages_with(" payload "), 0);
  EXPECT_GT(pages_with(std::string("entry \x03", 7)), 0);  // failed for good
  EXPECT_GT(pages_with(std::string("entry \x04", 7)), 0);  // removed
  EXPECT_GT(pages_with(std::string("entry \x01", 7)), 0);  // leased
  EXPECT_GT(pages_with("text/html"), 0);
  EXPECT_FALSE(original.hosts.empty());
  EXPECT_EQ(original.counters.size(), 8u);  // h0-h6 and h9
  EXPECT_EQ(original.config.at("max_depth"), "9");
  const auto reshard = [&](const std::vector<std::string>& from, const std::string& nodes,
                           const std::string& prefix) {
    std::vector<std::unique_ptr<PageDb>> open;
    std::vector<const PageDb*> dbs;
    PageDbOptions reading = Fast();
    reading.read_only = true;
    for (const std::string& path : from) {
      open.push_back(*PageDb::Open(path, reading));
      dbs.push_back(open.back().get());
    }
    ReshardReport report;
    EXPECT_OK(ReshardPageDbs(dbs, nodes, dir.Sub(prefix), Fast(), &report));
    uint64_t pages = 0, ghosts = 0;
    for (const ReshardReport::Node& node : report.nodes) {
      pages += node.pages;
      ghosts += node.ghosts;
    }
    EXPECT_EQ(pages, original.pages.size());
    EXPECT_EQ(ghosts > 0, report.nodes.size() > 1);
    std::vector<std::string> paths;
    for (const ReshardReport::Node& node : report.nodes) paths.push_back(node.path);
    return paths;
  };
  const std::string three_list = "127.0.0.1:9001,127.0.0.1:9002,127.0.0.1:10000";
  const std::vector<std::string> three = reshard(two, three_list, "b");
  ASSERT_EQ(three.size(), 3u);
  EXPECT_EQ(Read(three), original);
  // Each node holds its own pages only, and stores its membership.
  auto list = NodeList::Parse(three_list, "127.0.0.1:9001");
  for (size_t i = 0; i < 3; ++i) {
    PageDbOptions reading = Fast();
    reading.read_only = true;
    ASSERT_OK_AND_ASSIGN(auto db, PageDb::Open(three[i], reading));
    ASSERT_OK_AND_ASSIGN(const StoredConfig config, db->ReadConfig());
    EXPECT_EQ(config.at(std::string(kClusterNodeKey)), list->nodes()[i]);
    ASSERT_OK_AND_ASSIGN(Snapshot snapshot, db->NewSnapshot());
    ASSERT_OK_AND_ASSIGN(const auto ghosts, Scheduler::GhostPages(*db, snapshot));
    ASSERT_OK(snapshot.ForEachPage([&](const PageRecord& page) {
      const bool ghost = std::binary_search(ghosts.begin(), ghosts.end(), page.id);
      EXPECT_EQ(OwnerOfUrl(*list, HostKeyMode::kHost, page.url) == i, !ghost) << page.url;
      return Status::Ok();
    }));
  }
  const std::vector<std::string> one = reshard(three, "127.0.0.1:9001", "c");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(Read(one), original);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto alone, PageDb::Open(one[0], reading));
  EXPECT_FALSE(alone->ReadConfig()->contains(std::string(kClusterNodesKey)));
}

TEST(PageDbReshardTest, RefusesWhatIsNotOneClustersEveryNode) {
  TempDir dir;
  const std::vector<std::string> two = CrawlTwoNodes(dir, 7);
  PageDbOptions reading = Fast();
  reading.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto first, PageDb::Open(two[0], reading));
  ReshardReport report;
  const PageDb* only_one[] = {first.get()};
  Status refused = ReshardPageDbs(only_one, "127.0.0.1:1", dir.Sub("x"), Fast(), &report);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("1 of the 2 nodes"), std::string::npos) << refused.ToString();
  const PageDb* twice[] = {first.get(), first.get()};
  refused = ReshardPageDbs(twice, "127.0.0.1:1", dir.Sub("x"), Fast(), &report);
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("given twice"), std::string::npos) << refused.ToString();
  ASSERT_OK_AND_ASSIGN(auto second, PageDb::Open(two[1], reading));
  const PageDb* both[] = {first.get(), second.get()};
  EXPECT_EQ(ReshardPageDbs(both, "bad", dir.Sub("x"), Fast(), &report).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ReshardPageDbs(both, "127.0.0.1:1", dir.Sub("a"), Fast(), &report).code(),
            StatusCode::kAlreadyExists);  // a.0 is the first source
  EXPECT_FALSE(std::filesystem::exists(dir.Sub("x.0")));
}

}  // namespace
}  // namespace crawlrank
