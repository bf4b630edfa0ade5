// frontier_fetch_bench: the fetch cycle of crawlrank serve, GetURLs then PutURLs, from
// several client processes, and the memory it takes (docs/benchmarks.md, "URLFrontier
// server: the fetch cycle").
//
// A PageDB with --urls queued URLs over --hosts hosts is made once and copied for each
// run. Then, alternating, --repeats times:
//   remote N    N client processes (this program with --client) each loop: GetURLs for up
//               to --batch URLs (one per queue), then one PutURLs stream that reports each
//               fetched (a KnownURLItem, status 200, no links), until the server has none
//               left. Timed from the moment all N are told to go to the last one done; for
//               each N of --clients.
//   in-process  the same cycle on a Scheduler in this process: Next(--batch), then
//               CrawledBatch of the batch.
// Memory, as RssAnon (the process's own heap, not the PageDB's mapped file) from /proc:
//   - per queued URL: a server on the full PageDB, less one on an empty PageDB, over
//     --urls; the same for a Scheduler in a probe process (this program with --probe);
//   - per client: the server's, once a run is over with its N clients still connected,
//     between the largest and the smallest N; and each client process's own.
#include <fcntl.h>
#include <grpcpp/grpcpp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"
#include "serve_process.h"
#include "urlfrontier.grpc.pb.h"

namespace crawlrank::bench {
namespace {

struct Setup {
  std::string dir;
  std::string score;
  uint64_t urls = 0;
  uint32_t hosts = 0;
  uint32_t batch = 0;
};

// The PageDB every run starts from: `urls` seeds over `hosts` hosts, nothing crawled.
void MakeTemplate(const Setup& s, const std::string& path) {
  auto db = Check(PageDb::Open(path, {.durability = Durability::kNone}));
  Check(db->WriteConfig({{"score", s.score}}));
  SchedulerOptions options;
  options.score = Check(ParseScoreMode(s.score));
  auto scheduler = Check(Scheduler::Open(*db, options));
  std::vector<std::string> seeds;
  for (uint64_t i = 0; i < s.urls; ++i) {
    seeds.push_back("http://h" + std::to_string(i % s.hosts) + ".bench/p" + std::to_string(i));
    if (seeds.size() == 10'000 || i + 1 == s.urls) {
      Check(scheduler->AddSeeds(seeds));
      seeds.clear();
    }
  }
}

// ---- the client process (--client)

// Loops GetURLs and PutURLs until the server has nothing left; returns the pages reported.
uint64_t ClientLoop(urlfrontier::URLFrontier::Stub& stub, uint32_t batch) {
  uint64_t pages = 0;
  urlfrontier::GetParams params;
  params.set_max_queues(batch);
  params.set_max_urls_per_queue(1);
  params.set_delay_requestable(300);
  std::vector<std::string> urls;
  for (;;) {
    urls.clear();
    {
      grpc::ClientContext context;
      auto reader = stub.GetURLs(&context, params);
      urlfrontier::URLInfo info;
      while (reader->Read(&info)) urls.push_back(info.url());
      if (grpc::Status status = reader->Finish(); !status.ok()) {
        Die(InternalError("GetURLs: " + status.error_message()));
      }
    }
    if (urls.empty()) {
      grpc::ClientContext context;
      urlfrontier::QueueWithinCrawlParams which;
      urlfrontier::Stats stats;
      if (grpc::Status status = stub.GetStats(&context, which, &stats); !status.ok()) {
        Die(InternalError("GetStats: " + status.error_message()));
      }
      if (stats.size() == 0) return pages;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      continue;
    }
    grpc::ClientContext context;
    auto stream = stub.PutURLs(&context);
    urlfrontier::URLItem item;
    (*item.mutable_known()->mutable_info()->mutable_metadata())["crawlrank.status"].add_values(
        "200");
    for (const std::string& url : urls) {
      item.mutable_known()->mutable_info()->set_url(url);
      if (!stream->Write(item)) break;
    }
    stream->WritesDone();
    urlfrontier::AckMessage ack;
    uint64_t acked = 0;
    while (stream->Read(&ack)) acked += ack.status() == urlfrontier::AckMessage::OK;
    if (grpc::Status status = stream->Finish(); !status.ok() || acked != urls.size()) {
      Die(InternalError("PutURLs: " + status.error_message() + ", " + std::to_string(acked) +
                        " of " + std::to_string(urls.size()) + " acked OK"));
    }
    pages += acked;
  }
}

// Prints "ready", waits for a byte on stdin, runs, prints "done PAGES RSSANON_KIB", then
// stays (connected) until stdin closes.
int Client(const std::string& address, uint32_t batch) {
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto stub = urlfrontier::URLFrontier::NewStub(channel);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(30))) {
    Die(UnavailableError("cannot connect to " + address));
  }
  std::printf("ready\n");
  std::fflush(stdout);
  char go;
  if (read(STDIN_FILENO, &go, 1) != 1) return 1;
  const uint64_t pages = ClientLoop(*stub, batch);
  std::printf("done %llu %ld\n", static_cast<unsigned long long>(pages), ProcKib(getpid(), "RssAnon"));
  std::fflush(stdout);
  while (read(STDIN_FILENO, &go, 1) > 0) {
  }
  return 0;
}

