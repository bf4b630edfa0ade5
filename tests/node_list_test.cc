// Tests of crawlrank/node_list.h: URLFrontier 2.6's owner of a queue. The expected values
// are Java's, worked out from the definition of String.hashCode (h = 31 * h + c over UTF-16
// code units, 32-bit wrap-around) and of Java's '%' (the dividend's sign); the well-known
// ones ("hello", "polygenelubricants", "Aa" and "BB") are quoted in the Java literature.
#include "crawlrank/node_list.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

#include "testutil.h"

namespace crawlrank {
namespace {

TEST(NodeListTest, JavaStringHashIsJavasOverUtf16CodeUnits) {
  EXPECT_EQ(JavaStringHash(""), 0);
  EXPECT_EQ(JavaStringHash("a"), 97);
  EXPECT_EQ(JavaStringHash("ab"), 97 * 31 + 98);
  EXPECT_EQ(JavaStringHash("hello"), 99162322);
  EXPECT_EQ(JavaStringHash("Aa"), 2112);  // a collision Java code often cites
  EXPECT_EQ(JavaStringHash("BB"), 2112);
  // Overflow wraps: this one lands exactly on Integer.MIN_VALUE.
  EXPECT_EQ(JavaStringHash("polygenelubricants"), std::numeric_limits<int32_t>::min());
  // Non-ASCII: é is one code unit (233); U+1F600 is two surrogates, 0xD83D and 0xDE00:
  // 55357 * 31 + 56832.
  EXPECT_EQ(JavaStringHash("\xC3\xA9"), 233);
  EXPECT_EQ(JavaStringHash("\xF0\x9F\x98\x80"), 55357 * 31 + 56832);
  // A byte that is not UTF-8 counts as U+FFFD (65533), as Java decodes it.
  EXPECT_EQ(JavaStringHash("\xFF"), 65533);
  EXPECT_EQ(JavaStringHash("a\xC3"), 97 * 31 + 65533);  // a sequence cut short
}

TEST(NodeListTest, QueueIdentifierEscapesUnderscoresAndNamesTheDefaultCrawl) {
  EXPECT_EQ(QueueIdentifier("", "example.com"), "DEFAULT_example.com");
  EXPECT_EQ(QueueIdentifier("my_crawl", "a_b"), "my%5Fcrawl_a%5Fb");
  EXPECT_EQ(QueueIdentifier("c", ""), "c_");
}

TEST(NodeListTest, TheOwnerIsAbsOfTheHashModuloTheNodeCountAsJavaComputesIt) {
  ASSERT_OK_AND_ASSIGN(const NodeList three, NodeList::Parse("n1:1,n2:2,n3:3", "n1:1"));
  // "DEFAULT_a.test" hashes to -1322666531, a negative hash: Java's % gives
  // -(1322666531 mod 3) = -2 (1322666531 = 3 * 440888843 + 2), and abs makes it 2.
  EXPECT_EQ(JavaStringHash("DEFAULT_a.test"), -1322666531);
  EXPECT_EQ(three.OwnerOf("", "a.test"), 2u);
  // "DEFAULT_example.com": 2127384031 = 3 * 709128010 + 1.
  EXPECT_EQ(JavaStringHash("DEFAULT_example.com"), 2127384031);
  EXPECT_EQ(three.OwnerOf("", "example.com"), 1u);
  EXPECT_FALSE(three.Owns("", "example.com"));
  // "DEFAULT_b.test": -1294037380 = -(3 * 431345793 + 1): owner 1.
  EXPECT_EQ(three.OwnerOf("", "b.test"), 1u);
  // An underscore in the crawl and the key is escaped before hashing:
  // "my%5Fcrawl_a%5Fb" hashes to 1912061099 = 3 * 637353699 + 2.
  EXPECT_EQ(JavaStringHash("my%5Fcrawl_a%5Fb"), 1912061099);
  EXPECT_EQ(three.OwnerOf("my_crawl", "a_b"), 2u);
  // A non-ASCII key: "crawl_bücher.de" hashes to -273481749 = -(3 * 91160583).
  EXPECT_EQ(JavaStringHash("crawl_b\xC3\xBC"
                           "cher.de"),
            -273481749);
  EXPECT_EQ(three.OwnerOf("crawl",
                          "b\xC3\xBC"
                          "cher.de"),
            0u);
  EXPECT_TRUE(three.Owns("crawl",
                         "b\xC3\xBC"
                         "cher.de"));
  // One node owns everything.
  ASSERT_OK_AND_ASSIGN(const NodeList one, NodeList::Parse("solo:9000", "solo:9000"));
  EXPECT_EQ(one.OwnerOf("", "a.test"), 0u);
}

TEST(NodeListTest, TheListIsSortedInJavaStringOrder) {
  // By characters, not by number: ...:10000 sorts before ...:9000.
  ASSERT_OK_AND_ASSIGN(const NodeList nodes,
                       NodeList::Parse("127.0.0.1:9000,127.0.0.1:10000", "127.0.0.1:9000"));
  EXPECT_EQ(nodes.nodes(), (std::vector<std::string>{"127.0.0.1:10000", "127.0.0.1:9000"}));
  EXPECT_EQ(nodes.self_index(), 1u);
  EXPECT_EQ(nodes.self(), "127.0.0.1:9000");
  EXPECT_EQ(nodes.Joined(), "127.0.0.1:10000,127.0.0.1:9000");
  // By UTF-16 code units: U+1F600 (surrogates from 0xD83D) before U+FF5E, where UTF-8
  // bytes (F0 9F... against EF BD...) would put it after.
  EXPECT_TRUE(JavaStringLess("\xF0\x9F\x98\x80", "\xEF\xBD\x9E"));
  EXPECT_FALSE(JavaStringLess("\xEF\xBD\x9E", "\xF0\x9F\x98\x80"));
  EXPECT_TRUE(JavaStringLess("a", "ab"));
  EXPECT_FALSE(JavaStringLess("a", "a"));
  // The same list in any order gives the same numbering.
  ASSERT_OK_AND_ASSIGN(const NodeList again,
                       NodeList::Parse("127.0.0.1:10000,127.0.0.1:9000", "127.0.0.1:10000"));
  EXPECT_EQ(again.nodes(), nodes.nodes());
  EXPECT_EQ(again.OwnerOf("", "a.test"), nodes.OwnerOf("", "a.test"));
}

TEST(NodeListTest, ABadListIsRefusedNamingTheEntry) {
  const auto refused = [](std::string_view list, std::string_view self) {
    return NodeList::Parse(list, self).status();
  };
  EXPECT_EQ(refused("", "a:1").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused("a:1,b:2", "c:3").message(),
            "this node, \"c:3\", is not in the node list a:1,b:2");
  EXPECT_EQ(refused("a:1,b:2,a:1", "a:1").message(), "node \"a:1\" is in the node list twice");
  EXPECT_EQ(refused("a:1,,b:2", "a:1").message(), "node \"\": expected host:port");
  EXPECT_EQ(refused("a", "a").message(), "node \"a\": expected host:port");
  EXPECT_EQ(refused("a:0", "a:0").message(), "node \"a:0\": the port is not a number in 1..65535");
  EXPECT_EQ(refused("a:65536", "a:65536").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused("a:x", "a:x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused(":9000", ":9000").message(), "node \":9000\": no host before the port");
  EXPECT_EQ(refused("::1:9000", "::1:9000").message(),
            "node \"::1:9000\": an IPv6 host goes in brackets, [::1]:9000");
  EXPECT_TRUE(NodeList::Parse("[::1]:9000,[::1]:9001", "[::1]:9001").ok());
}

}  // namespace
}  // namespace crawlrank
