// Snapshot's link streams: EdgeCursor (Edges) and ScanEdges, both over one cursor walk of
// the `links` table that decodes a block per step. The salvage variant of Edges goes past
// a block that does not decode instead of stopping there.
#include <algorithm>
#include <utility>

#include "base/coding.h"
#include "crawlrank/page_db.h"
#include "page_db/link_block.h"
#include "page_db/page_db_impl.h"

namespace crawlrank {

using lmdb::View;

struct EdgeCursor::Impl {
  lmdb::Cursor cursor;
  std::string path;
  uint32_t pages = 0;   // of the snapshot: every target must be below
  EdgeChunk block;      // the current block, decoded
  std::string scratch;  // of the block decoder
  size_t entry = 0;     // current source in `block`
  DamageSink damaged;   // set: skip a block that does not decode, after telling it
};

EdgeCursor::EdgeCursor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
EdgeCursor::EdgeCursor(EdgeCursor&&) noexcept = default;
EdgeCursor& EdgeCursor::operator=(EdgeCursor&&) noexcept = default;
EdgeCursor::~EdgeCursor() = default;

EdgeCursor Snapshot::Edges() const {
  return Edges(nullptr);
}

EdgeCursor Snapshot::Edges(const DamageSink& damaged) const {
  auto cursor = lmdb::Cursor::Open(impl_->txn.get(), impl_->db->links, impl_->db->path);
  if (!cursor.ok()) {
    EdgeCursor failed(nullptr);
    failed.status_ = cursor.status();
    return failed;
  }
  auto impl = std::make_unique<EdgeCursor::Impl>();
  impl->cursor = std::move(cursor).value();
  impl->path = impl_->db->path;
  impl->pages = static_cast<uint32_t>(impl_->pages);
  impl->damaged = damaged;
  EdgeCursor edges(std::move(impl));
  edges.Load(MDB_FIRST);
  return edges;
}

namespace {

// How a step of the walk over the `links` table ended.
enum class BlockRead : uint8_t {
  kAppended,  // a block was decoded and appended
  kEnd,       // the table has no more blocks
  kDamaged,   // the block under the cursor does not decode: `status` says why
  kFailed,    // LMDB failed, or a key names no block: `status` says why
};

// Reads the block under `cursor` (after moving it by `op`) and appends it to `chunk`,
// checking that every source and target is a page of the snapshot (`pages` of them).
// `block` is the key read; on kDamaged the chunk may hold part of the block.
BlockRead AppendNextBlock(MDB_cursor* cursor, MDB_cursor_op op, const std::string& path,
                          uint32_t pages, EdgeChunk* chunk, std::string& scratch, uint32_t* block,
                          Status* status) {
  MDB_val k, v;
  const int rc = mdb_cursor_get(cursor, &k, &v, op);
  if (rc == MDB_NOTFOUND) return BlockRead::kEnd;
  if (rc != 0) {
    *status = lmdb::Error(rc, "iterate links of", path);
    return BlockRead::kFailed;
  }
  if (k.mv_size != 4) {
    *status = DataLossError("links table of \"" + path + "\": key of wrong size");
    return BlockRead::kFailed;
  }
  *block = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
  const size_t first_source = chunk->sources.size();
  if (Status decoded = AppendLinkBlock(*block, View(v), chunk, scratch); !decoded.ok()) {
    *status = decoded.WithContext(PageDbName(path));  // built only on failure
    return BlockRead::kDamaged;
  }
  // A committed block only names pages committed with it, so a snapshot sees them all.
  // A decoded list strictly increases, so its last target is its largest.
  uint32_t max_id = 0;
  for (size_t i = first_source; i < chunk->sources.size(); ++i) {
    max_id = std::max({max_id, chunk->sources[i], chunk->targets[chunk->ends[i] - 1]});
  }
  if (chunk->sources.size() > first_source && max_id >= pages) {
    *status = DataLossError("links table of \"" + path + "\": block " + std::to_string(*block) +
                            " links page ids past the " + std::to_string(pages) + " pages");
    return BlockRead::kDamaged;
  }
  return BlockRead::kAppended;
}

}  // namespace

void EdgeCursor::Load(int op) {
  Impl& impl = *impl_;
  for (;;) {
    impl.block.Clear();
    impl.entry = 0;
    uint32_t block = 0;
    // A block that decodes holds at least one source: an empty value is damaged.
    const BlockRead read =
        AppendNextBlock(impl.cursor.get(), static_cast<MDB_cursor_op>(op), impl.path, impl.pages,
                        &impl.block, impl.scratch, &block, &status_);
    if (read == BlockRead::kDamaged && impl.damaged) {
      status_ = impl.damaged(DamagedEntry{"links", block, std::exchange(status_, Status::Ok())});
      if (status_.ok()) {
        op = MDB_NEXT;
        continue;
      }
    }
    valid_ = read == BlockRead::kAppended;
    break;
  }
  if (!valid_) {
    targets_ = {};
    return;
  }
  source_ = impl.block.sources[0];
  targets_ = impl.block.TargetsOf(0);
}

void EdgeCursor::Next() {
  Impl& impl = *impl_;
  if (++impl.entry == impl.block.size()) {
    Load(MDB_NEXT);
    return;
  }
  source_ = impl.block.sources[impl.entry];
  targets_ = impl.block.TargetsOf(impl.entry);
}

Status Snapshot::ScanEdges(const EdgeChunkSink& sink) const {
  const PageDbImpl& db = *impl_->db;
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor,
                             lmdb::Cursor::Open(impl_->txn.get(), db.links, db.path));
  const auto pages = static_cast<uint32_t>(impl_->pages);
  constexpr size_t kChunkTargets = size_t{1} << 16;  // about 256 KiB: stays in L2
  EdgeChunk chunk;
  Status status;
  MDB_cursor_op op = MDB_FIRST;
  std::string scratch;
  uint32_t block = 0;
  while (AppendNextBlock(cursor.get(), op, db.path, pages, &chunk, scratch, &block, &status) ==
         BlockRead::kAppended) {
    op = MDB_NEXT;
    if (chunk.targets.size() >= kChunkTargets) {
      CRAWLRANK_RETURN_IF_ERROR(sink(chunk));
      chunk.Clear();
    }
  }
  CRAWLRANK_RETURN_IF_ERROR(status);
  if (chunk.size() > 0) CRAWLRANK_RETURN_IF_ERROR(sink(chunk));
  return Status::Ok();
}

}  // namespace crawlrank
