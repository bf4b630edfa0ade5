// cluster_bench: a cluster of N crawlrank serve nodes on this machine (docs/benchmarks.md,
// "A cluster of nodes (issue #44)").
//
// For each N of --nodes (1,2,4), alternating, --repeats times, on new, empty PageDBs:
//   discover  N client threads, one a node, each streams its share of --urls discovered
//             URLs through PutDiscovered to its own node only (batches of --batch, each the
//             outlinks of one page naming it as their source, over --hosts hosts, every URL
//             new), as StormCrawler's status updaters do: so a batch's source has another
//             owner (N-1)/N of the time, and so has each link; the nodes send them on.
//             Timed from the first write to the last ack (every URL acked OK).
//   cycle     then N client threads, one a node (a spout task each), loop: GetURLs from
//             their node (up to 100, one per queue), then one PutURLs stream reporting each
//             fetched (status 200, no links); until every node has nothing left.
// CPU: user + system seconds of every node (/proc/PID/stat) and of this process (the
// clients), over each phase. With --pin, node i runs on core i and client i on core N+i.
// Prints each run and the medians.
#include <grpcpp/grpcpp.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "serve_process.h"
#include "urlfrontier.grpc.pb.h"

namespace crawlrank::bench {
namespace {

struct Config {
  std::string server, dir = "/tmp/crawlrank-cluster-bench", score = "link-score";
  std::vector<int> nodes{1, 2, 4};
  uint64_t urls = 200'000;
  uint32_t batch = 50, hosts = 10'000;
  int repeats = 3;
  bool pin = false;
};

struct Figures {
  double discover_urls_per_s = 0, discover_cpu_per_million = 0, discover_node_cpu = 0;
  double cycle_pages_per_s = 0, cycle_cpu_us_per_page = 0;
  uint64_t pages = 0;
};

double SelfCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

int FreePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), size) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    Die(IoError("no free port"));
  }
  close(fd);
  return ntohs(address.sin_port);
}

void Pin(int core) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(core, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// Client i's batches: every N-th batch of the whole work, from its first.
std::vector<urlfrontier::DiscoveredBatch> Batches(const Config& c, int n, int i) {
  std::mt19937_64 rng(42);
  std::vector<urlfrontier::DiscoveredBatch> out;
  const auto url = [](uint64_t host, uint64_t page) {
    return "http://h" + std::to_string(host) + ".bench/p" + std::to_string(page);
  };
  uint64_t made = 0;
  for (uint64_t b = 0; made < c.urls; ++b) {
    urlfrontier::DiscoveredBatch message;
    // A source of its own (/s...), never one of the URLs discovered (/p...): a source
    // that were also a target would make that target known, and SKIPPED.
    const std::string source =
        "http://h" + std::to_string(rng() % c.hosts) + ".bench/s" + std::to_string(b);
    for (uint32_t k = 0; k < c.batch && made < c.urls; ++k) {
      urlfrontier::URLInfo* info = message.add_items();
      info->set_url(url(rng() % c.hosts, ++made));
      (*info->mutable_metadata())["crawlrank.source"].add_values(source);
    }
    if (static_cast<int>(b % n) != i) continue;
    message.set_id(std::to_string(b));
    out.push_back(std::move(message));
  }
  return out;
}

std::unique_ptr<urlfrontier::URLFrontier::Stub> Connect(const std::string& address) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(30))) {
    Die(IoError("cannot connect to " + address));
  }
  return urlfrontier::URLFrontier::NewStub(channel);
}

// Streams `batches` to one node; the URLs acked OK.
uint64_t Discover(urlfrontier::URLFrontier::Stub& stub,
                  const std::vector<urlfrontier::DiscoveredBatch>& batches) {
  grpc::ClientContext context;
  auto stream = stub.PutDiscovered(&context);
  std::atomic<uint64_t> ok{0};
  std::thread reader([&] {
    urlfrontier::BatchAck ack;
    while (stream->Read(&ack)) {
      for (int s : ack.statuses()) ok += s == urlfrontier::AckMessage::OK;
    }
  });
  for (const auto& m : batches) {
    if (!stream->Write(m)) break;
  }
  stream->WritesDone();
  reader.join();
  const grpc::Status status = stream->Finish();
  if (!status.ok()) Die(IoError("PutDiscovered: " + status.error_message()));
  return ok;
}

