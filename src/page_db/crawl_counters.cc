#include "page_db/crawl_counters.h"

#include <algorithm>
#include <numeric>

#include "base/coding.h"
#include "crawlrank/url.h"
#include "page_db/page_record.h"
#include "page_db/schedule_table.h"
#include "page_db/write_txn.h"

namespace crawlrank {

using lmdb::Val;
using lmdb::View;

StatusClass StatusClassOf(uint16_t http_status) {
  if (http_status < 100 || http_status >= 600) return StatusClass::kNone;
  return static_cast<StatusClass>(http_status / 100);
}

std::string_view StatusClassName(StatusClass status_class) {
  static constexpr std::string_view kNames[kStatusClasses] = {"none", "1xx", "2xx",
                                                              "3xx",  "4xx", "5xx"};
  return kNames[static_cast<size_t>(status_class)];
}

uint64_t CrawlCounters::fetches_total() const {
  return std::accumulate(fetches.begin(), fetches.end(), uint64_t{0});
}

uint64_t CrawlCounters::observed_fetches() const {
  return std::accumulate(fetch_ms_buckets.begin(), fetch_ms_buckets.end(), uint64_t{0});
}

size_t FetchMsBucket(uint64_t fetch_ms) {
  return static_cast<size_t>(std::lower_bound(kFetchMsBounds.begin(), kFetchMsBounds.end(),
                                              fetch_ms) -
                             kFetchMsBounds.begin());
}

size_t WireBytesBucket(uint64_t wire_bytes) {
  return static_cast<size_t>(std::lower_bound(kWireBytesBounds.begin(), kWireBytesBounds.end(),
                                              wire_bytes) -
                             kWireBytesBounds.begin());
}

uint64_t CrawlCounters::failures_total() const {
  return std::accumulate(failures.begin(), failures.end(), uint64_t{0});
}

namespace {

using Fields = std::array<uint64_t, counter_field::kCount>;

Fields ToFields(const CrawlCounters& c) {
  namespace f = counter_field;
  Fields out{};
  out[f::kPages] = c.pages;
  out[f::kCrawledPages] = c.crawled_pages;
  out[f::kFailedPages] = c.failed_pages;
  for (size_t i = 0; i < kStatusClasses; ++i) out[f::kFetches + i] = c.fetches[i];
  for (size_t i = 0; i <= kMaxFailureKind; ++i) out[f::kFailures + i] = c.failures[i];
  out[f::kWireBytes] = c.wire_bytes;
  out[f::kDecodedBytes] = c.decoded_bytes;
  out[f::kFetchMs] = c.fetch_ms;
  out[f::kGhostPages] = c.ghost_pages;
  std::copy(c.fetch_ms_buckets.begin(), c.fetch_ms_buckets.end(), &out[f::kFetchMsHistogram]);
  std::copy(c.wire_bytes_buckets.begin(), c.wire_bytes_buckets.end(), &out[f::kWireBytesHistogram]);
  return out;
}

CrawlCounters FromFields(const Fields& in) {
  namespace f = counter_field;
  CrawlCounters c;
  c.pages = in[f::kPages];
  c.crawled_pages = in[f::kCrawledPages];
  c.failed_pages = in[f::kFailedPages];
  for (size_t i = 0; i < kStatusClasses; ++i) c.fetches[i] = in[f::kFetches + i];
  for (size_t i = 0; i <= kMaxFailureKind; ++i) c.failures[i] = in[f::kFailures + i];
  c.wire_bytes = in[f::kWireBytes];
  c.decoded_bytes = in[f::kDecodedBytes];
  c.fetch_ms = in[f::kFetchMs];
  c.ghost_pages = in[f::kGhostPages];
  std::copy_n(&in[f::kFetchMsHistogram], kFetchMsBuckets, c.fetch_ms_buckets.begin());
  std::copy_n(&in[f::kWireBytesHistogram], kWireBytesBuckets, c.wire_bytes_buckets.begin());
  return c;
}

constexpr uint8_t kCountersVersion = 1;

bool GetText(std::string_view& in, std::string* out) {
  uint64_t n = 0;
  if (!coding::GetVarint64(in, &n) || n > in.size()) return false;
  out->assign(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

void PutText(std::string& out, std::string_view text) {
  coding::PutVarint64(out, text.size());
  out.append(text);
}

}  // namespace

std::string_view CounterHostView(std::string_view url) {
  // HostKey(url, kHost), without a copy, in one pass over the authority: it runs for every
  // page a transaction creates.
  const size_t colon = url.find(':');
  if (colon == std::string_view::npos || url.size() < colon + 3 || url[colon + 1] != '/' ||
      url[colon + 2] != '/') {
    return kNoHostKey;
  }
  const char* const begin = url.data() + colon + 3;
  const char* const end = url.data() + url.size();
  const char* host = begin;
  const char* port = nullptr;  // the first ':' after the last '@', outside brackets
  bool bracket = false;
  const char* p = begin;
  for (; p < end; ++p) {
    const char c = *p;
    if (c == '/' || c == '?' || c == '#') break;
    if (c == '@') {
      host = p + 1;
      port = nullptr;
      bracket = false;
    } else if (c == '[' && p == host) {
      bracket = true;
    } else if (c == ']') {
      bracket = false;
    } else if (c == ':' && !bracket && port == nullptr) {
      port = p;
    }
  }
  const char* stop = port != nullptr ? port : p;
  if (stop <= host) return kNoHostKey;
  return std::string_view(host, static_cast<size_t>(stop - host));
}

void EncodeCrawlCounters(const CrawlCounters& counters, std::string* out) {
  out->push_back(static_cast<char>(kCountersVersion));
  coding::PutVarint64(*out, counter_field::kCount);
  for (uint64_t v : ToFields(counters)) coding::PutVarint64(*out, v);
}

bool DecodeCrawlCounters(std::string_view value, CrawlCounters* counters) {
  uint64_t n = 0;
  if (value.empty() || static_cast<uint8_t>(value[0]) != kCountersVersion) return false;
  value.remove_prefix(1);
  // Format version 8 and older stored every field before the ghosts, version 9 those
  // before the histograms.
  if (!coding::GetVarint64(value, &n) ||
      (n != counter_field::kCount && n != counter_field::kGhostPages &&
       n != counter_field::kFetchMsHistogram)) {
    return false;
  }
  Fields fields{};
  for (size_t i = 0; i < n; ++i) {
    if (!coding::GetVarint64(value, &fields[i])) return false;
  }
  if (!value.empty()) return false;
  *counters = FromFields(fields);
  return true;
}

std::string_view CutUtf8(std::string_view text, size_t max) {
  if (text.size() <= max) return text;
  size_t end = max;
  // Back off continuation bytes (10xxxxxx) to the start of the sequence they belong to,
  // and drop that start too: the sequence does not fit.
  while (end > 0 && (static_cast<uint8_t>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

void EncodeFetchInfo(const FetchInfo& info, std::string* out) {
  PutText(*out, CutUtf8(info.content_type, kMaxContentTypeBytes));
  coding::PutVarint64(*out, info.wire_bytes);
  coding::PutVarint64(*out, info.decoded_bytes);
  coding::PutVarint32(*out, info.fetch_ms);
  PutText(*out, CutUtf8(info.title, kMaxTitleBytes));
}

bool DecodeFetchInfo(std::string_view value, FetchInfo* info) {
  FetchInfo out;
  if (!GetText(value, &out.content_type) || out.content_type.size() > kMaxContentTypeBytes ||
      !coding::GetVarint64(value, &out.wire_bytes) ||
      !coding::GetVarint64(value, &out.decoded_bytes) ||
      !coding::GetVarint32(value, &out.fetch_ms) || !GetText(value, &out.title) ||
      out.title.size() > kMaxTitleBytes || !value.empty()) {
    return false;
  }
  *info = std::move(out);
  return true;
}

void EncodeProgressSample(const ProgressSample& s, std::string* out) {
  for (uint64_t v : {s.crawled_pages, s.fetches, s.failures, s.wire_bytes, s.queued, s.in_flight})
    coding::PutVarint64(*out, v);
}

bool DecodeProgressSample(std::string_view key, std::string_view value, ProgressSample* sample) {
  if (key.size() != 8) return false;
  ProgressSample s;
  const uint64_t ms = coding::DecodeBigEndian64(key.data());
  if (ms > static_cast<uint64_t>(kMaxCrawlTimeMs)) return false;
  s.time_ms = static_cast<int64_t>(ms);
  for (uint64_t* v : {&s.crawled_pages, &s.fetches, &s.failures, &s.wire_bytes, &s.queued,
                      &s.in_flight}) {
    if (!coding::GetVarint64(value, v)) return false;
  }
  if (!value.empty()) return false;
  *sample = s;
  return true;
}

// ---- CounterDeltas

void CounterDeltas::Add(std::string_view host, size_t field, int64_t delta) {
  AddToHost(host, field, delta);
  global_[field] += delta;
}

void CounterDeltas::AddToHost(std::string_view host, size_t field, int64_t delta) {
  auto it = hosts_.find(host);
  if (it == hosts_.end()) it = hosts_.emplace(std::string(host), Fields{}).first;
  it->second[field] += delta;
}

void CounterDeltas::AddFetch(std::string_view host, uint16_t status, const FetchInfo& info) {
  namespace f = counter_field;
  auto it = hosts_.find(host);
  if (it == hosts_.end()) it = hosts_.emplace(std::string(host), Fields{}).first;
  for (Fields* fields : {&it->second, &global_}) {
    ++(*fields)[f::kFetches + static_cast<size_t>(StatusClassOf(status))];
    (*fields)[f::kWireBytes] += static_cast<int64_t>(info.wire_bytes);
    (*fields)[f::kDecodedBytes] += static_cast<int64_t>(info.decoded_bytes);
    (*fields)[f::kFetchMs] += info.fetch_ms;
    if (!info.empty()) {
      ++(*fields)[f::kFetchMsHistogram + FetchMsBucket(info.fetch_ms)];
      ++(*fields)[f::kWireBytesHistogram + WireBytesBucket(info.wire_bytes)];
    }
  }
}

void ApplyDelta(const CounterDeltas::Fields& delta, CrawlCounters* counters) {
  Fields fields = ToFields(*counters);
  for (size_t i = 0; i < fields.size(); ++i) {
    const int64_t d = delta[i];
    fields[i] = d >= 0 ? fields[i] + static_cast<uint64_t>(d)
                       : fields[i] - std::min(fields[i], static_cast<uint64_t>(-d));
  }
  *counters = FromFields(fields);
}

// ---- the writer

Result<uint64_t> ReadHostPagesCounted(const PageDbImpl& db, MDB_txn* txn);

Status LoadCrawlCounters(PageDbImpl& db, MDB_txn* txn) {
  db.writer.crawl = CrawlCounters();
  if (!db.has_counters) return Status::Ok();
  MDB_val k = Val(kMetaCrawlCounters), v;
  const int rc = mdb_get(txn, db.meta, &k, &v);
  if (rc != 0 && rc != MDB_NOTFOUND) return lmdb::Error(rc, "read the crawl's counters of", db.path);
  if (rc == 0 && !DecodeCrawlCounters(View(v), &db.writer.crawl)) {
    return DataLossError(db.Where() + ": the crawl's counters (meta \"crawl_counters\") are damaged");
  }
  db.writer.crawl.pages = db.writer.counters.pages;
  // The pages a writer created after its last count by host (it stopped before the next).
  db.pending_host_pages.clear();
  CRAWLRANK_ASSIGN_OR_RETURN(db.writer.host_pages_counted, ReadHostPagesCounted(db, txn));
  db.writer.last_host_flush_ms = UnixNowMs();
  if (db.writer.host_pages_counted >= db.writer.counters.pages) return Status::Ok();
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor pages, lmdb::Cursor::Open(txn, db.pages, db.path));
  Key32 first(static_cast<uint32_t>(db.writer.host_pages_counted));
  pages.StartAt(first.val());
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, pages.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return DataLossError(db.Where() + ": a pages key is damaged");
    PageRecord record;
    CRAWLRANK_RETURN_IF_ERROR(
        DecodePageRecord(coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data)), View(v),
                         &record)
            .WithContext(db.Where()));
    ++db.pending_host_pages[CounterHostOf(record.url)];
  }
  return Status::Ok();
}

Result<uint64_t> ReadHostPagesCounted(const PageDbImpl& db, MDB_txn* txn) {
  MDB_val k = Val(kMetaHostPagesCounted), v;
  const int rc = mdb_get(txn, db.meta, &k, &v);
  if (rc == MDB_NOTFOUND) return uint64_t{0};
  if (rc != 0) return lmdb::Error(rc, "read the pages counted by host of", db.path);
  std::string_view value = View(v);
  uint64_t n = 0;
  if (!coding::GetFixed64(value, &n) || !value.empty()) {
    return DataLossError(db.Where() + ": meta \"host_pages_counted\" is damaged");
  }
  return n;
}

Status LoadLastProgress(PageDbImpl& db, MDB_txn* txn) {
  db.writer.last_progress_ms = -1;
  if (!db.has_counters) return Status::Ok();
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor, lmdb::Cursor::Open(txn, db.progress, db.path));
  MDB_val k, v;
  const int rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_LAST);
  if (rc == MDB_NOTFOUND) return Status::Ok();
  if (rc != 0) return lmdb::Error(rc, "read the last progress sample of", db.path);
  ProgressSample sample;
  if (!DecodeProgressSample(View(k), View(v), &sample)) {
    return DataLossError(db.Where() + ": the last progress sample is damaged");
  }
  db.writer.last_progress_ms = sample.time_ms;
  return Status::Ok();
}

