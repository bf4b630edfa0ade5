// Tests of crawlrank/robots.h, named after the RFC 9309 rule (or the documented lenient
// rule) each one checks.
//
// Where the expected values come from: RFC 9309's own examples (§2.2.2's encoding table,
// §2.2.3's special characters, §5.1 and §5.2), worked by hand from the RFC's text; the
// lenient rules as robots.h writes them down. The comparison with protego over a random
// corpus is tests/python/test_robots_oracle.py.
#include "crawlrank/robots.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "crawl/robots_internal.h"

namespace crawlrank {
namespace {

using robots_internal::RobotsKey;
using robots_internal::RobotsLine;

// Returns the paths of `paths` that `rules` allows.
std::vector<std::string> AllowedOf(const RobotsRules& rules,
                                   const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const std::string& p : paths) {
    if (rules.Allowed(p)) out.push_back(p);
  }
  return out;
}

// §5.1, "Simple Example".
constexpr char kRfcSimpleExample[] =
    "User-Agent: *\n"
    "Disallow: *.gif$\n"
    "Disallow: /example/\n"
    "Allow: /publications/\n"
    "\n"
    "User-Agent: foobot\n"
    "Disallow:/\n"
    "Allow:/example/page.html\n"
    "Allow:/example/allowed.gif\n"
    "\n"
    "User-Agent: barbot\n"
    "User-Agent: bazbot\n"
    "Disallow: /example/page.html\n"
    "\n"
    "User-Agent: quxbot\n";

const std::vector<std::string> kExamplePaths = {
    "/",          "/example/page.html", "/example/allowed.gif", "/example/other",
    "/image.gif", "/publications/a",    "/publications/b.gif",  "/image.gif?x"};

TEST(Robots, Rfc5_1SimpleExampleFoobotOnlyItsTwoAllowedPages) {
  EXPECT_EQ(AllowedOf(RobotsRules::Parse(kRfcSimpleExample, "foobot"), kExamplePaths),
            (std::vector<std::string>{"/example/page.html", "/example/allowed.gif"}));
}

TEST(Robots, Rfc5_1SimpleExampleBarbotAndBazbotShareAGroup) {
  const std::vector<std::string> all_but_page = {
      "/",           "/example/allowed.gif", "/example/other",
      "/image.gif",  "/publications/a",      "/publications/b.gif",
      "/image.gif?x"};
  EXPECT_EQ(AllowedOf(RobotsRules::Parse(kRfcSimpleExample, "barbot"), kExamplePaths),
            all_but_page);
  EXPECT_EQ(AllowedOf(RobotsRules::Parse(kRfcSimpleExample, "BazBot"), kExamplePaths),
            all_but_page);
}

TEST(Robots, Rfc5_1SimpleExampleQuxbotGroupWithoutRulesAllowsAll) {
  EXPECT_EQ(AllowedOf(RobotsRules::Parse(kRfcSimpleExample, "quxbot"), kExamplePaths),
            kExamplePaths);
}

TEST(Robots, Rfc5_1SimpleExampleOthersGetTheStarGroup) {
  // "*.gif$" disallows gif files (not "/image.gif?x": it does not end in .gif);
  // "/publications/" is longer than "*.gif$" (14 > 6 octets), so its gif is allowed.
  EXPECT_EQ(
      AllowedOf(RobotsRules::Parse(kRfcSimpleExample, "otherbot"), kExamplePaths),
      (std::vector<std::string>{"/", "/publications/a", "/publications/b.gif", "/image.gif?x"}));
}

TEST(Robots, Rfc5_2LongestMatch) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-Agent: foobot\n"
      "Allow: /example/page/\n"
      "Disallow: /example/page/disallowed.gif\n",
      "foobot");
  EXPECT_TRUE(rules.Allowed("/example/page/"));
  EXPECT_TRUE(rules.Allowed("/example/page/allowed.gif"));
  EXPECT_FALSE(rules.Allowed("/example/page/disallowed.gif"));
  EXPECT_FALSE(rules.Allowed("/example/page/disallowed.gif?size=2"));
}

