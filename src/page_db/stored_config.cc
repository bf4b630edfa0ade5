// The `config` table (format version 5): the crawl's stored configuration, read in a
// snapshot and replaced whole by the writer. The PageDB checks the form of the entries
// only; crawl_config.h gives them their meaning.
#include <string>
#include <string_view>

#include "crawlrank/page_db.h"
#include "page_db/lmdb_env.h"
#include "page_db/page_db_impl.h"
#include "page_db/write_txn.h"

namespace crawlrank {

namespace {

constexpr size_t kMaxConfigKeyBytes = 64;

// The reason an entry has the wrong form; empty when it is fine.
std::string ConfigEntryProblem(std::string_view key, std::string_view value) {
  if (key.empty() || key.size() > kMaxConfigKeyBytes) {
    return "a key is 1 to " + std::to_string(kMaxConfigKeyBytes) + " bytes";
  }
  for (const char c : key) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
      return "a key is made of a-z, 0-9 and _";
    }
  }
  if (value.size() > kMaxConfigValueBytes) {
    return "its value has " + std::to_string(value.size()) + " bytes, more than " +
           std::to_string(kMaxConfigValueBytes);
  }
  if (value.find('\0') != std::string_view::npos) return "its value holds a NUL byte";
  return {};
}

}  // namespace

Result<StoredConfig> Snapshot::Config() const {
  StoredConfig config;
  const PageDbImpl& db = *impl_->db;
  if (!db.has_config) return config;
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor,
                             lmdb::Cursor::Open(impl_->txn.get(), db.config, db.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    const std::string_view key = lmdb::View(k), value = lmdb::View(v);
    if (const std::string problem = ConfigEntryProblem(key, value); !problem.empty()) {
      return DataLossError("config table of " + db.Where() + ", key \"" + std::string(key) +
                           "\": " + problem);
    }
    config.emplace(key, value);
  }
  return config;
}

Result<StoredConfig> PageDb::ReadConfig() const {
  CRAWLRANK_ASSIGN_OR_RETURN(Snapshot snapshot, NewSnapshot());
  return snapshot.Config();
}

Status PageDb::WriteConfig(const StoredConfig& config) {
  for (const auto& [key, value] : config) {
    if (const std::string problem = ConfigEntryProblem(key, value); !problem.empty()) {
      return InvalidArgumentError("write the configuration of " + impl_->Where() + ", key \"" +
                                  key + "\": " + problem);
    }
  }
  return RunWrite(*impl_, nullptr, [&](WriteTxn& write) -> Status {
    const PageDbImpl& db = write.db();
    if (!db.has_config) {  // cannot be: a writer opens version 5 only
      return FailedPreconditionError(db.Where() + ": no config table");
    }
    CRAWLRANK_RETURN_IF_ERROR(write.Check(mdb_drop(write.txn(), db.config, 0), "clear config of"));
    for (const auto& [key, value] : config) {
      MDB_val k = lmdb::Val(key), v = lmdb::Val(value);
      CRAWLRANK_RETURN_IF_ERROR(write.Check(mdb_put(write.txn(), db.config, &k, &v, 0),
                                            "write config key \"" + key + "\" to"));
    }
    return Status::Ok();
  });
}

}  // namespace crawlrank