void WriteTxn::CountCreatedPages() {
  if (!db_.has_counters) return;
  auto& pending = db_.pending_host_pages;
  std::string_view last_host;
  int64_t* count = nullptr;
  for (const PageRecord& record : pages_.created()) {
    // A page's links mostly share a host: look up once a run.
    const std::string_view host = CounterHostView(record.url);
    if (count == nullptr || host != last_host) {
      auto it = pending.find(host);
      if (it == pending.end()) it = pending.emplace(std::string(host), 0).first;
      count = &it->second;
      last_host = host;
    }
    ++*count;
  }
  counted_created_ = true;
  const int64_t now = UnixNowMs();
  if (pending.empty() ||
      !(force_host_flush_ || now - db_.writer.last_host_flush_ms >= kHostPagesFlushMs ||
        now < db_.writer.last_host_flush_ms || pending.size() >= (size_t{1} << 16))) {
    return;
  }
  flushed_.assign(std::make_move_iterator(pending.begin()), std::make_move_iterator(pending.end()));
  pending.clear();
  for (const auto& [h, n] : flushed_) counter_deltas_.AddToHost(h, counter_field::kPages, n);
  db_.writer.host_pages_counted = db_.writer.counters.pages;
  db_.writer.last_host_flush_ms = now;
  host_flush_ = true;
}