// What a dashboard shows for a URL: the rule that decided it, among the rules in the
// order they are tried.
TEST(Robots, Rfc5_2DecidingRuleIsTheLongestMatch) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-Agent: foobot\n"
      "Allow: /example/page/\n"
      "Disallow: /example/page/disallowed.gif\n",
      "foobot");
  ASSERT_EQ(rules.rules().size(), 2u);
  EXPECT_EQ(rules.rules()[0].pattern, "/example/page/disallowed.gif");  // longest first
  const RobotsRules::Rule* rule = rules.Deciding("/example/page/disallowed.gif?size=2");
  ASSERT_NE(rule, nullptr);
  EXPECT_FALSE(rule->allow);
  EXPECT_EQ(rule->pattern, "/example/page/disallowed.gif");
  rule = rules.Deciding("/example/page/x");
  ASSERT_NE(rule, nullptr);
  EXPECT_TRUE(rule->allow);
  EXPECT_EQ(rule->pattern, "/example/page/");
  EXPECT_EQ(rules.Deciding("/other"), nullptr);       // no rule: allowed
  EXPECT_EQ(rules.Deciding("/robots.txt"), nullptr);  // always allowed
}

TEST(Robots, Rfc2_2_2EqualLengthAllowWins) {
  const RobotsRules rules = RobotsRules::Parse(
      "user-agent: *\n"
      "disallow: /page\n"
      "allow: /page\n"
      "disallow: /a*c\n"
      "allow: /ab*\n",
      "crawlrank");
  EXPECT_TRUE(rules.Allowed("/page"));
  EXPECT_TRUE(rules.Allowed("/abc"));  // both 4 octets
}

TEST(Robots, Rfc2_2_2NoMatchingRuleAllows) {
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: /private\n", "crawlrank");
  EXPECT_TRUE(rules.Allowed("/public"));
  EXPECT_TRUE(rules.Allowed("/"));
  EXPECT_FALSE(rules.Allowed("/private/x"));
  EXPECT_FALSE(rules.Allowed("/privateer"));  // a prefix match, not a segment match
}

TEST(Robots, Rfc2_2_2PathsAreCaseSensitive) {
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: /Fish\n", "crawlrank");
  EXPECT_FALSE(rules.Allowed("/Fish.html"));
  EXPECT_TRUE(rules.Allowed("/fish.html"));
}

TEST(Robots, Rfc2_2_2RobotsTxtIsImplicitlyAllowed) {
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: /\n", "crawlrank");
  EXPECT_TRUE(rules.Allowed("/robots.txt"));
  EXPECT_FALSE(rules.Allowed("/robots.txt?x=1"));
  EXPECT_FALSE(rules.Allowed("/index.html"));
  EXPECT_TRUE(RobotsRules::DisallowAll().Allowed("/robots.txt"));
}

// §2.2.2's table: path in robots.txt, encoded, path to match.
TEST(Robots, Rfc2_2_2PercentEncodingTable) {
  const auto disallows = [](const std::string& pattern, const std::string& path) {
    return !RobotsRules::Parse("User-agent: *\nDisallow: " + pattern + "\n", "x").Allowed(path);
  };
  EXPECT_TRUE(disallows("/foo/bar?baz=quz", "/foo/bar?baz=quz"));
  EXPECT_TRUE(disallows("/foo/bar/\xE3\x83\x84", "/foo/bar/%E3%83%84"));
  EXPECT_TRUE(disallows("/foo/bar/\xE3\x83\x84", "/foo/bar/\xE3\x83\x84"));
  EXPECT_TRUE(disallows("/foo/bar/%E3%83%84", "/foo/bar/%E3%83%84"));
  EXPECT_TRUE(disallows("/foo/bar/%e3%83%84", "/foo/bar/%E3%83%84"));  // hex case
  EXPECT_TRUE(disallows("/foo/bar/%62%61%7A", "/foo/bar/baz"));
  EXPECT_TRUE(disallows("/foo/bar/baz", "/foo/bar/%62%61%7A"));
}

TEST(Robots, Rfc2_2_2ReservedEscapesStayEncoded) {
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: /a%2Fb\n", "x");
  EXPECT_FALSE(rules.Allowed("/a%2fb"));
  EXPECT_TRUE(rules.Allowed("/a/b"));
  const RobotsRules bang = RobotsRules::Parse("User-agent: *\nDisallow: /a!\n", "x");
  EXPECT_FALSE(bang.Allowed("/a!"));
  EXPECT_TRUE(bang.Allowed("/a%21"));
}