// A spout on one node until it has nothing left; the pages it reported.
uint64_t Cycle(urlfrontier::URLFrontier::Stub& stub) {
  uint64_t pages = 0;
  urlfrontier::GetParams params;
  params.set_max_queues(100);
  params.set_max_urls_per_queue(1);
  params.set_delay_requestable(600);
  while (true) {
    std::vector<std::string> urls;
    {
      grpc::ClientContext context;
      auto reader = stub.GetURLs(&context, params);
      urlfrontier::URLInfo info;
      while (reader->Read(&info)) urls.push_back(info.url());
      if (!reader->Finish().ok()) Die(IoError("GetURLs"));
    }
    if (urls.empty()) {
      grpc::ClientContext context;
      urlfrontier::QueueWithinCrawlParams local;
      local.set_local(true);
      urlfrontier::Stats stats;
      if (!stub.GetStats(&context, local, &stats).ok()) Die(IoError("GetStats"));
      if (stats.size() == 0) return pages;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    grpc::ClientContext context;
    auto stream = stub.PutURLs(&context);
    for (const std::string& url : urls) {
      urlfrontier::URLItem item;
      urlfrontier::URLInfo* info = item.mutable_known()->mutable_info();
      info->set_url(url);
      (*info->mutable_metadata())["crawlrank.status"].add_values("200");
      stream->Write(item);
    }
    stream->WritesDone();
    urlfrontier::AckMessage ack;
    while (stream->Read(&ack)) pages += ack.status() == urlfrontier::AckMessage::OK;
    if (!stream->Finish().ok()) Die(IoError("PutURLs"));
  }
}

template <typename Work>
void OnEveryNode(int n, bool pin, Work work) {
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      if (pin) Pin(n + i);
      work(i);
    });
  }
  for (auto& t : threads) t.join();
}

Figures Run(const Config& c, int n, int round) {
  std::vector<std::string> entries;
  for (int i = 0; i < n; ++i) entries.push_back("127.0.0.1:" + std::to_string(FreePort()));
  std::string list;
  for (const auto& e : entries) list += (list.empty() ? "" : ",") + e;
  std::vector<std::unique_ptr<ServerProcess>> nodes;
  for (int i = 0; i < n; ++i) {
    const std::string db = c.dir + "/n" + std::to_string(n) + "r" + std::to_string(round) + "." +
                           std::to_string(i);
    std::filesystem::remove_all(db);
    // A child inherits this thread's CPU mask: node i's, for its start.
    cpu_set_t before;
    if (c.pin) {
      pthread_getaffinity_np(pthread_self(), sizeof before, &before);
      Pin(i);
    }
    nodes.push_back(std::make_unique<ServerProcess>(
        c.server, db,
        std::vector<std::string>{"--nodes", list, "--node", entries[i], "--score-mode", c.score,
                                 "--no-rank-at-exit"},
        entries[i]));
    if (c.pin) pthread_setaffinity_np(pthread_self(), sizeof before, &before);
  }
  std::vector<std::unique_ptr<urlfrontier::URLFrontier::Stub>> stubs;
  std::vector<std::vector<urlfrontier::DiscoveredBatch>> work;
  for (int i = 0; i < n; ++i) {
    stubs.push_back(Connect(entries[i]));
    work.push_back(Batches(c, n, i));
  }
  const auto node_cpu = [&] {
    double s = 0;
    for (const auto& node : nodes) s += ProcCpuSeconds(node->pid());
    return s;
  };
  Figures f;
  double nodes0 = node_cpu(), self0 = SelfCpuSeconds();
  auto started = Clock::now();
  std::atomic<uint64_t> acked{0};
  OnEveryNode(n, c.pin, [&](int i) { acked += Discover(*stubs[i], work[i]); });
  double seconds = Seconds(started);
  if (acked != c.urls) {
    Die(InternalError(std::to_string(acked) + " of " + std::to_string(c.urls) + " acked OK"));
  }
  const double nodes1 = node_cpu(), self1 = SelfCpuSeconds();
  f.discover_urls_per_s = static_cast<double>(c.urls) / seconds;
  f.discover_node_cpu = (nodes1 - nodes0) / static_cast<double>(c.urls) * 1e6;
  f.discover_cpu_per_million = f.discover_node_cpu + (self1 - self0) / static_cast<double>(c.urls) * 1e6;

  started = Clock::now();
  std::atomic<uint64_t> pages{0};
  OnEveryNode(n, c.pin, [&](int i) { pages += Cycle(*stubs[i]); });
  seconds = Seconds(started);
  f.pages = pages;
  f.cycle_pages_per_s = static_cast<double>(pages) / seconds;
  f.cycle_cpu_us_per_page =
      (node_cpu() - nodes1 + SelfCpuSeconds() - self1) / static_cast<double>(pages) * 1e6;
  return f;
}