void WriteTxn::UncountCreatedPages() {
  auto& pending = db_.pending_host_pages;
  for (auto& [host, n] : flushed_) pending[host] += n;
  flushed_.clear();
  if (!counted_created_) return;
  for (const PageRecord& record : pages_.created()) {
    const auto it = pending.find(CounterHostView(record.url));
    if (it != pending.end() && --it->second == 0) pending.erase(it);
  }
  counted_created_ = false;
}

Status WriteTxn::WriteCounters() {
  if (!db_.has_counters) return Status::Ok();
  std::string value;
  db_.writer.crawl.pages = db_.writer.counters.pages;
  if (host_flush_) {
    const std::string counted = Fixed64Value(db_.writer.host_pages_counted);
    MDB_val k = Val(kMetaHostPagesCounted), v = Val(counted);
    CRAWLRANK_RETURN_IF_ERROR(Check(mdb_put(txn(), db_.meta, &k, &v, 0), "write meta to"));
  }
  for (const auto& [host, delta] : counter_deltas_.hosts()) {
    MDB_val k = Val(host), v;
    CrawlCounters counters;
    const int rc = mdb_get(txn(), db_.counters, &k, &v);
    if (rc == 0) {
      if (!DecodeCrawlCounters(View(v), &counters)) {
        return DataLossError(db_.Where() + ": the counters of host \"" + host + "\" are damaged");
      }
    } else if (rc != MDB_NOTFOUND) {
      return Check(rc, "read the counters of host \"" + host + "\" in");
    }
    ApplyDelta(delta, &counters);
    value.clear();
    EncodeCrawlCounters(counters, &value);
    v = Val(value);
    CRAWLRANK_RETURN_IF_ERROR(Check(mdb_put(txn(), db_.counters, &k, &v, 0), "write counters to"));
  }
  if (!counter_deltas_.empty()) ApplyDelta(counter_deltas_.global(), &db_.writer.crawl);
  if (!counter_deltas_.empty() || progress_.has_value() || !pages_.created().empty()) {
    value.clear();
    EncodeCrawlCounters(db_.writer.crawl, &value);
    MDB_val k = Val(kMetaCrawlCounters), v = Val(value);
    CRAWLRANK_RETURN_IF_ERROR(Check(mdb_put(txn(), db_.meta, &k, &v, 0), "write counters to"));
  }
  if (progress_.has_value()) {
    const CrawlCounters& crawl = db_.writer.crawl;
    ProgressSample sample = *progress_;
    sample.crawled_pages = crawl.crawled_pages;
    sample.fetches = crawl.fetches_total();
    sample.failures = crawl.failures_total();
    sample.wire_bytes = crawl.wire_bytes;
    value.clear();
    EncodeProgressSample(sample, &value);
    Key64 key(static_cast<uint64_t>(std::clamp<int64_t>(sample.time_ms, 0, kMaxCrawlTimeMs)));
    MDB_val k = key.val(), v = Val(value);
    CRAWLRANK_RETURN_IF_ERROR(
        Check(mdb_put(txn(), db_.progress, &k, &v, 0), "write a progress sample to"));
    db_.writer.last_progress_ms = sample.time_ms;
  }
  return Status::Ok();
}