TEST(Robots, Rfc2_2_2OctetsThatMayNotAppearRawAreEncoded) {
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: /a b|c\n", "x");
  EXPECT_FALSE(rules.Allowed("/a%20b%7Cc"));
  EXPECT_FALSE(rules.Allowed("/a b|c"));
  // A '%' without two hex digits is a literal '%'.
  const RobotsRules percent = RobotsRules::Parse("User-agent: *\nDisallow: /100%\n", "x");
  EXPECT_FALSE(percent.Allowed("/100%25"));
  EXPECT_FALSE(percent.Allowed("/100%"));
}

// §2.2.3: "*" matches any sequence, "$" the end of the path.
TEST(Robots, Rfc2_2_3SpecialCharacters) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: *\n"
      "Disallow: /this/path/exactly$\n"
      "Disallow: /foo/*/bar\n"
      "Disallow: /*.php$\n",
      "x");
  EXPECT_FALSE(rules.Allowed("/this/path/exactly"));
  EXPECT_TRUE(rules.Allowed("/this/path/exactly/"));
  EXPECT_TRUE(rules.Allowed("/this/path/exactly?q"));
  EXPECT_FALSE(rules.Allowed("/foo/x/bar"));
  EXPECT_FALSE(rules.Allowed("/foo/x/y/bar/z"));
  EXPECT_TRUE(rules.Allowed("/foo/bar"));  // "/*/" needs two slashes
  EXPECT_FALSE(rules.Allowed("/index.php"));
  EXPECT_FALSE(rules.Allowed("/a.php.php"));
  EXPECT_TRUE(rules.Allowed("/index.php?x=1"));
}

TEST(Robots, Rfc2_2_3DollarOnlyAtTheEndAnchors) {
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: /a$b\n", "x");
  EXPECT_FALSE(rules.Allowed("/a$bc"));
  EXPECT_TRUE(rules.Allowed("/a"));
}

TEST(Robots, Rfc2_2_3ManyStarsStayFast) {
  // Greedy matching of the pieces between stars: no backtracking blow-up.
  std::string pattern = "/";
  for (int i = 0; i < 2000; ++i) pattern += "a*";
  pattern += "b$";
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: " + pattern + "\n", "x");
  const std::string path = "/" + std::string(20000, 'a');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(rules.Allowed(path));
  EXPECT_FALSE(rules.Allowed(path + "b"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

TEST(Robots, Rfc2_2_1ProductTokenCaseInsensitive) {
  const RobotsRules rules =
      RobotsRules::Parse("User-agent: CrawlRank\nDisallow: /x\n", "crawlrank");
  EXPECT_FALSE(rules.Allowed("/x"));
}

TEST(Robots, Rfc2_2_1ProductTokenOfTheLineIsItsLeadingName) {
  // "CrawlRank/2.0" names the product "CrawlRank"; the caller's version is ignored too.
  const std::string body = "User-agent: CrawlRank/2.0 (+https://example.com)\nDisallow: /x\n";
  EXPECT_FALSE(RobotsRules::Parse(body, "crawlrank").Allowed("/x"));
  EXPECT_FALSE(RobotsRules::Parse(body, "crawlrank/1.1").Allowed("/x"));
}

TEST(Robots, Rfc2_2_1NoSubstringOrPrefixMatching) {
  const std::string body =
      "User-agent: crawl\nDisallow: /a\n\n"
      "User-agent: crawlrank-news\nDisallow: /b\n\n"
      "User-agent: *\nDisallow: /c\n";
  const RobotsRules rules = RobotsRules::Parse(body, "crawlrank");
  EXPECT_TRUE(rules.Allowed("/a"));
  EXPECT_TRUE(rules.Allowed("/b"));
  EXPECT_FALSE(rules.Allowed("/c"));
}

TEST(Robots, Rfc2_2_1GroupsOfTheSameAgentAreMerged) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: crawlrank\nDisallow: /a\n\n"
      "User-agent: *\nDisallow: /b\n\n"
      "User-agent: CRAWLRANK\nDisallow: /c\nCrawl-delay: 2\n",
      "crawlrank");
  EXPECT_FALSE(rules.Allowed("/a"));
  EXPECT_TRUE(rules.Allowed("/b"));
  EXPECT_FALSE(rules.Allowed("/c"));
  EXPECT_EQ(rules.crawl_delay_ms(), 2000);
}

TEST(Robots, Rfc2_2_1StarGroupsAreMergedToo) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: *\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: *\n"
      "Disallow: /c\n",
      "crawlrank");
  EXPECT_FALSE(rules.Allowed("/a"));
  EXPECT_TRUE(rules.Allowed("/b"));
  EXPECT_FALSE(rules.Allowed("/c"));
}

