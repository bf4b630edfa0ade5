#include "schedule/cluster_membership.h"

#include <gtest/gtest.h>

#include "crawlrank/crawl_config.h"

namespace crawlrank {
namespace {

NodeList Nodes(std::string_view list, std::string_view self) {
  Result<NodeList> nodes = NodeList::Parse(list, self);
  EXPECT_TRUE(nodes.ok()) << nodes.status().ToString();
  return *std::move(nodes);
}

TEST(ClusterMembershipTest, AloneStaysAloneAndANewMemberIsStoredInJavaOrder) {
  Result<std::optional<NodeList>> alone = ResolveMembership({}, std::nullopt, "host", 5, "a.db");
  ASSERT_TRUE(alone.ok());
  EXPECT_FALSE(alone->has_value());

  const NodeList given = Nodes("h:9000,h:10000", "h:9000");
  Result<std::optional<NodeList>> fresh = ResolveMembership({}, given, "host", 0, "a.db");
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  ASSERT_TRUE(fresh->has_value());
  // "h:10000" < "h:9000" as Java compares strings ('1' < '9').
  EXPECT_EQ(MembershipConfig(**fresh, "host"),
            (StoredConfig{{"nodes", "h:10000,h:9000"},
                          {"node", "h:9000"},
                          {"partition", "urlfrontier-2.6 host"}}));
}

TEST(ClusterMembershipTest, ARestartWithTheStoredListOrNoneKeepsIt) {
  const StoredConfig stored = MembershipConfig(Nodes("a:1,b:2,c:3", "b:2"), "host");
  for (const std::optional<NodeList>& given :
       {std::optional<NodeList>(), std::optional<NodeList>(Nodes("c:3,b:2,a:1", "b:2"))}) {
    Result<std::optional<NodeList>> kept = ResolveMembership(stored, given, "host", 90, "a.db");
    ASSERT_TRUE(kept.ok()) << kept.status().ToString();
    ASSERT_TRUE(kept->has_value());
    EXPECT_EQ((*kept)->Joined(), "a:1,b:2,c:3");
    EXPECT_EQ((*kept)->self(), "b:2");
  }
}

TEST(ClusterMembershipTest, AnotherListEntryOrHostKeyIsRefusedNamingBoth) {
  const StoredConfig stored = MembershipConfig(Nodes("a:1,b:2,c:3", "b:2"), "host");
  Result<std::optional<NodeList>> other =
      ResolveMembership(stored, Nodes("a:1,b:2", "b:2"), "host", 0, "n.db");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(other.status().message().find("\"n.db\" is node b:2 of a:1,b:2,c:3"),
            std::string::npos) << other.status().message();
  EXPECT_NE(other.status().message().find("not node b:2 of a:1,b:2"), std::string::npos)
      << other.status().message();

  Result<std::optional<NodeList>> entry =
      ResolveMembership(stored, Nodes("a:1,b:2,c:3", "c:3"), "host", 0, "n.db");
  ASSERT_FALSE(entry.ok());
  EXPECT_NE(entry.status().message().find("not node c:3 of a:1,b:2,c:3"), std::string::npos)
      << entry.status().message();

  Result<std::optional<NodeList>> domain = ResolveMembership(stored, std::nullopt, "domain", 0, "n.db");
  ASSERT_FALSE(domain.ok());
  EXPECT_NE(domain.status().message().find("urlfrontier-2.6 domain"), std::string::npos)
      << domain.status().message();
}

TEST(ClusterMembershipTest, ADbCrawledAloneJoinsNoClusterOfTwoOrMore) {
  Result<std::optional<NodeList>> joined =
      ResolveMembership({}, Nodes("a:1,b:2", "a:1"), "host", 12, "solo.db");
  ASSERT_FALSE(joined.ok());
  EXPECT_EQ(joined.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(joined.status().message().find("holds 12 pages"), std::string::npos)
      << joined.status().message();
  // A cluster of one owns every host: nothing moves.
  EXPECT_TRUE(ResolveMembership({}, Nodes("a:1", "a:1"), "host", 12, "solo.db").ok());
}

TEST(ClusterMembershipTest, AStoredListThatDoesNotParseIsInvalidArgument) {
  const StoredConfig broken{{"nodes", "a:1,b:2"}, {"node", "z:9"}, {"partition", "x"}};
  Result<std::optional<NodeList>> read = ResolveMembership(broken, std::nullopt, "host", 0, "n.db");
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument);
}

TEST(ClusterMembershipTest, FrontEndsThatCrawlAloneRefuseANodesDb) {
  EXPECT_TRUE(RefuseClusterNode({{"delay_ms", "0"}}, "solo.db").ok());
  const Status refused =
      RefuseClusterNode(MembershipConfig(Nodes("a:1,b:2", "b:2"), "host"), "n.db");
  EXPECT_EQ(refused.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.message().find("\"n.db\" is node b:2 of the cluster a:1,b:2"),
            std::string::npos) << refused.message();
}

}  // namespace
}  // namespace crawlrank

namespace crawlrank {
namespace {

TEST(ClusterMembershipTest, PageSharesAreEqualWithTheRemainderToTheFirstNodes) {
  const auto shares = [](uint64_t max_pages, size_t count) {
    std::vector<std::string> entries;
    for (size_t i = 0; i < count; ++i) entries.push_back("n:" + std::to_string(i + 1));
    std::vector<uint64_t> out;
    for (const std::string& self : entries) {
      Result<NodeList> nodes = NodeList::Make(entries, self);
      EXPECT_TRUE(nodes.ok());
      out.push_back(PageShare(max_pages, *nodes));
    }
    return out;
  };
  EXPECT_EQ(shares(10, 3), (std::vector<uint64_t>{4, 3, 3}));
  EXPECT_EQ(shares(9, 3), (std::vector<uint64_t>{3, 3, 3}));
  EXPECT_EQ(shares(2, 3), (std::vector<uint64_t>{1, 1, 0}));  // the last hands out nothing
  EXPECT_EQ(shares(0, 3), (std::vector<uint64_t>{0, 0, 0}));  // no limit
  EXPECT_EQ(shares(7, 1), (std::vector<uint64_t>{7}));
}

}  // namespace
}  // namespace crawlrank