Status WriteTxn::PutFetchInfo(uint32_t id, const FetchInfo& info) {
  if (!db_.has_counters || info.empty()) return Status::Ok();
  std::string value;
  EncodeFetchInfo(info, &value);
  Key32 key(id);
  MDB_val k = key.val(), v = Val(value);
  return Check(mdb_put(txn(), db_.fetches, &k, &v, 0), "write the fetch of page " +
                                                           std::to_string(id) + " to");
}

// ---- recounts: the upgrade and the check

namespace {

// The page counts of each host and of the whole crawl, as the pages and the schedule
// hold them; with `crawls`, also the fetches and failures an upgrade files.
struct Recount {
  std::map<std::string, CrawlCounters, std::less<>> hosts;
  CrawlCounters global;
};

Status RecountStored(const PageDbImpl& db, MDB_txn* txn, bool crawls, Recount* out,
                     uint64_t host_pages_below = UINT64_MAX) {
  std::vector<uint32_t> host_of;  // by page id: index into `names`
  std::vector<CrawlCounters*> names;
  std::map<std::string, CrawlCounters, std::less<>>& hosts = out->hosts;
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor pages, lmdb::Cursor::Open(txn, db.pages, db.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, pages.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return DataLossError(db.Where() + ": a pages key is damaged");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    PageRecord record;
    CRAWLRANK_RETURN_IF_ERROR(DecodePageRecord(id, View(v), &record).WithContext(db.Where()));
    CrawlCounters& host = hosts[CounterHostOf(record.url)];
    if (id >= host_of.size()) host_of.resize(id + 1, UINT32_MAX);
    host_of[id] = static_cast<uint32_t>(names.size());
    names.push_back(&host);  // map nodes do not move
    ++out->global.pages;
    if (id < host_pages_below) ++host.pages;  // newer pages are not in their hosts' yet
    for (CrawlCounters* c : {&host, &out->global}) {
      if (record.crawled()) ++c->crawled_pages;
      if (crawls) c->fetches[static_cast<size_t>(StatusClassOf(record.http_status))] += record.n_crawls;
    }
  }
  if (!db.has_schedule) return Status::Ok();
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor schedule, lmdb::Cursor::Open(txn, db.schedule, db.path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, schedule.Next(&k, &v));
    if (!more) break;
    if (k.mv_size != 4) return DataLossError(db.Where() + ": a schedule key is damaged");
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    ScheduleEntry entry;
    CRAWLRANK_RETURN_IF_ERROR(DecodeScheduleEntry(id, View(v), &entry, db.format_version));
    if (entry.state != EntryState::kFailed && entry.state != EntryState::kElsewhere) continue;
    if (id >= host_of.size() || host_of[id] == UINT32_MAX) {
      return DataLossError(db.Where() + ": page " + std::to_string(id) + " is " +
                           (entry.state == EntryState::kFailed ? "failed" : "a ghost") +
                           " in the schedule but not in the pages table");
    }
    if (entry.state == EntryState::kElsewhere) {
      for (CrawlCounters* c : {names[host_of[id]], &out->global}) ++c->ghost_pages;
      continue;
    }
    for (CrawlCounters* c : {names[host_of[id]], &out->global}) {
      ++c->failed_pages;
      if (crawls) c->failures[static_cast<size_t>(entry.kind)] += std::max<uint32_t>(1, entry.failures);
    }
  }
  return Status::Ok();
}