TEST(Robots, Rfc2_2_1NoGroupAtAllAllowsAll) {
  EXPECT_TRUE(RobotsRules::Parse("User-agent: other\nDisallow: /\n", "crawlrank").Allowed("/x"));
  EXPECT_TRUE(RobotsRules::Parse("", "crawlrank").Allowed("/x"));
  EXPECT_TRUE(RobotsRules::Parse("Disallow: /\n", "crawlrank").Allowed("/x"));
}

TEST(Robots, Rfc2_1LastGroupWithoutRulesAllowsAll) {
  // A group naming the crawler takes precedence over "*" even with no rules.
  const RobotsRules rules =
      RobotsRules::Parse("User-agent: *\nDisallow: /\n\nUser-agent: crawlrank\n", "crawlrank");
  EXPECT_TRUE(rules.Allowed("/x"));
}

TEST(Robots, Rfc2_1UserAgentLinesInARowShareTheGroup) {
  const std::string body =
      "User-agent: a\n# comment\n\nUser-agent: crawlrank\nDisallow: /x\nUser-agent: b\n"
      "Disallow: /y\n";
  const RobotsRules rules = RobotsRules::Parse(body, "crawlrank");
  EXPECT_FALSE(rules.Allowed("/x"));
  EXPECT_TRUE(rules.Allowed("/y"));
  EXPECT_FALSE(RobotsRules::Parse(body, "a").Allowed("/x"));
  EXPECT_TRUE(RobotsRules::Parse(body, "b").Allowed("/x"));
}

TEST(Robots, Rfc2_2_4OtherRecordsDoNotEndAGroup) {
  const RobotsRules rules = RobotsRules::Parse(
      "User-agent: a\nSitemap: https://example.com/s.xml\nCrawl-delay: 1\nNoindex: /q\n"
      "User-agent: crawlrank\nDisallow: /x\nSitemap: https://example.com/t.xml\nDisallow: /y\n",
      "a");
  EXPECT_FALSE(rules.Allowed("/x"));
  EXPECT_FALSE(rules.Allowed("/y"));
  EXPECT_EQ(rules.crawl_delay_ms(), 1000);
}

TEST(Robots, Rfc2_3_1AllowAllAndDisallowAll) {
  EXPECT_TRUE(RobotsRules::AllowAll().Allowed("/anything"));
  EXPECT_FALSE(RobotsRules::DisallowAll().Allowed("/anything"));
  EXPECT_FALSE(RobotsRules::DisallowAll().Allowed(""));
  EXPECT_EQ(RobotsRules::AllowAll(), RobotsRules());
}

TEST(Robots, Rfc2_5RulesPastTheLimitAreIgnored) {
  std::string body = "User-agent: *\nDisallow: /before\n";
  body += std::string(kRobotsMaxBytes - body.size() - 20, '\n');
  body += "Disallow: /within\n";                   // ends inside the limit
  body += "Allow: /aaaaaaaaaaaaaaaaaaaaaaaaaa\n";  // cut by the limit: dropped whole
  body += "Disallow: /after\n";
  ASSERT_LT(body.find("/within\n") + 8, kRobotsMaxBytes);
  const RobotsRules rules = RobotsRules::Parse(body, "crawlrank");
  EXPECT_FALSE(rules.Allowed("/before"));
  EXPECT_FALSE(rules.Allowed("/within"));
  EXPECT_TRUE(rules.Allowed("/after"));
  EXPECT_EQ(rules.rule_count(), 2u);
}

// --- Lenient rules (robots.h), each as written there ---

TEST(RobotsLenient, ByteOrderMarkIsSkipped) {
  const RobotsRules rules =
      RobotsRules::Parse("\xEF\xBB\xBFUser-agent: *\nDisallow: /x\n", "crawlrank");
  EXPECT_FALSE(rules.Allowed("/x"));
}

