#include "page_db/page_record.h"

#include <cmath>

#include "base/coding.h"
#include "crawlrank/page_db.h"
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

namespace {

// Why `in` does not decode as a page record: its first field that fails, for the error of
// a read that met it (found again field by field, off the decoder's fast path).
std::string WhyNotARecord(std::string_view in) {
  using namespace std::string_literals;
  uint32_t u32 = 0;
  uint64_t u64 = 0;
  float f = 0;
  if (!GetVarint32(in, &u32)) return "depth truncated or overlong";
  if (!GetFixed64(in, &u64)) return "discovered_from truncated";
  for (const char* name : {"first_crawl_ms", "last_crawl_ms"}) {
    if (!GetVarint64(in, &u64)) return name + " truncated or overlong"s;
    if (u64 > INT64_MAX) {
      return name + " is "s + std::to_string(static_cast<int64_t>(u64)) + ", a negative time";
    }
  }
  for (const char* name : {"n_crawls", "n_changes"}) {
    if (!GetVarint32(in, &u32)) return name + " truncated or overlong"s;
  }
  for (const char* name : {"content_score", "link_score"}) {
    if (!GetFloat(in, &f)) return name + " truncated"s;
  }
  if (!GetFixed64(in, &u64)) return "content_hash truncated";
  if (!GetVarint32(in, &u32)) return "http_status truncated or overlong";
  if (u32 > UINT16_MAX) return "http_status is " + std::to_string(u32) + ", above 65535";
  if (!GetVarint32(in, &u32)) return "n_errors truncated or overlong";
  if (!GetVarint32(in, &u32)) return "url length truncated or overlong";
  if (u32 == 0) return "url is empty";
  if (in.size() < u32) {
    return "url truncated: " + std::to_string(in.size()) + " of " + std::to_string(u32) + " bytes";
  }
  return std::to_string(in.size() - u32) + " byte(s) after the url";
}

}  // namespace

Status DecodePageRecord(uint32_t id, std::string_view in, PageRecord* r) {
  const std::string_view value = in;
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
    return DataLossError("page record of id " + std::to_string(id) + ": damaged (" +
                         WhyNotARecord(value) + ")");
  }
  r->first_crawl_ms = static_cast<int64_t>(first);
  r->last_crawl_ms = static_cast<int64_t>(last);
  r->http_status = static_cast<uint16_t>(status);
  r->url.assign(in);
  r->fingerprint = UrlFingerprint(r->url);
  return Status::Ok();
}

// ---- the bounds every write checks (crawlrank/page_db.h)

namespace {

// The start of every validation message: `page "URL"`.
std::string OfPage(std::string_view url) {
  return "page " + QuoteForMessage(url);
}

Status CheckUrlSize(std::string_view page_url, std::string_view field, std::string_view url) {
  if (!url.empty() && url.size() <= UINT32_MAX) return Status::Ok();
  return InvalidArgumentError(OfPage(page_url) + ": " + std::string(field) + " has " +
                              std::to_string(url.size()) + " bytes, not 1 to 2^32 - 1");
}

// `zero` says what a time of 0 means in the structure the field belongs to.
Status CheckTime(std::string_view url, std::string_view field, int64_t ms, std::string_view zero) {
  if (ms >= 0 && ms <= kMaxCrawlTimeMs) return Status::Ok();
  return InvalidArgumentError(OfPage(url) + ": " + std::string(field) + " is " +
                              std::to_string(ms) + ", not a Unix time in ms from 0 (" +
                              std::string(zero) + ") to " + std::to_string(kMaxCrawlTimeMs) +
                              " (the end of year 9999)");
}

Status CheckScore(std::string_view url, std::string_view field, float score) {
  if (std::isfinite(score)) return Status::Ok();
  const char* value = std::isnan(score) ? "nan" : score > 0 ? "inf" : "-inf";
  return InvalidArgumentError(OfPage(url) + ": " + std::string(field) + " is " + value +
                              ", not a finite number");
}

Status CheckHttpStatus(std::string_view url, uint16_t status) {
  if (status <= kMaxHttpStatus) return Status::Ok();
  return InvalidArgumentError(OfPage(url) + ": http_status is " + std::to_string(status) +
                              ", not an HTTP status (three digits at most; 0: none)");
}

}  // namespace

Status ValidateCrawledPage(const CrawledPage& page) {
  const std::string_view url = page.url;
  CRAWLRANK_RETURN_IF_ERROR(CheckUrlSize(url, "url", url));
  CRAWLRANK_RETURN_IF_ERROR(CheckTime(url, "crawl_time_ms", page.crawl_time_ms, "now"));
  CRAWLRANK_RETURN_IF_ERROR(CheckScore(url, "content_score", page.content_score));
  CRAWLRANK_RETURN_IF_ERROR(CheckHttpStatus(url, page.http_status));
  for (const Link& link : page.links) {
    CRAWLRANK_RETURN_IF_ERROR(CheckUrlSize(url, "the URL of a link", link.url));
    if (!std::isfinite(link.score)) {
      return CheckScore(url, "the score of link " + QuoteForMessage(link.url), link.score);
    }
  }
  return Status::Ok();
}

Status ValidatePageRecord(const PageRecord& r) {
  const std::string_view url = r.url;
  CRAWLRANK_RETURN_IF_ERROR(CheckUrlSize(url, "url", url));
  CRAWLRANK_RETURN_IF_ERROR(CheckTime(url, "first_crawl_ms", r.first_crawl_ms, "never"));
  CRAWLRANK_RETURN_IF_ERROR(CheckTime(url, "last_crawl_ms", r.last_crawl_ms, "never"));
  CRAWLRANK_RETURN_IF_ERROR(CheckScore(url, "content_score", r.content_score));
  CRAWLRANK_RETURN_IF_ERROR(CheckScore(url, "link_score", r.link_score));
  CRAWLRANK_RETURN_IF_ERROR(CheckHttpStatus(url, r.http_status));
  if (r.n_changes > 0 && r.n_changes >= r.n_crawls) {
    // A change is counted by a recrawl: the first crawl never counts one.
    return InvalidArgumentError(OfPage(url) + ": n_changes is " + std::to_string(r.n_changes) +
                                ", not fewer than n_crawls (" + std::to_string(r.n_crawls) + ")");
  }
  return Status::Ok();
}

}  // namespace crawlrank