// The `fetches` and `progress` entries decode; a fetch names a page of the DB.
Status CheckFetchesAndProgress(const PageDbImpl& db, MDB_txn* txn, uint64_t pages) {
  auto broken = [&db](const std::string& what) {
    return DataLossError("check " + db.Where() + ": " + what);
  };
  MDB_val k, v;
  // The last fetch of each page that kept one.
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor fetches, lmdb::Cursor::Open(txn, db.fetches, db.path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, fetches.Next(&k, &v));
    if (!more) break;
    FetchInfo info;
    if (k.mv_size != 4 || !DecodeFetchInfo(View(v), &info)) {
      return broken("a fetches entry is damaged");
    }
    const uint32_t id = coding::DecodeBigEndian32(static_cast<const char*>(k.mv_data));
    if (id >= pages) {
      return broken("the fetch of page " + std::to_string(id) + ", beyond the last id");
    }
  }
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor progress, lmdb::Cursor::Open(txn, db.progress, db.path));
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, progress.Next(&k, &v));
    if (!more) break;
    ProgressSample sample;
    if (!DecodeProgressSample(View(k), View(v), &sample)) {
      return broken("a progress sample is damaged");
    }
  }
  return Status::Ok();
}

}  // namespace

Status RebuildCrawlCounters(PageDbImpl& db, MDB_txn* txn) {
  Recount recount;
  CRAWLRANK_RETURN_IF_ERROR(RecountStored(db, txn, true, &recount));
  std::string value;
  for (const auto& [host, counters] : recount.hosts) {
    value.clear();
    EncodeCrawlCounters(counters, &value);
    MDB_val k = Val(host), v = Val(value);
    if (const int rc = mdb_put(txn, db.counters, &k, &v, MDB_APPEND); rc != 0) {
      return lmdb::Error(rc, "write the counters of host \"" + host + "\" to", db.path);
    }
  }
  value.clear();
  EncodeCrawlCounters(recount.global, &value);
  MDB_val k = Val(kMetaCrawlCounters), v = Val(value);
  if (const int rc = mdb_put(txn, db.meta, &k, &v, 0); rc != 0) {
    return lmdb::Error(rc, "write the crawl's counters to", db.path);
  }
  const std::string counted = Fixed64Value(recount.global.pages);
  k = Val(kMetaHostPagesCounted);
  v = Val(counted);
  if (const int rc = mdb_put(txn, db.meta, &k, &v, 0); rc != 0) {
    return lmdb::Error(rc, "write the pages counted by host to", db.path);
  }
  db.writer.crawl = recount.global;
  return Status::Ok();
}