TEST(RobotsLenient, LinesEndAtLfCrOrCrlf) {
  for (const char* eol : {"\n", "\r", "\r\n"}) {
    SCOPED_TRACE(::testing::PrintToString(std::string(eol)));
    const std::string e = eol;
    const RobotsRules rules = RobotsRules::Parse(
        "User-agent: *" + e + "Disallow: /x" + e + "Allow: /x/y" + e, "crawlrank");
    EXPECT_FALSE(rules.Allowed("/x"));
    EXPECT_TRUE(rules.Allowed("/x/y"));
    EXPECT_EQ(rules.rule_count(), 2u);
  }
  // Mixed in one file, and no final line end.
  EXPECT_FALSE(
      RobotsRules::Parse("User-agent: *\r\nDisallow: /a\rDisallow: /b", "x").Allowed("/b"));
}

TEST(RobotsLenient, CommentsAnywhere) {
  const RobotsRules rules = RobotsRules::Parse(
      "# header\nUser-agent: * # all\nDisallow: /x#y\n  # indented comment\n", "crawlrank");
  EXPECT_FALSE(rules.Allowed("/x"));
  EXPECT_FALSE(rules.Allowed("/xz"));  // the pattern is "/x"
}

TEST(RobotsLenient, KeysCaseInsensitiveAndWhitespaceIgnored) {
  const RobotsRules rules =
      RobotsRules::Parse("  USER-AGENT\t:\t*  \n\tdisALLOW :  /x  \n", "crawlrank");
  EXPECT_FALSE(rules.Allowed("/x"));
}

TEST(RobotsLenient, MissingColonAfterAKnownKey) {
  const std::string body = "User-agent *\nDisallow /x\nuser agent crawlrank\nDisallow\t/y\n";
  const RobotsRules star = RobotsRules::Parse(body, "z");
  EXPECT_FALSE(star.Allowed("/x"));
  EXPECT_TRUE(star.Allowed("/y"));
  const RobotsRules named = RobotsRules::Parse(body, "crawlrank");
  EXPECT_TRUE(named.Allowed("/x"));
  EXPECT_FALSE(named.Allowed("/y"));
  // An unknown word without a colon is no line at all.
  EXPECT_TRUE(RobotsRules::Parse("User-agent: *\nBlock /x\n", "z").Allowed("/x"));
}

TEST(RobotsLenient, TyposOfKeys) {
  const RobotsRules rules = RobotsRules::Parse(
      "useragent: *\ndissallow: /a\ndissalow: /b\ndisalow: /c\ndiasllow: /d\ndisallaw: /e\n"
      "disalloww: /f\ncrawl delay: 3\nsite-map: https://e.com/s\n",
      "crawlrank");
  for (const char* p : {"/a", "/b", "/c", "/d", "/e"}) EXPECT_FALSE(rules.Allowed(p)) << p;
  EXPECT_TRUE(rules.Allowed("/f"));
  EXPECT_EQ(rules.crawl_delay_ms(), 3000);
  EXPECT_EQ(rules.sitemaps(), std::vector<std::string>{"https://e.com/s"});
}

TEST(RobotsLenient, RulesBeforeAnyGroupAreIgnored) {
  const RobotsRules rules =
      RobotsRules::Parse("Disallow: /x\nCrawl-delay: 5\nUser-agent: *\nDisallow: /y\n", "z");
  EXPECT_TRUE(rules.Allowed("/x"));
  EXPECT_FALSE(rules.Allowed("/y"));
  EXPECT_EQ(rules.crawl_delay_ms(), std::nullopt);
}

TEST(RobotsLenient, EmptyDisallowAllowsAllButEndsTheAgentList) {
  EXPECT_TRUE(RobotsRules::Parse("User-agent: *\nDisallow:\n", "z").Allowed("/x"));
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nDisallow:\n", "z").rule_count(), 0u);
  // "Disallow:" ended group a, so "/y" belongs to b alone.
  const std::string body = "User-agent: a\nDisallow:\nUser-agent: b\nDisallow: /y\n";
  EXPECT_TRUE(RobotsRules::Parse(body, "a").Allowed("/y"));
  EXPECT_FALSE(RobotsRules::Parse(body, "b").Allowed("/y"));
}

TEST(RobotsLenient, PatternWithoutLeadingSlashGetsOne) {
  const RobotsRules rules =
      RobotsRules::Parse("User-agent: *\nDisallow: *.gif\nDisallow: x\n", "z");
  EXPECT_FALSE(rules.Allowed("/a/b.gif"));
  EXPECT_FALSE(rules.Allowed("/xy"));
  EXPECT_TRUE(rules.Allowed("/ax"));
}

