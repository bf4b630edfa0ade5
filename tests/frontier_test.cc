// The crawler drives any Frontier (crawlrank/frontier.h): here one kept in memory, with no
// PageDB at all, against an HTTP server on 127.0.0.1 that this test starts. It checks what
// the seam promises: every request handed out comes back once (crawled or failed), links
// reach the frontier, the crawler keeps its robots.txt state through the frontier, and a
// revisit's conditional GET and its 304 use what the Request carries.
#include "crawlrank/frontier.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "crawlrank/crawler.h"

namespace crawlrank {
namespace {

// A frontier in memory: URLs in order of discovery, one lease each, nothing polite.
class MemoryFrontier final : public Frontier {
 public:
  Status AddSeeds(const std::vector<std::string>& urls) override {
    std::lock_guard lock(mu_);
    for (const std::string& url : urls) Add(url);
    return Status::Ok();
  }
  Result<std::vector<Request>> Next(size_t n) override {
    std::lock_guard lock(mu_);
    std::vector<Request> out;
    while (out.size() < n && !queue_.empty()) {
      Request r = std::move(queue_.front());
      queue_.pop_front();
      r.lease = next_lease_++;
      leased_[r.lease] = r.url;
      out.push_back(std::move(r));
    }
    return out;
  }
  Status CrawledBatch(const std::vector<CrawlReport>& reports) override {
    std::lock_guard lock(mu_);
    for (const CrawlReport& report : reports) {
      EXPECT_EQ(leased_.erase(report.lease), 1u) << report.page.url;
      crawled_[report.page.url] = report.page;
      for (const Link& link : report.page.links) Add(link.url);
      // Links the crawler refuses come with the page that names them.
      for (const FailureReport& refusal : report.refused) {
        EXPECT_EQ(refusal.lease, 0u) << refusal.url;
        if (FailQueued(refusal.url)) refused_in_reports_.push_back(refusal.url);
      }
    }
    return Status::Ok();
  }
  Status Failed(const FailureReport& report) override {
    std::lock_guard lock(mu_);
    if (report.lease != 0) {
      EXPECT_EQ(leased_.erase(report.lease), 1u) << report.url;
      failed_.push_back(report.url);
    } else {  // a queued page failed before it is handed out (robots.txt disallows it)
      FailQueued(report.url);
    }
    return Status::Ok();
  }
  Status SetCrawlDelay(std::string_view, int64_t) override { return Status::Ok(); }
  std::string HostRobots(std::string_view host) const override {
    std::lock_guard lock(mu_);
    auto it = robots_.find(std::string(host));
    return it == robots_.end() ? std::string() : it->second;
  }
  Status SetHostRobots(std::string_view host, std::string_view bytes) override {
    std::lock_guard lock(mu_);
    robots_[std::string(host)] = std::string(bytes);
    return Status::Ok();
  }
  SchedulerStats GetStats() const override {
    std::lock_guard lock(mu_);
    SchedulerStats stats;
    stats.queued = queue_.size();
    stats.in_flight = leased_.size();
    stats.finished = queue_.empty() && leased_.empty();
    stats.next_ready_ms = stats.finished ? -1 : 0;
    return stats;
  }

  // A revisit of `url`, as a frontier that remembers its last crawl would hand it out.
  void Revisit(const std::string& url, int64_t last_crawl_ms, uint64_t content_hash) {
    std::lock_guard lock(mu_);
    queue_.push_back({.url = url,
                      .revisit = true,
                      .last_crawl_ms = last_crawl_ms,
                      .content_hash = content_hash});
  }
  std::map<std::string, CrawledPage> crawled() const {
    std::lock_guard lock(mu_);
    return crawled_;
  }
  std::vector<std::string> failed() const {
    std::lock_guard lock(mu_);
    return failed_;
  }
  // Fails a queued page; false when it is not queued: handed out meanwhile (its lease's
  // report follows), or settled.
  bool FailQueued(const std::string& url) {
    const auto it = std::find_if(queue_.begin(), queue_.end(),
                                 [&](const Request& r) { return r.url == url; });
    if (it == queue_.end()) return false;
    queue_.erase(it);
    failed_.push_back(url);
    return true;
  }
  std::vector<std::string> refused_in_reports() const {
    std::lock_guard lock(mu_);
    return refused_in_reports_;
  }
  bool HasRobots() const {
    std::lock_guard lock(mu_);
    return !robots_.empty();
  }

 private:
  void Add(const std::string& url) {
    if (!known_.insert(url).second) return;
    Request r;
    r.url = url;
    r.host = "127.0.0.1";
    queue_.push_back(std::move(r));
  }

