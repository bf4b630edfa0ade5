#include "page_db/received_shares.h"

#include <cmath>
#include <cstring>

#include "base/coding.h"
#include "page_db/lmdb_env.h"
#include "page_db/write_txn.h"

namespace crawlrank {

using lmdb::View;

std::string EncodeReceivedShare(float share) {
  std::string out;
  coding::PutFloat(out, share);
  return out;
}

std::optional<float> DecodeReceivedShare(std::string_view value) {
  float share = 0;
  if (!coding::GetFloat(value, &share) || !value.empty() || !std::isfinite(share) || share < 0) {
    return std::nullopt;
  }
  return share;
}

Status WriteTxn::AddReceivedShare(uint32_t id, float share) {
  if (!db_.has_shares) return Status::Ok();
  char key[4];
  coding::EncodeBigEndian32(id, key);
  MDB_val k{sizeof key, key}, v;
  float sum = share;
  const int rc = mdb_get(txn(), db_.shares, &k, &v);
  if (rc == 0) {
    const std::optional<float> had = DecodeReceivedShare(View(v));
    if (!had.has_value()) {
      return DataLossError(db_.Where() + ": the share received by page " + std::to_string(id) +
                           " is damaged");
    }
    sum += *had;
  } else if (rc != MDB_NOTFOUND) {
    return Check(rc, "read a share received by page " + std::to_string(id) + " in");
  }
  const std::string value = EncodeReceivedShare(sum);
  v = lmdb::Val(value);
  return Check(mdb_put(txn(), db_.shares, &k, &v, 0), "write a received share to");
}

Status Snapshot::ForEachReceivedShare(const std::function<Status(uint32_t id, float share)>& fn) const {
  const PageDbImpl& db = *impl_->db;
  if (!db.has_shares) return Status::Ok();
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor,
                             lmdb::Cursor::Open(impl_->txn.get(), db.shares, db.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    const std::optional<float> share = DecodeReceivedShare(View(v));
    if (k.mv_size != 4 || !share.has_value()) {
      return DataLossError(db.Where() + ": an entry of the shares table is damaged");
    }
    CRAWLRANK_RETURN_IF_ERROR(fn(coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data)), *share));
  }
  return Status::Ok();
}

Status CheckReceivedShares(const PageDbImpl& db, MDB_txn* txn, uint64_t pages) {
  if (!db.has_shares) return Status::Ok();
  const auto StoredDataError = [&db](const std::string&, const std::string& what) {
    return DataLossError("check " + db.Where() + ": " + what);
  };
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(txn, db.shares, db.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return StoredDataError(db.path, "a shares key is damaged");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    if (!DecodeReceivedShare(View(v)).has_value()) {
      return StoredDataError(db.path, "the share received by page " + std::to_string(id) +
                                          " is damaged");
    }
    if (id >= pages) {
      return StoredDataError(db.path, "a share received by page " + std::to_string(id) +
                                          ", beyond the last id");
    }
  }
  return Status::Ok();
}

}  // namespace crawlrank