int Main(int argc, char** argv) {
  Config c;
  CLI::App app("A cluster of crawlrank serve nodes: discovery and the fetch cycle at N nodes");
  app.add_option("--server", c.server, "crawlrank_serve")->required();
  app.add_option("--nodes", c.nodes, "the cluster sizes")->delimiter(',');
  app.add_option("--urls", c.urls, "discovered URLs, over all clients");
  app.add_option("--batch", c.batch, "URLs a PutDiscovered batch");
  app.add_option("--hosts", c.hosts, "hosts the URLs spread over");
  app.add_option("--repeats", c.repeats, "rounds, each over every N");
  app.add_option("--score", c.score, "the nodes' score mode");
  app.add_option("--dir", c.dir, "where the PageDBs go (removed at the end)");
  app.add_flag("--pin", c.pin, "node i on core i, client i on core N+i");
  CLI11_PARSE(app, argc, argv);
  std::filesystem::create_directories(c.dir);
  std::map<int, std::vector<Figures>> runs;
  for (int round = 0; round < c.repeats; ++round) {
    std::vector<int> order = c.nodes;
    if (round % 2 == 1) std::reverse(order.begin(), order.end());  // alternate
    for (int n : order) {
      const Figures f = Run(c, n, round);
      runs[n].push_back(f);
      std::printf("round %d, N=%d: discover %.0f URLs/s, %.2f CPU s per million URLs (nodes "
                  "%.2f); cycle %llu pages, %.0f pages/s, %.1f CPU us per page\n",
                  round, n, f.discover_urls_per_s, f.discover_cpu_per_million,
                  f.discover_node_cpu, static_cast<unsigned long long>(f.pages),
                  f.cycle_pages_per_s, f.cycle_cpu_us_per_page);
      std::fflush(stdout);
    }
  }
  std::printf("\nmedians (score %s, %llu URLs in batches of %u over %u hosts%s):\n",
              c.score.c_str(), static_cast<unsigned long long>(c.urls), c.batch, c.hosts,
              c.pin ? ", pinned" : "");
  std::printf("| N | discover URLs/s | CPU s per million URLs | against N=1 | cycle pages/s | "
              "against N=1 | CPU us per page |\n|---|---|---|---|---|---|---|\n");
  const auto median = [&](int n, double Figures::*field) {
    std::vector<double> v;
    for (const Figures& f : runs[n]) v.push_back(f.*field);
    return Median(v);
  };
  const int first = c.nodes.front();
  for (int n : c.nodes) {
    std::printf("| %d | %.0f | %.2f | %.2fx | %.0f | %.2fx | %.1f |\n", n,
                median(n, &Figures::discover_urls_per_s),
                median(n, &Figures::discover_cpu_per_million),
                median(n, &Figures::discover_cpu_per_million) /
                    median(first, &Figures::discover_cpu_per_million),
                median(n, &Figures::cycle_pages_per_s),
                median(n, &Figures::cycle_pages_per_s) / median(first, &Figures::cycle_pages_per_s),
                median(n, &Figures::cycle_cpu_us_per_page));
  }
  std::filesystem::remove_all(c.dir);
  return 0;
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) { return crawlrank::bench::Main(argc, argv); }