Status RewriteCrawlCounters(PageDbImpl& db, MDB_txn* txn,
                            const std::map<std::string, CrawlCounters, std::less<>>& carried) {
  Recount recount;
  CRAWLRANK_RETURN_IF_ERROR(RecountStored(db, txn, false, &recount));
  if (const int rc = mdb_drop(txn, db.counters, 0); rc != 0) {
    return lmdb::Error(rc, "empty the counters of", db.path);
  }
  std::map<std::string, CrawlCounters, std::less<>> hosts = carried;
  for (auto& [host, counters] : hosts) {  // hosts with nothing of their own here left
    counters.pages = counters.crawled_pages = counters.failed_pages = counters.ghost_pages = 0;
  }
  for (const auto& [host, counted] : recount.hosts) {
    CrawlCounters& counters = hosts[host];
    counters.pages = counted.pages;
    counters.crawled_pages = counted.crawled_pages;
    counters.failed_pages = counted.failed_pages;
    counters.ghost_pages = counted.ghost_pages;
  }
  Fields sum{};
  std::string value;
  for (const auto& [host, counters] : hosts) {
    const Fields fields = ToFields(counters);
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += fields[i];
    value.clear();
    EncodeCrawlCounters(counters, &value);
    MDB_val k = Val(host), v = Val(value);
    if (const int rc = mdb_put(txn, db.counters, &k, &v, MDB_APPEND); rc != 0) {
      return lmdb::Error(rc, "write the counters of host \"" + host + "\" to", db.path);
    }
  }
  CrawlCounters global = FromFields(sum);
  global.pages = recount.global.pages;
  value.clear();
  EncodeCrawlCounters(global, &value);
  MDB_val k = Val(kMetaCrawlCounters), v = Val(value);
  if (const int rc = mdb_put(txn, db.meta, &k, &v, 0); rc != 0) {
    return lmdb::Error(rc, "write the crawl's counters to", db.path);
  }
  const std::string counted = Fixed64Value(global.pages);
  k = Val(kMetaHostPagesCounted);
  v = Val(counted);
  if (const int rc = mdb_put(txn, db.meta, &k, &v, 0); rc != 0) {
    return lmdb::Error(rc, "write the pages counted by host to", db.path);
  }
  db.writer.crawl = global;
  db.writer.host_pages_counted = global.pages;
  db.pending_host_pages.clear();
  return Status::Ok();
}

