#include "page_db/recent_fetches.h"

#include <algorithm>
#include <functional>

#include "base/coding.h"
#include "crawlrank/page_db.h"
#include "page_db/crawl_counters.h"
#include "page_db/lmdb_env.h"
#include "page_db/write_txn.h"

namespace crawlrank {

using lmdb::Val;
using lmdb::View;

namespace {
constexpr uint8_t kFailedFlag = 1;
}  // namespace

uint32_t RecentSlot(uint64_t seq) { return static_cast<uint32_t>((seq - 1) % kRecentFetches); }

void EncodeRecentFetch(const RecentFetch& e, std::string* out) {
  coding::PutVarint64(*out, e.seq);
  out->push_back(static_cast<char>(e.failed ? kFailedFlag : 0));
  coding::PutVarint64(*out, e.failed ? static_cast<uint64_t>(e.kind) : 0);
  coding::PutVarint64(*out, static_cast<uint64_t>(std::clamp<int64_t>(e.time_ms, 0, kMaxCrawlTimeMs)));
  coding::PutVarint32(*out, e.page);
  coding::PutVarint32(*out, e.http_status);
  coding::PutVarint64(*out, e.wire_bytes);
  coding::PutVarint64(*out, e.decoded_bytes);
  coding::PutVarint32(*out, e.fetch_ms);
  const std::string_view type = CutUtf8(e.content_type, kMaxContentTypeBytes);
  coding::PutVarint64(*out, type.size());
  out->append(type);
}

bool DecodeRecentFetch(std::string_view key, std::string_view value, RecentFetch* entry) {
  RecentFetch e;
  if (key.size() != 4 || !coding::GetVarint64(value, &e.seq) || e.seq == 0 ||
      RecentSlot(e.seq) != coding::DecodeBigEndian32(key.data()) || value.empty()) {
    return false;
  }
  const uint8_t flags = static_cast<uint8_t>(value[0]);
  value.remove_prefix(1);
  uint64_t kind = 0, time = 0, type_size = 0;
  uint32_t status = 0;
  if ((flags & ~kFailedFlag) != 0 || !coding::GetVarint64(value, &kind) ||
      kind > kMaxFailureKind || !coding::GetVarint64(value, &time) ||
      time > static_cast<uint64_t>(kMaxCrawlTimeMs) || !coding::GetVarint32(value, &e.page) ||
      !coding::GetVarint32(value, &status) || status > UINT16_MAX ||
      !coding::GetVarint64(value, &e.wire_bytes) || !coding::GetVarint64(value, &e.decoded_bytes) ||
      !coding::GetVarint32(value, &e.fetch_ms) || !coding::GetVarint64(value, &type_size) ||
      type_size != value.size() || type_size > kMaxContentTypeBytes) {
    return false;
  }
  e.failed = (flags & kFailedFlag) != 0;
  if (!e.failed && kind != 0) return false;
  e.kind = static_cast<FailureKind>(kind);
  e.time_ms = static_cast<int64_t>(time);
  e.http_status = static_cast<uint16_t>(status);
  e.content_type.assign(value);
  *entry = std::move(e);
  return true;
}

namespace {

// Every entry of the ring, in slot order; DataLoss naming the slot of one that is damaged.
Status ForEachRecent(const PageDbImpl& db, MDB_txn* txn,
                     const std::function<Status(RecentFetch&)>& fn) {
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(txn, db.recent, db.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    RecentFetch e;
    if (!DecodeRecentFetch(View(k), View(v), &e)) {
      const std::string slot =
          k.mv_size == 4 ? std::to_string(coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data)))
                         : "with a key of " + std::to_string(k.mv_size) + " bytes";
      return DataLossError(db.Where() + ": the latest fetches' slot " + slot + " is damaged");
    }
    CRAWLRANK_RETURN_IF_ERROR(fn(e));
  }
  return Status::Ok();
}

}  // namespace

Status LoadRecentSeq(PageDbImpl& db, MDB_txn* txn) {
  db.writer.next_recent_seq = 1;
  if (!db.has_recent) return Status::Ok();
  return ForEachRecent(db, txn, [&db](RecentFetch& e) {
    db.writer.next_recent_seq = std::max(db.writer.next_recent_seq, e.seq + 1);
    return Status::Ok();
  });
}

Status WriteRecentFetches(WriteTxn& write, std::span<RecentFetch> entries) {
  PageDbImpl& db = write.db();
  if (!db.has_recent || entries.empty()) return Status::Ok();
  const uint64_t first = db.writer.next_recent_seq;
  db.writer.next_recent_seq += entries.size();
  const size_t skip = entries.size() > kRecentFetches ? entries.size() - kRecentFetches : 0;
  std::string value;
  for (size_t i = skip; i < entries.size(); ++i) {
    RecentFetch& e = entries[i];
    e.seq = first + i;
    value.clear();
    EncodeRecentFetch(e, &value);
    Key32 key(RecentSlot(e.seq));
    MDB_val k = key.val(), v = Val(value);
    CRAWLRANK_RETURN_IF_ERROR(
        write.Check(mdb_put(write.txn(), db.recent, &k, &v, 0), "write the latest fetches to"));
  }
  return Status::Ok();
}

Status CheckRecentFetches(const PageDbImpl& db, MDB_txn* txn, uint64_t pages) {
  if (!db.has_recent) return Status::Ok();
  return ForEachRecent(db, txn, [&](RecentFetch& e) {
    if (e.page >= pages) {
      return DataLossError("check " + db.Where() + ": recent fetch " + std::to_string(e.seq) +
                           " names page " + std::to_string(e.page) + ", beyond the last id");
    }
    return Status::Ok();
  });
}

Result<std::vector<RecentFetch>> Snapshot::RecentFetches(uint64_t after_seq, size_t max) const {
  const PageDbImpl& db = *impl_->db;
  std::vector<RecentFetch> out;
  if (!db.has_recent || max == 0) return out;
  CRAWLRANK_RETURN_IF_ERROR(ForEachRecent(db, impl_->txn.get(), [&](RecentFetch& e) {
    if (e.seq > after_seq) out.push_back(std::move(e));
    return Status::Ok();
  }));
  std::sort(out.begin(), out.end(),
            [](const RecentFetch& a, const RecentFetch& b) { return a.seq > b.seq; });
  if (out.size() > max) out.resize(max);
  return out;
}

}  // namespace crawlrank
