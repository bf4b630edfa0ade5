// PageDb::Check and PageDb::Info: whole-DB verification and facts.
#include <sys/stat.h>

#include "coding.h"
#include "crawlrank/page_db.h"
#include "page_db_impl.h"
#include "page_record.h"

namespace crawlrank {

Status PageDb::Check() const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewSnapshot());
  const PageDbCounters& counters = snapshot.counters();
  const std::string& path = impl_->path;
  auto broken = [&path](const std::string& what) {
    return DataLossError("check PageDB \"" + path + "\": " + what);
  };

  uint64_t pages = 0, crawled = 0;
  CRAWLRANK_RETURN_IF_ERROR(snapshot.ForEachPage([&](const PageRecord& record) -> Status {
    if (record.id != pages) {
      return broken("ids are not dense: id " + std::to_string(record.id) + " follows " +
                    std::to_string(pages) + " pages");
    }
    if (UrlFingerprint(record.url) != record.fingerprint) {
      return broken("page " + std::to_string(record.id) + " (\"" + record.url +
                    "\") is stored under fingerprint " + FormatFingerprint(record.fingerprint) +
                    ", not its own");
    }
    ++pages;
    if (record.crawled()) ++crawled;
    return Status::Ok();
  }));
  MDB_stat stat;
  if (mdb_stat(snapshot.impl_->txn.get(), impl_->pages, &stat) != 0 ||
      stat.ms_entries != pages) {
    return broken("the pages table holds " + std::to_string(stat.ms_entries) +
                  " records but ids lists " + std::to_string(pages));
  }
  if (pages != counters.pages || crawled != counters.crawled_pages) {
    return broken("header counts " + std::to_string(counters.pages) + " pages (" +
                  std::to_string(counters.crawled_pages) + " crawled), found " +
                  std::to_string(pages) + " (" + std::to_string(crawled) + ")");
  }
  uint64_t edges = 0;
  EdgeCursor cursor = snapshot.Edges();
  for (; cursor.Valid(); cursor.Next()) {
    if (cursor.source() >= pages) {
      return broken("links stored for page " + std::to_string(cursor.source()) +
                    ", beyond the last id");
    }
    for (uint32_t target : cursor.targets()) {
      if (target >= pages) {
        return broken("page " + std::to_string(cursor.source()) + " links to id " +
                      std::to_string(target) + ", beyond the last id");
      }
    }
    edges += cursor.targets().size();
  }
  CRAWLRANK_RETURN_IF_ERROR(cursor.status());
  if (edges != counters.edges) {
    return broken("header counts " + std::to_string(counters.edges) + " links, found " +
                  std::to_string(edges));
  }
  return Status::Ok();
}

Result<PageDbInfo> PageDb::Info() const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewSnapshot());
  PageDbInfo info;
  info.path = impl_->path;
  info.format_version = kPageDbFormatVersion;
  info.url_profile = impl_->profile;
  info.hash = std::string(kHashValue);
  info.created_ms = impl_->created_ms;
  info.counters = snapshot.counters();
  MDB_envinfo env;
  if (mdb_env_info(impl_->env.get(), &env) == 0) info.map_size = env.me_mapsize;
  struct stat st;
  if (::stat((impl_->path + "/data.mdb").c_str(), &st) == 0) {
    info.file_bytes = static_cast<uint64_t>(st.st_size);
  }
  auto table_bytes = [&](MDB_dbi dbi) -> uint64_t {
    MDB_stat s;
    if (mdb_stat(snapshot.impl_->txn.get(), dbi, &s) != 0) return 0;
    return uint64_t{s.ms_psize} * (s.ms_branch_pages + s.ms_leaf_pages + s.ms_overflow_pages);
  };
  info.links_bytes = table_bytes(impl_->links);
  info.pages_bytes = table_bytes(impl_->pages);
  return info;
}

}  // namespace crawlrank