TEST(RobotsLenient, UserAgentWithoutProductTokenNamesNoCrawler) {
  // "*bot" is neither "*" nor a product token.
  const RobotsRules rules =
      RobotsRules::Parse("User-agent: *bot\nDisallow: /a\nUser-agent: * x\nDisallow: /b\n", "bot");
  EXPECT_TRUE(rules.Allowed("/a"));
  EXPECT_FALSE(rules.Allowed("/b"));
}

TEST(RobotsLenient, PathWithoutLeadingSlash) {
  const RobotsRules rules = RobotsRules::Parse("User-agent: *\nDisallow: /$\nDisallow: /?\n", "z");
  EXPECT_FALSE(rules.Allowed(""));
  EXPECT_FALSE(rules.Allowed("?q=1"));
  EXPECT_TRUE(rules.Allowed("/a"));
}

TEST(RobotsCrawlDelay, DecimalSecondsLargestWins) {
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: 0.5\n", "z").crawl_delay_ms(), 500);
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: .25\n", "z").crawl_delay_ms(), 250);
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: 1.23456\n", "z").crawl_delay_ms(),
            1234);
  EXPECT_EQ(
      RobotsRules::Parse("User-agent: *\nCrawl-delay: 3\nCrawl-delay: 10\nCrawl-delay: 2\n", "z")
          .crawl_delay_ms(),
      10000);
  for (const char* bad : {"-1", "1e3", "soon", ".", "1.2.3", "", "1 s"}) {
    EXPECT_EQ(RobotsRules::Parse(std::string("User-agent: *\nCrawl-delay: ") + bad + "\n", "z")
                  .crawl_delay_ms(),
              std::nullopt)
        << bad;
  }
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: 99999999999999999999999\n", "z")
                .crawl_delay_ms(),
            robots_internal::kMaxCrawlDelayMs);
}

TEST(RobotsCrawlDelay, OnlyTheChosenGroups) {
  const std::string body = "User-agent: *\nCrawl-delay: 7\nUser-agent: crawlrank\nDisallow: /\n";
  // Both agent lines are in one group (no rule between them): the delay is the group's.
  EXPECT_EQ(RobotsRules::Parse(body, "crawlrank").crawl_delay_ms(), 7000);
  EXPECT_EQ(RobotsRules::Parse("User-agent: *\nCrawl-delay: 7\nDisallow: /a\n"
                               "User-agent: crawlrank\nDisallow: /\n",
                               "crawlrank")
                .crawl_delay_ms(),
            std::nullopt);
}

TEST(RobotsSitemaps, AnyGroupOrNoneInOrder) {
  const RobotsRules rules = RobotsRules::Parse(
      "Sitemap: https://e.com/a.xml\nUser-agent: other\nSitemap: https://e.com/b.xml # c\n"
      "Disallow: /\nSitemap:\n",
      "crawlrank");
  EXPECT_EQ(rules.sitemaps(),
            (std::vector<std::string>{"https://e.com/a.xml", "https://e.com/b.xml"}));
}

// --- The parser alone: events, no policy ---

class Recorder : public robots_internal::RobotsHandler {
 public:
  void OnLine(const RobotsLine& line) override {
    lines.push_back(std::to_string(line.line_number) + " " + std::to_string(int(line.key)) + " [" +
                    std::string(line.name) + "] [" + std::string(line.value) + "]" +
                    (line.colon_missing ? " nocolon" : ""));
  }
  std::vector<std::string> lines;
};

TEST(RobotsParser, EmitsOneEventPerKeyValueLine) {
  Recorder r;
  robots_internal::ParseRobotsTxt(
      "User-Agent: x\r\n\r\n# c\nDisallow /a b \rfoo: bar:baz\njunk\n:v\n", r);
  EXPECT_EQ(r.lines,
            (std::vector<std::string>{"1 0 [User-Agent] [x]", "4 2 [Disallow] [/a b] nocolon",
                                      "5 5 [foo] [bar:baz]", "7 5 [] [v]"}));
}

// --- Matching building blocks ---

