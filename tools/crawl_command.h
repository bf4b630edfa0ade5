// `crawlrank crawl`: the crawl subcommand of the front door (crawlrank.cc): its options
// (crawl_command.cc), the configuration they resolve with what the PageDB stores, and the
// run, local or through a frontier; crawl_summary.h prints what it did.
#ifndef CRAWLRANK_TOOLS_CRAWL_COMMAND_H_
#define CRAWLRANK_TOOLS_CRAWL_COMMAND_H_

#include <cstdint>
#include <string>
#include <vector>

#include "crawlrank/crawler.h"

namespace crawlrank::tools {

// The command line as parsed: the crawler's options, and what the tool turns into them.
struct CrawlArgs {
  std::string db_path;
  std::vector<std::string> seeds;
  std::vector<std::string> seeds_files;  // one URL a line; "-": stdin
  std::string log_path;                  // --log: JSON lines, one a page
  CrawlerOptions crawl;
  std::string score = "blend";
  std::string profile = "rfc3986";
  std::string parser = "streaming";
  std::string scope = "any";
  bool show_config = false, reset_config = false;
  double revisit_s = 0, max_time_s = 0;
  double delay_s = 1, retry_delay_s = 60, timeout_s = 30, connect_timeout_s = 10, max_crawl_delay_s = 60;
  bool same_host = false, same_domain = false, quiet = false, json = false;
  uint64_t top = 10;
  // --frontier: crawl through a crawlrank serve (or every node of a cluster: a list, or
  // one node and --discover) instead of a PageDB of its own.
  std::string frontier, crawl_id, frontier_token, frontier_tls_ca;
  bool discover = false;
  double lease_s = 60;
  double frontier_give_up_s = 600;
};

// Runs `crawlrank crawl ARGS...` (argv[0] is "crawl"); returns the exit status.
int CrawlCommand(int argc, char** argv);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_CRAWL_COMMAND_H_