// A spawned child of this program, its stdin and stdout on pipes.
class Child {
 public:
  explicit Child(std::vector<std::string> args) {
    // Close-on-exec: a sibling spawned later must not hold this child's stdin open.
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) Die(IoError("pipe"));
    args.insert(args.begin(), std::filesystem::read_symlink("/proc/self/exe").string());
    pid_ = Spawn(std::move(args), in[0], out[1]);
    close(in[0]);
    close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Child() {
    if (to_ >= 0) close(to_);
    close(from_);
    int status;
    waitpid(pid_, &status, 0);
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  std::string ReadLine() {
    std::string line;
    char c;
    while (read(from_, &c, 1) == 1 && c != '\n') line += c;
    return line;
  }
  void Send(char c) {
    if (write(to_, &c, 1) != 1) Die(IoError("write to a client"));
  }

 private:
  pid_t pid_ = 0;
  int to_ = -1, from_ = -1;
};

struct RemoteRun {
  double pages_per_s = 0;
  long server_kib = 0;  // RssAnon once done, the clients still connected
  long client_kib = 0;  // the largest client's RssAnon
};

RemoteRun Remote(const Setup& s, const std::string& server_path, const std::string& db,
                 uint32_t clients) {
  ServerProcess server(server_path, db);
  std::vector<std::unique_ptr<Child>> children;
  for (uint32_t i = 0; i < clients; ++i) {
    children.push_back(std::make_unique<Child>(std::vector<std::string>{
        "--client", server.address(), "--batch", std::to_string(s.batch)}));
  }
  for (auto& child : children) {
    if (child->ReadLine() != "ready") Die(InternalError("a client did not start"));
  }
  const auto started = Clock::now();
  for (auto& child : children) child->Send('g');
  RemoteRun run;
  uint64_t pages = 0;
  for (auto& child : children) {
    unsigned long long n = 0;
    long kib = 0;
    const std::string line = child->ReadLine();
    if (std::sscanf(line.c_str(), "done %llu %ld", &n, &kib) != 2) {
      Die(InternalError("a client ended: " + line));
    }
    pages += n;
    run.client_kib = std::max(run.client_kib, kib);
  }
  const double seconds = Seconds(started);
  if (pages != s.urls) {
    Die(InternalError(std::to_string(pages) + " of " + std::to_string(s.urls) + " reported"));
  }
  run.pages_per_s = static_cast<double>(pages) / seconds;
  run.server_kib = ProcKib(server.pid(), "RssAnon");
  return run;  // the clients close, then the server
}

double InProcess(const Setup& s, const std::string& path) {
  auto db = Check(PageDb::Open(path, {}));
  SchedulerOptions options;
  options.score = Check(ParseScoreMode(s.score));
  options.delay_ms = 0;  // as the server's --delay 0; one URL per host out at once
  auto scheduler = Check(Scheduler::Open(*db, options));
  uint64_t pages = 0;
  const auto started = Clock::now();
  for (;;) {
    std::vector<Request> requests = Check(scheduler->Next(s.batch));
    if (requests.empty()) {
      if (scheduler->GetStats().queued == 0) break;
      continue;
    }
    std::vector<CrawlReport> reports;
    for (Request& r : requests) {
      CrawlReport& report = reports.emplace_back();
      report.page.url = std::move(r.url);
      report.lease = r.lease;
    }
    Check(scheduler->CrawledBatch(reports));
    pages += reports.size();
  }
  if (pages != s.urls) Die(InternalError("in-process: " + std::to_string(pages) + " pages"));
  return static_cast<double>(pages) / Seconds(started);
}

// --probe DB: opens a Scheduler over DB and prints its RssAnon in KiB.
int Probe(const std::string& path, const std::string& score) {
  auto db = Check(PageDb::Open(path, {}));
  SchedulerOptions options;
  options.score = Check(ParseScoreMode(score));
  auto scheduler = Check(Scheduler::Open(*db, options));
  std::printf("%ld\n", ProcKib(getpid(), "RssAnon"));
  return 0;
}

long ProbeKib(const std::string& path, const std::string& score) {
  Child probe({"--probe", path, "--score", score});
  return std::stol(probe.ReadLine());
}

long ServerKib(const std::string& server_path, const std::string& db) {
  ServerProcess server(server_path, db);
  return ProcKib(server.pid(), "RssAnon");
}

void CopyDb(const std::string& from, const std::string& to) {
  std::filesystem::remove_all(to);
  std::filesystem::copy(from, to, std::filesystem::copy_options::recursive);
}

int Main(int argc, char** argv) {
  CLI::App app("crawlrank serve's GetURLs + PutURLs cycle from several client processes, "
               "against the in-process Scheduler (see the top of "
               "benchmarks/frontier_fetch_bench.cc)");
  Setup s{.dir = "/tmp/frontier_fetch_bench", .score = "pagerank", .urls = 100'000,
          .hosts = 10'000, .batch = 100};
  std::string server, client, probe;
  std::vector<uint32_t> clients{1, 4};
  uint32_t repeats = 3;
  app.add_option("--server", server, "crawlrank_serve to start");
  app.add_option("--dir", s.dir, "scratch folder for the PageDBs (emptied)")->capture_default_str();
  app.add_option("--urls", s.urls)->capture_default_str();
  app.add_option("--hosts", s.hosts)->capture_default_str();
  app.add_option("--batch", s.batch, "URLs per GetURLs and per report")->capture_default_str();
  app.add_option("--clients", clients, "client process counts to run")->capture_default_str();
  app.add_option("--repeats", repeats)->capture_default_str();
  app.add_option("--score", s.score, "score mode")->capture_default_str();
  app.add_option("--client", client, "(internal) run as a client of this address");
  app.add_option("--probe", probe, "(internal) print a Scheduler's memory over this PageDB");
  CLI11_PARSE(app, argc, argv);
  if (!client.empty()) return Client(client, s.batch);
  if (!probe.empty()) return Probe(probe, s.score);
  if (server.empty()) Die(InvalidArgumentError("--server is required"));
  std::filesystem::remove_all(s.dir);
  std::filesystem::create_directories(s.dir);
  const std::string full = s.dir + "/full", empty = s.dir + "/empty", run_db = s.dir + "/run";
  MakeTemplate(s, full);
  { auto created = Check(PageDb::Open(empty, {})); Check(created->WriteConfig({{"score", s.score}})); }
  std::printf("%llu queued URLs over %u hosts, batches of %u, score mode %s\n",
              static_cast<unsigned long long>(s.urls), s.hosts, s.batch, s.score.c_str());

  // Memory per queued URL: the full PageDB against the empty one, server and in process.
  CopyDb(full, run_db);
  const long server_full = ServerKib(server, run_db), server_empty = ServerKib(server, empty);
  CopyDb(full, run_db);
  const long local_full = ProbeKib(run_db, s.score), local_empty = ProbeKib(empty, s.score);
  const auto per_url = [&](long a, long b) { return 1024.0 * static_cast<double>(a - b) / s.urls; };
  std::printf("memory (RssAnon): server %ld KiB full, %ld KiB empty: %.0f bytes per queued URL; "
              "in-process Scheduler %ld KiB full, %ld KiB empty: %.0f bytes per queued URL\n",
              server_full, server_empty, per_url(server_full, server_empty), local_full,
              local_empty, per_url(local_full, local_empty));

  std::map<uint32_t, std::vector<double>> remote, server_kib, client_kib;
  std::vector<double> local;
  for (uint32_t r = 0; r < repeats; ++r) {
    for (uint32_t n : clients) {
      CopyDb(full, run_db);
      const RemoteRun run = Remote(s, server, run_db, n);
      remote[n].push_back(run.pages_per_s);
      server_kib[n].push_back(static_cast<double>(run.server_kib));
      client_kib[n].push_back(static_cast<double>(run.client_kib));
      std::printf("run %u: remote, %u clients: %.0f pages/s (server %ld KiB, a client %ld KiB)\n",
                  r + 1, n, run.pages_per_s, run.server_kib, run.client_kib);
      std::fflush(stdout);
    }
    CopyDb(full, run_db);
    local.push_back(InProcess(s, run_db));
    std::printf("run %u: in-process: %.0f pages/s\n", r + 1, local.back());
    std::fflush(stdout);
  }
  std::filesystem::remove_all(s.dir);
  const double m_local = Median(local);
  std::printf("median: in-process %.0f pages/s\n", m_local);
  for (uint32_t n : clients) {
    const double m = Median(remote[n]);
    std::printf("median: remote, %u clients: %.0f pages/s (%.2fx in-process); server %.0f KiB, "
                "a client process %.0f KiB\n",
                n, m, m / m_local, Median(server_kib[n]), Median(client_kib[n]));
  }
  if (clients.size() > 1) {
    const uint32_t lo = clients.front(), hi = clients.back();
    std::printf("server memory per connected client: %.0f KiB\n",
                (Median(server_kib[hi]) - Median(server_kib[lo])) / (hi - lo));
  }
  return 0;
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) {
  return crawlrank::bench::Main(argc, argv);
}
