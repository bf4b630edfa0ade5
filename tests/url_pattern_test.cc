// UrlPattern: RE2 syntax searched in URLs, refusals that name pattern and construct, and
// linear time where std::regex backtracked.
#include "crawlrank/url_pattern.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "crawlrank/crawl_config.h"
#include "crawlrank/scheduler_options.h"

namespace crawlrank {
namespace {

UrlPattern MustCompile(std::string_view text) {
  Result<UrlPattern> pattern = UrlPattern::Compile(text);
  EXPECT_TRUE(pattern.ok()) << pattern.status().ToString();
  return std::move(pattern).value();
}

TEST(UrlPatternTest, SearchesAnywhereInTheUrlUnlessAnchored) {
  const UrlPattern pdf = MustCompile("\\.pdf$");
  EXPECT_TRUE(pdf.Search("https://a.example/doc/x.pdf"));
  EXPECT_FALSE(pdf.Search("https://a.example/doc/x.pdf?page=2"));
  const UrlPattern anywhere = MustCompile("/private/");
  EXPECT_TRUE(anywhere.Search("https://a.example/x/private/y"));
  EXPECT_FALSE(anywhere.Search("https://a.example/x/privately"));
  const UrlPattern whole = MustCompile("^https://a\\.example/$");
  EXPECT_TRUE(whole.Search("https://a.example/"));
  EXPECT_FALSE(whole.Search("https://a.example/x"));
  EXPECT_EQ(whole.pattern(), "^https://a\\.example/$");
}

TEST(UrlPatternTest, TakesTheSyntaxUrlPatternsUse) {
  struct Case {
    const char* pattern;
    const char* url;
    bool match;
  };
  const Case cases[] = {
      {"/item/\\d+$", "https://s.example/item/42", true},
      {"/item/\\d+$", "https://s.example/item/4x2", false},
      {"[?&]sessionid=", "https://s.example/a?x=1&sessionid=9", true},
      {"(?i)/LOGIN", "https://s.example/login", true},
      {"/LOGIN", "https://s.example/login", false},
      {"/(en|de)/", "https://s.example/de/page", true},
      {"/(?:en|de)/", "https://s.example/fr/page", false},
      {"/a{2,3}/", "https://s.example/aaa/", true},
      {"/a{2,3}/", "https://s.example/a/", false},
      {"/[^/]+\\.html$", "https://s.example/x/y.html", true},
      {"", "https://s.example/anything", true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MustCompile(c.pattern).Search(c.url), c.match) << c.pattern << " on " << c.url;
  }
}

TEST(UrlPatternTest, RefusesLookAroundAndBackreferencesNamingPatternAndConstruct) {
  struct Case {
    const char* pattern;
    const char* construct;
  };
  const Case cases[] = {
      {"/(?!en/)", "(?!"},        {"/a(?=b)", "(?="},      {"(?<=x)y", "(?<"},
      {"(a)\\1", "\\1"},          {"(unclosed", "missing )"}, {"x**", "bad repetition"},
  };
  for (const Case& c : cases) {
    Result<UrlPattern> pattern = UrlPattern::Compile(c.pattern);
    ASSERT_FALSE(pattern.ok()) << c.pattern;
    EXPECT_EQ(pattern.status().code(), StatusCode::kInvalidArgument);
    const std::string& message = pattern.status().message();
    EXPECT_NE(message.find("URL pattern \"" + std::string(c.pattern) + "\""), std::string::npos)
        << message;
    EXPECT_NE(message.find(c.construct), std::string::npos) << message;
  }
}

TEST(UrlPatternTest, RefusesPatternsPastTheLimits) {
  const std::string long_pattern(UrlPattern::kMaxPatternBytes + 1, 'a');
  Result<UrlPattern> too_long = UrlPattern::Compile(long_pattern);
  ASSERT_FALSE(too_long.ok());
  EXPECT_NE(too_long.status().message().find("longer than 4096 bytes"), std::string::npos);
  // The message shows the start of the pattern, not all of it.
  EXPECT_LT(too_long.status().message().size(), 400u);
  Result<UrlPattern> too_big = UrlPattern::Compile("a{1000}{1000}");
  ASSERT_FALSE(too_big.ok());
  EXPECT_EQ(too_big.status().code(), StatusCode::kInvalidArgument);
}

// The case: with std::regex, "(a+)+b" on 26 a's backtracked for 3.5 s. RE2 answers
// in linear time; 200 searches of a 2,000-character path take far under a second even
// under a sanitizer, where a backtracking engine would not finish one.
TEST(UrlPatternTest, NestedRepetitionRunsInLinearTime) {
  const UrlPattern pattern = MustCompile("(a+)+b");
  const std::string url = "https://s.example/" + std::string(2000, 'a');
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 200; ++i) ASSERT_FALSE(pattern.Search(url));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
  EXPECT_TRUE(pattern.Search(url + "b"));
}

TEST(UrlPatternTest, CopiesShareOneProgramAcrossThreads) {
  const UrlPattern pattern = MustCompile("/p/(\\d+)/");
  std::vector<std::thread> threads;
  std::vector<int> found(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([copy = pattern, &found, t] {
      for (int i = 0; i < 1000; ++i) {
        found[t] += copy.Search("https://s.example/p/" + std::to_string(i) + "/") ? 1 : 0;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int n : found) EXPECT_EQ(n, 1000);
}

// A pattern an older crawlrank stored (std::regex took look-ahead) stops whoever applies the
// stored configuration, naming the key and the pattern; it is never dropped.
TEST(UrlPatternTest, AStoredPatternRe2RefusesStopsTheConfigurationNamingIt) {
  StoredConfig stored = {{"deny", "/ok/\n/(?!en/)"}};
  SchedulerOptions options;
  const Status applied = ApplySchedulerConfig(stored, &options);
  ASSERT_FALSE(applied.ok());
  EXPECT_EQ(applied.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(applied.message().find("configuration key deny: URL pattern \"/(?!en/)\""),
            std::string::npos)
      << applied.message();
  EXPECT_TRUE(options.deny.empty());
  stored["deny"] = "/ok/\n/[a-z]+/";
  ASSERT_TRUE(ApplySchedulerConfig(stored, &options).ok());
  EXPECT_EQ(options.deny, (std::vector<std::string>{"/ok/", "/[a-z]+/"}));
}

}  // namespace
}  // namespace crawlrank
