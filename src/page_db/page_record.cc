#include "page_db/page_record.h"

#include "base/coding.h"
#include "crawlrank/url.h"

namespace crawlrank {

using coding::GetFixed64;
using coding::GetFloat;
using coding::GetVarint32;
using coding::GetVarint64;

void EncodePageRecord(const PageRecord& r, std::string* out) {
  coding::PutVarint32(*out, r.depth);
  coding::PutFixed64(*out, r.discovered_from);
  coding::PutVarint64(*out, static_cast<uint64_t>(r.first_crawl_ms));
  coding::PutVarint64(*out, static_cast<uint64_t>(r.last_crawl_ms));
  coding::PutVarint32(*out, r.n_crawls);
  coding::PutVarint32(*out, r.n_changes);
  coding::PutFloat(*out, r.content_score);
  coding::PutFloat(*out, r.link_score);
  coding::PutFixed64(*out, r.content_hash);
  coding::PutVarint32(*out, r.http_status);
  coding::PutVarint32(*out, r.n_errors);
  coding::PutVarint32(*out, static_cast<uint32_t>(r.url.size()));
  out->append(r.url);
}

Status DecodePageRecord(uint32_t id, std::string_view in, PageRecord* r) {
  uint64_t first = 0, last = 0;
  uint32_t status = 0, url_size = 0;
  r->id = id;
  const bool ok = GetVarint32(in, &r->depth) && GetFixed64(in, &r->discovered_from) &&
                  GetVarint64(in, &first) && GetVarint64(in, &last) &&
                  GetVarint32(in, &r->n_crawls) && GetVarint32(in, &r->n_changes) &&
                  GetFloat(in, &r->content_score) && GetFloat(in, &r->link_score) &&
                  GetFixed64(in, &r->content_hash) && GetVarint32(in, &status) &&
                  status <= UINT16_MAX && GetVarint32(in, &r->n_errors) &&
                  GetVarint32(in, &url_size) && in.size() == url_size && url_size > 0 &&
                  first <= INT64_MAX && last <= INT64_MAX;
  if (!ok) {
    return DataLossError("page record of id " + std::to_string(id) +
                         ": damaged (truncated, overlong or out-of-range field)");
  }
  r->first_crawl_ms = static_cast<int64_t>(first);
  r->last_crawl_ms = static_cast<int64_t>(last);
  r->http_status = static_cast<uint16_t>(status);
  r->url.assign(in);
  r->fingerprint = UrlFingerprint(r->url);
  return Status::Ok();
}

}  // namespace crawlrank