TEST(RobotsMatch, GreedyPiecesAgreeWithHandWorkedCases) {
  using robots_internal::RobotsPatternMatches;
  EXPECT_TRUE(RobotsPatternMatches("/a*b*c", "/axxbyyczz"));
  EXPECT_FALSE(RobotsPatternMatches("/a*b*c", "/axxcyyb"));
  EXPECT_TRUE(RobotsPatternMatches("/*ab$", "/abab"));
  EXPECT_FALSE(RobotsPatternMatches("/*ab$", "/aba"));
  EXPECT_TRUE(RobotsPatternMatches("/*a*a$", "/aa"));
  EXPECT_FALSE(RobotsPatternMatches("/*a*a$", "/a"));  // the two a's may not overlap
  EXPECT_TRUE(RobotsPatternMatches("/**$", "/"));
  EXPECT_TRUE(RobotsPatternMatches("/$", "/"));
  EXPECT_FALSE(RobotsPatternMatches("/$", "/a"));
}

TEST(RobotsMatch, NormalisationIsIdempotent) {
  using robots_internal::NormalizeRobotsPath;
  for (const char* s : {"", "a", "/%41%2f%zz%", "/\xE3\x83\x84 |", "/%25%2525", "?q=%7e"}) {
    const std::string once = NormalizeRobotsPath(s);
    EXPECT_EQ(NormalizeRobotsPath(once), once) << s;
    EXPECT_TRUE(robots_internal::IsNormalRobotsPath(once)) << s;
  }
  EXPECT_EQ(NormalizeRobotsPath("/%41%2f%zz%"), "/A%2F%25zz%25");
  EXPECT_FALSE(robots_internal::IsNormalRobotsPath("/%2f"));
  EXPECT_FALSE(robots_internal::IsNormalRobotsPath("/%41"));
}

// --- The cache form ---

TEST(RobotsSerialize, RoundTrip) {
  for (const RobotsRules& rules :
       {RobotsRules::AllowAll(), RobotsRules::DisallowAll(),
        RobotsRules::Parse(kRfcSimpleExample, "foobot"),
        RobotsRules::Parse("Sitemap: https://e.com/s\nUser-agent: *\nCrawl-delay: 1.5\n"
                           "Disallow: /\xE3\x83\x84*$\nAllow: /a\nAllow: /a\n",
                           "z")}) {
    const Result<RobotsRules> back = RobotsRules::Deserialize(rules.Serialize());
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, rules);
  }
}

TEST(RobotsSerialize, DamageIsAnError) {
  const std::string good =
      RobotsRules::Parse("User-agent: *\nCrawl-delay: 2\nDisallow: /a\nAllow: /bb\nSitemap: s\n",
                         "z")
          .Serialize();
  ASSERT_TRUE(RobotsRules::Deserialize(good).ok());
  EXPECT_EQ(RobotsRules::Deserialize("").status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(RobotsRules::Deserialize("XXrb\x01").status().code(), StatusCode::kInvalidArgument);
  std::string version = good;
  version[4] = 2;
  EXPECT_EQ(RobotsRules::Deserialize(version).status().code(), StatusCode::kInvalidArgument);
  for (size_t n = 5; n < good.size(); ++n) {
    EXPECT_EQ(RobotsRules::Deserialize(good.substr(0, n)).status().code(), StatusCode::kDataLoss)
        << n;
  }
  EXPECT_EQ(RobotsRules::Deserialize(good + "x").status().code(), StatusCode::kDataLoss);
  // Layout: magic(4) version flags delay(2: 2000 ms) count; rule 0 = allow "/bb".
  std::string swapped = good;
  ASSERT_EQ(swapped.substr(9, 5), std::string("\x01\x03/bb", 5));
  swapped[9] = 0;  // disallow "/bb" then disallow "/a": still in order
  EXPECT_TRUE(RobotsRules::Deserialize(swapped).ok());
  std::string unnormal = good;
  unnormal[12] = ' ';  // "/ b" is not normalised
  const Status s = RobotsRules::Deserialize(unnormal).status();
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("rule 0"), std::string::npos) << s.message();
}

TEST(RobotsPathOf, UrlToRequestPath) {
  EXPECT_EQ(RobotsPath("https://example.com"), "/");
  EXPECT_EQ(RobotsPath("https://example.com/a/b?q=1#frag"), "/a/b?q=1");
  EXPECT_EQ(RobotsPath("http://example.com:8080?q"), "/?q");
  EXPECT_EQ(RobotsPath("http://user@example.com/x%20y"), "/x%20y");
  EXPECT_EQ(RobotsPath("/already/a/path#f"), "/already/a/path");
  EXPECT_EQ(RobotsPath(""), "/");
}

}  // namespace
}  // namespace crawlrank
