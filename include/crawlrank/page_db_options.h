// crawlrank/page_db_options.h: how a PageDb is opened (page_db.h): create or not, read
// only or writer, the durability of its commits, the upgrade of an older format, and the
// URL profile of a new DB. Every option with its default and its trade-off.
#ifndef CRAWLRANK_PAGE_DB_OPTIONS_H_
#define CRAWLRANK_PAGE_DB_OPTIONS_H_

#include <chrono>
#include <cstdint>

#include "crawlrank/url.h"

namespace crawlrank {

enum class Durability : uint8_t {
  // fsync at every commit: nothing reported done is lost even on power loss. Slowest for
  // many small writes (one fsync each).
  kSync,
  // Commits are not fsynced; a background thread fsyncs at most `sync_interval` after a
  // commit. An OS crash or power loss may lose the last interval of writes (and, on file
  // systems that reorder writes, LMDB warns it may damage the file).
  kPeriodic,
  // Never fsync (bulk loads you can redo). The OS writes back when it likes.
  kNone,
};

struct PageDbOptions {
  // Create the directory and an empty DB when `path` holds none. Default: true.
  bool create_if_missing = true;
  // Fail with AlreadyExists when a DB is already there. Default: false.
  bool error_if_exists = false;
  // Open for reading only: takes no writer lock, so it works beside a running writer.
  bool read_only = false;
  // Let a writer's open carry a DB of format version 2 to 9 over to the newest, in place,
  // in one transaction: it adds the tables the DB lacks (the scheduler's, the
  // configuration's, the creation times', which date the pages there from the upgrade,
  // the counters', counted from the pages and failures there: RebuildCrawlCounters in
  // docs/format.md; the shares', the latest fetches'), files each failure of a version 3
  // DB with its kind, and sets the version (versions 8 and 9 add schedule states that
  // older versions never wrote; version 10's histograms read as 0 from older values), and
  // nothing else, but older crawlrank releases can no longer open the DB. Without it, opening an older DB for
  // writing is FailedPrecondition naming page_db_upgrade (which sets it). Default: false.
  bool upgrade = false;
  // Size of the LMDB map when the DB is opened for writing. The map doubles whenever it
  // fills, so this only saves a few early resizes. The file grows with the data, not with
  // the map. Default: 256 MiB.
  uint64_t initial_map_size = uint64_t{256} << 20;
  // See Durability. Default: kPeriodic with a 1 s interval ("durable within a second").
  Durability durability = Durability::kPeriodic;
  std::chrono::milliseconds sync_interval{1000};
  // Tuning: the writer files new pages in the on-disk fingerprint table (which other
  // processes use to find a page by hash or URL) in one sorted pass once they number this
  // many, or a quarter of the pages filed already when that is more. Until then another
  // process finds them through a sorted list (16 bytes a page) that its snapshot builds,
  // on its first such look-up, from one scan of them. Default: 65536.
  uint32_t fingerprint_batch = 65536;
  // Canonicalisation profile of a new DB. An existing DB keeps the profile it was created
  // with (changing it would change every key); this field is then ignored.
  UrlProfile url_profile = UrlProfile::kRfc3986;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_PAGE_DB_OPTIONS_H_