Status CheckCrawlCounters(const PageDbImpl& db, MDB_txn* txn, uint64_t pages) {
  if (!db.has_counters) return Status::Ok();
  auto broken = [&db](const std::string& what) {
    return DataLossError("check " + db.Where() + ": " + what);
  };
  CRAWLRANK_ASSIGN_OR_RETURN(const uint64_t counted, ReadHostPagesCounted(db, txn));
  Recount recount;
  CRAWLRANK_RETURN_IF_ERROR(RecountStored(db, txn, false, &recount, counted));
  auto pages_of = [](const CrawlCounters& c) {
    return std::to_string(c.pages) + " pages, " + std::to_string(c.crawled_pages) +
           " crawled, " + std::to_string(c.failed_pages) + " failed" +
           (c.ghost_pages > 0 ? ", " + std::to_string(c.ghost_pages) + " ghosts" : "");
  };
  auto same_pages = [](const CrawlCounters& a, const CrawlCounters& b) {
    return a.pages == b.pages && a.crawled_pages == b.crawled_pages &&
           a.failed_pages == b.failed_pages && a.ghost_pages == b.ghost_pages;
  };
  // Every host's counters: decoded, its page counts recounted, summed.
  Fields sum{};
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor hosts, lmdb::Cursor::Open(txn, db.counters, db.path));
  MDB_val k, v;
  size_t seen = 0;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, hosts.Next(&k, &v));
    if (!more) break;
    const std::string_view host = View(k);
    CrawlCounters stored;
    if (!DecodeCrawlCounters(View(v), &stored)) {
      return broken("the counters of host \"" + std::string(host) + "\" are damaged");
    }
    const auto it = recount.hosts.find(host);
    const CrawlCounters expected = it != recount.hosts.end() ? it->second : CrawlCounters();
    if (it != recount.hosts.end() && !same_pages(it->second, CrawlCounters())) ++seen;
    if (!same_pages(stored, expected)) {
      return broken("host \"" + std::string(host) + "\" counts " + pages_of(stored) +
                    "; its pages are " + pages_of(expected));
    }
    const Fields fields = ToFields(stored);
    for (size_t i = 0; i < sum.size(); ++i) sum[i] += fields[i];
  }
  const size_t expected_hosts = static_cast<size_t>(
      std::count_if(recount.hosts.begin(), recount.hosts.end(),
                    [&](const auto& host) { return !same_pages(host.second, CrawlCounters()); }));
  if (seen != expected_hosts) {
    return broken(std::to_string(expected_hosts - seen) + " hosts with pages have no counters");
  }
  MDB_val mk = Val(kMetaCrawlCounters);
  CrawlCounters global;
  if (const int rc = mdb_get(txn, db.meta, &mk, &v); rc == MDB_NOTFOUND) {
    // A DB that never counted anything: all zero, as recounted.
  } else if (rc != 0) {
    return lmdb::Error(rc, "read the crawl's counters of", db.path);
  } else if (!DecodeCrawlCounters(View(v), &global)) {
    return broken("the crawl's counters (meta \"crawl_counters\") are damaged");
  }
  if (!same_pages(global, recount.global)) {
    return broken("the crawl counts " + pages_of(global) + "; its pages are " +
                  pages_of(recount.global));
  }
  // Every count of the crawl is the sum of its hosts', but pages: theirs stop at `counted`.
  if (sum[counter_field::kPages] != std::min(counted, global.pages)) {
    return broken("its hosts count " + std::to_string(sum[counter_field::kPages]) +
                  " pages, the first " + std::to_string(counted) + " are to be counted there");
  }
  sum[counter_field::kPages] = global.pages;
  if (ToFields(global) != sum) return broken("the crawl's counters are not the sum of its hosts'");
  return CheckFetchesAndProgress(db, txn, pages);
}

// ---- reads

namespace {

// `stored` as readers see it: its pages without the ghosts (a host's pages are counted a
// second late, its ghosts at once: never below 0).
CrawlCounters WithoutGhosts(CrawlCounters stored) {
  stored.pages -= std::min(stored.pages, stored.ghost_pages);
  return stored;
}

// A host that has only ghosts here: another node of the cluster crawls it.
bool OnlyGhosts(const CrawlCounters& c) {
  return c.ghost_pages > 0 && c.pages == 0 && c.crawled_pages == 0 && c.failed_pages == 0 &&
         c.fetches_total() == 0 && c.failures_total() == 0;
}

}  // namespace

