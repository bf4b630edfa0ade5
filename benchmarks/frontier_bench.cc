// frontier_bench: the write path of crawlrank serve (docs/benchmarks.md, "URLFrontier
// server").
//
// --urls discovered URLs in batches of --batch (each batch: the outlinks of one crawled
// page, over --hosts hosts, every URL new), three ways, alternating, --repeats times:
//   remote     this one client process streams them through PutDiscovered to a
//              crawlrank_serve (--server PATH) on 127.0.0.1, every batch on one stream, a
//              second thread reading the acks; timed from the first write to the last ack.
//   in-process the same batches the way the server writes them (a snapshot look-up of each
//              URL, then one Scheduler::Write of the batch's links), in this process.
//   protobuf   building, serialising and parsing the same DiscoveredBatch messages only.
// Each run starts from a new, empty PageDB. Prints each run and the medians.
#include <grpcpp/grpcpp.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "bench_util.h"
#include "crawlrank/page_db.h"
#include "crawlrank/scheduler.h"
#include "serve_process.h"
#include "urlfrontier.grpc.pb.h"

namespace crawlrank::bench {
namespace {

struct Work {
  std::vector<std::string> sources;               // one per batch
  std::vector<std::vector<std::string>> batches;  // its outlinks
  uint64_t urls = 0;
};

Work MakeWork(uint64_t urls, uint32_t batch, uint32_t hosts, uint64_t seed) {
  std::mt19937_64 rng(seed);
  Work work;
  uint64_t n = 0;
  const auto url = [&](uint64_t host, uint64_t page) {
    return "http://h" + std::to_string(host) + ".bench/p" + std::to_string(page);
  };
  while (n < urls) {
    work.sources.push_back(url(rng() % hosts, n));  // the page these links were found on
    auto& links = work.batches.emplace_back();
    for (uint32_t i = 0; i < batch && n < urls; ++i) links.push_back(url(rng() % hosts, ++n));
  }
  work.urls = n;
  return work;
}

urlfrontier::DiscoveredBatch Message(const Work& work, size_t b) {
  urlfrontier::DiscoveredBatch message;
  message.set_id(std::to_string(b));
  for (const std::string& link : work.batches[b]) {
    urlfrontier::URLInfo* info = message.add_items();
    info->set_url(link);
    (*info->mutable_metadata())["crawlrank.source"].add_values(work.sources[b]);
  }
  return message;
}

// URLs/s through PutDiscovered to a new server, its crawl stored with score mode `score`.
double Remote(const Work& work, const std::string& server, const std::string& db,
              const std::string& score) {
  {
    auto created = Check(PageDb::Open(db, {}));
    Check(created->WriteConfig({{"score", score}}));
  }
  ServerProcess process(server, db);
  auto stub = urlfrontier::URLFrontier::NewStub(
      grpc::CreateChannel(process.address(), grpc::InsecureChannelCredentials()));
  std::vector<urlfrontier::DiscoveredBatch> messages;
  for (size_t b = 0; b < work.batches.size(); ++b) messages.push_back(Message(work, b));
  grpc::ClientContext context;
  const auto started = Clock::now();
  auto stream = stub->PutDiscovered(&context);
  std::atomic<uint64_t> ok{0};
  std::thread reader([&] {
    urlfrontier::BatchAck ack;
    while (stream->Read(&ack)) {
      for (int s : ack.statuses()) ok += s == urlfrontier::AckMessage::OK;
    }
  });
  for (const auto& m : messages) {
    if (!stream->Write(m)) break;
  }
  stream->WritesDone();
  reader.join();
  const grpc::Status status = stream->Finish();
  const double seconds = Seconds(started);
  if (!status.ok() || ok != work.urls) {
    Die(InternalError("PutDiscovered: " + status.error_message() + ", " + std::to_string(ok) +
                      " of " + std::to_string(work.urls) + " URLs acked OK"));
  }
  return static_cast<double>(work.urls) / seconds;
}

// URLs/s written as the server writes them, in this process.
double InProcess(const Work& work, const std::string& db_path, ScoreMode score) {
  auto db = Check(PageDb::Open(db_path, {}));
  SchedulerOptions options;
  options.score = score;
  auto scheduler = Check(Scheduler::Open(*db, options));
  const auto started = Clock::now();
  for (size_t b = 0; b < work.batches.size(); ++b) {
    WriteBatch batch;
    {
      Snapshot snapshot = Check(db->NewSnapshot());
      std::vector<Link> links;
      for (const std::string& url : work.batches[b]) {
        auto canonical = Check(CanonicalizeUrl(url, db->url_profile()));
        const bool known = snapshot.Find(UrlFingerprint(canonical)).ok();
        (void)known;  // every URL is new here; the server acks by it
        links.push_back(Link{.url = std::move(canonical)});
      }
      batch.MergeLinks(work.sources[b], std::move(links));
    }
    Check(scheduler->Write(batch, {}));
  }
  return static_cast<double>(work.urls) / Seconds(started);
}

// URLs/s building, serialising and parsing the messages alone.
double Protobuf(const Work& work) {
  const auto started = Clock::now();
  std::string bytes;
  urlfrontier::DiscoveredBatch parsed;
  uint64_t items = 0;
  for (size_t b = 0; b < work.batches.size(); ++b) {
    Message(work, b).SerializeToString(&bytes);
    if (!parsed.ParseFromString(bytes)) Die(InternalError("parse"));
    items += static_cast<uint64_t>(parsed.items_size());
  }
  return static_cast<double>(items) / Seconds(started);
}

int Main(int argc, char** argv) {
  CLI::App app("crawlrank serve's PutDiscovered against the in-process write (see the top "
               "of benchmarks/frontier_bench.cc)");
  std::string server, dir = "/tmp/frontier_bench", score = "blend";
  uint64_t urls = 1'000'000;
  uint32_t batch = 50, hosts = 10'000, repeats = 3;
  app.add_option("--server", server, "crawlrank_serve to start")->required();
  app.add_option("--dir", dir, "scratch folder for the PageDBs (emptied)")->capture_default_str();
  app.add_option("--urls", urls)->capture_default_str();
  app.add_option("--batch", batch)->capture_default_str();
  app.add_option("--hosts", hosts)->capture_default_str();
  app.add_option("--repeats", repeats)->capture_default_str();
  app.add_option("--score", score, "score mode of both (the default, blend, re-ranks as the graph grows)")
      ->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  const ScoreMode mode = Check(ParseScoreMode(score));
  const Work work = MakeWork(urls, batch, hosts, 1126);
  std::printf("%llu URLs in %zu batches of %u over %u hosts, score mode %s\n",
              static_cast<unsigned long long>(work.urls), work.batches.size(), batch, hosts,
              score.c_str());
  std::vector<double> remote, local, proto;
  for (uint32_t r = 0; r < repeats; ++r) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    remote.push_back(Remote(work, server, dir + "/remote", score));
    local.push_back(InProcess(work, dir + "/local", mode));
    proto.push_back(Protobuf(work));
    std::printf("run %u: remote %.0f URLs/s, in-process %.0f URLs/s, protobuf alone %.0f URLs/s\n",
                r + 1, remote.back(), local.back(), proto.back());
    std::fflush(stdout);
  }
  std::filesystem::remove_all(dir);
  const double m_remote = Median(remote), m_local = Median(local), m_proto = Median(proto);
  std::printf("median: remote %.0f URLs/s (%.2fx the in-process write), in-process %.0f URLs/s, "
              "protobuf alone %.0f URLs/s\n",
              m_remote, m_remote / m_local, m_local, m_proto);
  // Per URL: the remote time split into what the in-process write, protobuf's work and
  // the rest (gRPC, the loopback, the two processes' hand-offs) cost.
  const double us_remote = 1e6 / m_remote, us_local = 1e6 / m_local, us_proto = 1e6 / m_proto;
  std::printf("per URL: remote %.2f us = PageDB and scheduler %.2f + protobuf %.2f + gRPC and "
              "the rest %.2f\n",
              us_remote, us_local, us_proto, us_remote - us_local - us_proto);
  return 0;
}

}  // namespace
}  // namespace crawlrank::bench

int main(int argc, char** argv) {
  return crawlrank::bench::Main(argc, argv);
}