  mutable std::mutex mu_;
  std::deque<Request> queue_;
  std::set<std::string> known_;
  std::map<uint64_t, std::string> leased_;
  std::map<std::string, CrawledPage> crawled_;
  std::vector<std::string> failed_;
  std::map<std::string, std::string> robots_;
  std::vector<std::string> refused_in_reports_;
  uint64_t next_lease_ = 1;
};

// An HTTP/1.0 server on 127.0.0.1 (a port of its own), answering each connection from a
// fixed site: "/" links to /a and /b; /b is 304 when asked If-Modified-Since; robots.txt
// disallows /private. It records the If-Modified-Since headers it sees.
class FrontierTestServer {
 public:
  FrontierTestServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(listen(fd_, 16), 0);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FrontierTestServer() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::vector<std::string> conditional() {
    std::lock_guard lock(mu_);
    return conditional_;
  }

 private:
  void Serve() {
    while (!stop_) {
      const int client = accept(fd_, nullptr, nullptr);
      if (client < 0) return;
      std::string request;
      char buf[4096];
      while (request.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = read(client, buf, sizeof buf);
        if (n <= 0) break;
        request.append(buf, static_cast<size_t>(n));
      }
      const size_t space = request.find(' ');
      const std::string path = request.substr(space + 1, request.find(' ', space + 1) - space - 1);
      const bool conditional = request.find("If-Modified-Since:") != std::string::npos;
      if (conditional) {
        std::lock_guard lock(mu_);
        conditional_.push_back(path);
      }
      const std::string reply = Reply(path, conditional);
      (void)!write(client, reply.data(), reply.size());
      close(client);
    }
  }
  static std::string Reply(const std::string& path, bool conditional) {
    std::string status = "200 OK", type = "text/html", body;
    if (path == "/robots.txt") {
      type = "text/plain";
      body = "User-agent: *\nDisallow: /private\n";
    } else if (path == "/") {
      body = "<a href=/a>a</a> <a href=/b>b</a> <a href=/private>p</a>";
    } else if (path == "/a" || path == "/b") {
      if (conditional && path == "/b") return "HTTP/1.0 304 Not Modified\r\n\r\n";
      body = "<p>leaf</p>";
    } else {
      status = "404 Not Found";
    }
    return "HTTP/1.0 " + status + "\r\nContent-Type: " + type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }

  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  std::vector<std::string> conditional_;
  std::thread thread_;
};

CrawlerOptions LocalOptions(const FrontierTestServer& server) {
  CrawlerOptions options;
  options.seeds = {server.Url("/")};
  options.allow_private = true;
  options.schedule.delay_ms = 0;
  options.parse_threads = 1;
  options.timeout_ms = 5000;
  return options;
}

TEST(FrontierTest, CrawlerDrivesAFrontierWithoutAPageDb) {
  FrontierTestServer server;
  MemoryFrontier frontier;
  auto crawler = Crawler::Open(frontier, LocalOptions(server));
  ASSERT_TRUE(crawler.ok()) << crawler.status().ToString();
  Result<CrawlSummary> summary = (*crawler)->Run();
  ASSERT_TRUE(summary.ok()) << summary.status().ToString();
  EXPECT_TRUE(summary->finished);
  const auto crawled = frontier.crawled();
  ASSERT_EQ(crawled.size(), 3u);
  EXPECT_EQ(crawled.at(server.Url("/")).links.size(), 3u);  // the link to /private is kept
  EXPECT_EQ(crawled.at(server.Url("/a")).http_status, 200);
  // robots.txt kept /private from being fetched, and its state went to the frontier.
  EXPECT_EQ(frontier.failed(), std::vector<std::string>{server.Url("/private")});
  // ... failed in the report of the page that links to it (issue #42), not on its own.
  EXPECT_EQ(frontier.refused_in_reports(), std::vector<std::string>{server.Url("/private")});
  EXPECT_TRUE(frontier.HasRobots());
  EXPECT_TRUE(server.conditional().empty());
}

TEST(FrontierTest, RevisitIsConditionalOnWhatTheRequestCarries) {
  FrontierTestServer server;
  MemoryFrontier frontier;
  CrawlerOptions options = LocalOptions(server);
  options.seeds.clear();
  frontier.Revisit(server.Url("/b"), 1'700'000'000'000, 0xC0FFEE);
  frontier.Revisit(server.Url("/a"), 0, 0);  // never crawled: a plain GET
  auto crawler = Crawler::Open(frontier, options);
  ASSERT_TRUE(crawler.ok()) << crawler.status().ToString();
  ASSERT_TRUE((*crawler)->Run().ok());
  EXPECT_EQ(server.conditional(), std::vector<std::string>{"/b"});
  const auto crawled = frontier.crawled();
  ASSERT_EQ(crawled.count(server.Url("/b")), 1u);
  EXPECT_EQ(crawled.at(server.Url("/b")).http_status, 304);
  EXPECT_EQ(crawled.at(server.Url("/b")).content_hash, 0xC0FFEEu);  // unchanged
}

TEST(FrontierTest, ScopeIsTheFrontiersToApply) {
  FrontierTestServer server;
  MemoryFrontier frontier;
  CrawlerOptions options = LocalOptions(server);
  options.schedule.scope = CrawlScope::kSameHost;
  auto crawler = Crawler::Open(frontier, options);
  ASSERT_FALSE(crawler.ok());
  EXPECT_EQ(crawler.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace crawlrank