Result<CrawlCounters> Snapshot::CrawlTotals() const {
  const PageDbImpl& db = *impl_->db;
  CrawlCounters counters;
  if (!db.has_counters) return counters;
  MDB_val k = Val(kMetaCrawlCounters), v;
  const int rc = mdb_get(impl_->txn.get(), db.meta, &k, &v);
  if (rc == MDB_NOTFOUND) return counters;
  if (rc != 0) return lmdb::Error(rc, "read the crawl's counters of", db.path);
  if (!DecodeCrawlCounters(View(v), &counters)) {
    return DataLossError(db.Where() + ": the crawl's counters (meta \"crawl_counters\") are damaged");
  }
  return WithoutGhosts(counters);
}

Result<CrawlCounters> Snapshot::HostTotals(std::string_view host) const {
  const PageDbImpl& db = *impl_->db;
  CrawlCounters counters;
  if (!db.has_counters) return counters;
  const std::string key = host.empty() ? std::string(kNoHostKey) : std::string(host);
  MDB_val k = Val(key), v;
  const int rc = mdb_get(impl_->txn.get(), db.counters, &k, &v);
  if (rc == MDB_NOTFOUND) return counters;
  if (rc != 0) return lmdb::Error(rc, "read the counters of host \"" + key + "\" of", db.path);
  if (!DecodeCrawlCounters(View(v), &counters)) {
    return DataLossError(db.Where() + ": the counters of host \"" + key + "\" are damaged");
  }
  return WithoutGhosts(counters);
}

Status Snapshot::ForEachHostTotals(
    const std::function<Status(std::string_view, const CrawlCounters&)>& fn) const {
  const PageDbImpl& db = *impl_->db;
  if (!db.has_counters) return Status::Ok();
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor,
                             lmdb::Cursor::Open(impl_->txn.get(), db.counters, db.path));
  MDB_val k, v;
  for (;;) {
    CRAWLRANK_ASSIGN_OR_RETURN(bool more, cursor.Next(&k, &v));
    if (!more) break;
    std::string_view host = View(k);
    CrawlCounters counters;
    if (!DecodeCrawlCounters(View(v), &counters)) {
      return DataLossError(db.Where() + ": the counters of host \"" + std::string(host) +
                           "\" are damaged");
    }
    counters = WithoutGhosts(counters);
    if (OnlyGhosts(counters)) continue;
    CRAWLRANK_RETURN_IF_ERROR(fn(host == kNoHostKey ? std::string_view() : host, counters));
  }
  return Status::Ok();
}

Result<FetchInfo> Snapshot::FetchOf(uint32_t id) const {
  const PageDbImpl& db = *impl_->db;
  const std::string what = "the fetch of page " + std::to_string(id);
  if (!db.has_counters) return NotFoundError(what + ": " + db.Where() + " is older than version 7");
  Key32 key(id);
  MDB_val k = key.val(), v;
  const int rc = mdb_get(impl_->txn.get(), db.fetches, &k, &v);
  if (rc == MDB_NOTFOUND) return NotFoundError(what + ": none kept in " + db.Where());
  if (rc != 0) return lmdb::Error(rc, "read " + what + " of", db.path);
  FetchInfo info;
  if (!DecodeFetchInfo(View(v), &info)) return DataLossError(db.Where() + ": " + what + " is damaged");
  return info;
}

Result<std::vector<ProgressSample>> Snapshot::Progress(int64_t since_ms, size_t max) const {
  const PageDbImpl& db = *impl_->db;
  std::vector<ProgressSample> samples;
  if (!db.has_counters || max == 0) return samples;
  CRAWLRANK_ASSIGN_OR_RETURN(lmdb::Cursor cursor,
                             lmdb::Cursor::Open(impl_->txn.get(), db.progress, db.path));
  // Backwards from the newest: a dashboard asks for the last few of a month of samples.
  MDB_val k, v;
  for (int op = MDB_LAST; samples.size() < max; op = MDB_PREV) {
    const int rc = mdb_cursor_get(cursor.get(), &k, &v, static_cast<MDB_cursor_op>(op));
    if (rc == MDB_NOTFOUND) break;
    if (rc != 0) return lmdb::Error(rc, "read the progress samples of", db.path);
    ProgressSample sample;
    if (!DecodeProgressSample(View(k), View(v), &sample)) {
      return DataLossError(db.Where() + ": a progress sample is damaged");
    }
    if (sample.time_ms < since_ms) break;
    samples.push_back(sample);
  }
  std::reverse(samples.begin(), samples.end());
  return samples;
}

}  // namespace crawlrank
