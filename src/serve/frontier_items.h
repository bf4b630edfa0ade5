// What a URLFrontier message means to crawlrank: crawl IDs, the metadata convention, the
// checks and caps on what clients send, and crawlrank's Status as a gRPC status. Plain
// functions over values (docs/frontier.md has the tables they implement).
#ifndef CRAWLRANK_SRC_SERVE_FRONTIER_ITEMS_H_
#define CRAWLRANK_SRC_SERVE_FRONTIER_ITEMS_H_

#include <grpcpp/support/status.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "crawlrank/schedule_types.h"
#include "crawlrank/status.h"
#include "crawlrank/url.h"
#include "schedule/cluster_membership.h"
#include "urlfrontier.pb.h"

namespace crawlrank {

// The one crawl a server holds: a PageDB is one crawl.
inline constexpr std::string_view kDefaultCrawlId = kClusterCrawlId;

// Caps on what a client sends (docs/frontier.md, "Limits").
inline constexpr size_t kMaxMessageBytes = size_t{4} << 20;  // gRPC: RESOURCE_EXHAUSTED past it
inline constexpr size_t kMaxUrlBytes = 8192;                 // a URL or a source URL
inline constexpr size_t kMaxBatchUrls = 1000;                // URLs in one DiscoveredBatch
inline constexpr size_t kMaxUrlsPerGet = 1000;               // URLs one GetURLs hands out
inline constexpr size_t kMaxKeyBytes = 1024;                 // a client's queue key
inline constexpr size_t kMaxPayloadBytes = size_t{1} << 20;  // a payload, decoded

// The metadata names crawlrank reads from a URLInfo (the last value of each counts).
inline constexpr std::string_view kMetaSource = "crawlrank.source";  // the linking page
inline constexpr std::string_view kMetaPath = "url.path";  // StormCrawler: the pages that led here
inline constexpr std::string_view kMetaStatus = "crawlrank.status";       // the fetch's HTTP status
inline constexpr std::string_view kMetaStormStatus = "fetch.statusCode";  // StormCrawler's
inline constexpr std::string_view kMetaFailure = "crawlrank.failure";     // the fetch failed: why
inline constexpr std::string_view kMetaRetryable = "crawlrank.retryable";       // "false": for good
inline constexpr std::string_view kMetaContentHash = "crawlrank.content_hash";  // 16 hex digits
inline constexpr std::string_view kMetaDepth = "depth";  // set on what GetURLs hands out
// The page that linked to a URL handed out first (Request::referrer), when it has one.
inline constexpr std::string_view kMetaReferrer = "crawlrank.referrer";
// A discovered URL's payload (base64; handed back with the URL) and priority (an int32:
// a higher tier goes first, before any score).
inline constexpr std::string_view kMetaPayload = "crawlrank.payload";
inline constexpr std::string_view kMetaPriority = "crawlrank.priority";
// Scores, decimal floats: a discovered URL's link (anchor) score, and a crawled page's
// content score (the crawler's relevance score of what it fetched).
inline constexpr std::string_view kMetaLinkScore = "crawlrank.link_score";
inline constexpr std::string_view kMetaContentScore = "crawlrank.content_score";
// A discovered URL's depth when it has no source here (a whole number): what the node that
// holds its source sends with it, in a cluster (docs/frontier.md, "A cluster").
inline constexpr std::string_view kMetaDiscoveredDepth = "crawlrank.depth";
// The score a push mode passed to a URL along links from another node's pages (a decimal
// float, at least 0): what that node sends the URL's owner (docs/frontier.md).
inline constexpr std::string_view kMetaShare = "crawlrank.share";
// Why a fetch failed, by FailureKindName ("timeout", "dns", ...); inferred from the status
// and the reason when absent.
inline constexpr std::string_view kMetaFailureKind = "crawlrank.failure_kind";

// A crawl ID as the API normalises it: trimmed of white space, empty naming "DEFAULT".
std::string NormalizeCrawlId(std::string_view crawl_id);
// OK when `crawl_id` names the server's crawl; else INVALID_ARGUMENT naming `field`.
grpc::Status CheckCrawlId(std::string_view crawl_id, std::string_view field);

// A call refused with `code`, saying why.
inline grpc::Status Refused(grpc::StatusCode code, std::string message) {
  return grpc::Status(code, std::move(message));
}

// Says on stderr why a write of `rpc` failed: what it carried is answered FAIL (the client
// sends it again). Once per failure.
void LogWriteFailure(std::string_view rpc, const Status& status);

// crawlrank's Status as a gRPC status of the same meaning (InvalidArgument ->
// INVALID_ARGUMENT, ResourceExhausted -> RESOURCE_EXHAUSTED, ...).
grpc::Status ToGrpc(const Status& status);

// The last value of metadata `name`, or nullptr when the URL carries none.
const std::string* LastValue(const urlfrontier::URLInfo& info, std::string_view name);

// A URL a client sent, canonicalised with `profile`; InvalidArgument naming `field` and
// the URL when it is empty, longer than kMaxUrlBytes or cannot be canonicalised.
Result<std::string> ClientUrl(std::string_view url, UrlProfile profile, std::string_view field);

// A discovered URL: its canonical form, the page that links to it (canonical; empty when
// the client names none: crawlrank.source, else the last of url.path), and the queue key
// the client gave it (empty: none; where it differs from the URL's host key, it becomes
// the host's politeness group).
struct Discovery {
  std::string url;
  std::string source;
  std::string key;
  std::string payload;    // crawlrank.payload, decoded; kept only by a URL it creates
  int32_t priority = 0;   // crawlrank.priority; the same
  float link_score = 0.f;  // crawlrank.link_score: the score of the link from `source`
  // crawlrank.depth: the URL's depth when it is new (its source's, plus one, where another
  // node holds the source); none: 0 for a URL without a source.
  std::optional<uint32_t> depth;
  float share = 0.f;  // crawlrank.share
};
// InvalidArgument naming `field` (e.g. "URLItem.discovered.info") and the URL for a URL or
// source that ClientUrl refuses, a key longer than kMaxKeyBytes, a payload that is not
// base64 or decodes past kMaxPayloadBytes, a priority that is not an int32, a link score
// that is not a finite number, or a crawl ID other than the server's.
Result<Discovery> ReadDiscovery(const urlfrontier::URLInfo& info, UrlProfile profile,
                                std::string_view field);

// The discovered URL a node of a cluster sends to the owner of `d`'s URL (in a last-hop
// batch) once it has stored the link from `d`'s source (held there as a ghost): the URL,
// its key, payload, priority and link score, with `depth`, and no source.
urlfrontier::URLInfo HandOnUrl(const Discovery& d, uint32_t depth);
// The URL that carries `share`, passed to the page of `url` (this node's ghost, at
// `depth`) along links from this node's pages, to its owner.
urlfrontier::URLInfo ShareUrl(std::string_view url, uint32_t depth, float share);

// A fetch report (KnownURLItem): a crawled page, or a failure when the metadata says the
// fetch failed (crawlrank.failure) or its HTTP status is 429 or 5xx.
struct Fetch {
  bool failed = false;
  CrawledPage page;       // when !failed: url, http_status, content_hash, content_score
  FailureReport failure;  // when failed; kind from crawlrank.failure_kind
  // When !failed: refetchable_from_date in Unix ms (CrawlReport::refetch_at_ms); 0: none.
  int64_t refetch_at_ms = 0;
};
// InvalidArgument naming the field and the URL for a bad URL, crawl ID, status, hash,
// content score, failure kind or refetchable_from_date (after the year 9999).
Result<Fetch> ReadFetch(const urlfrontier::KnownURLItem& known, UrlProfile profile);

// A PutURLs item as read: a discovered URL or a fetch report.
using PutItem = std::variant<Discovery, Fetch>;
// ReadDiscovery or ReadFetch of the item; InvalidArgument for one that carries neither.
Result<PutItem> ReadPutItem(const urlfrontier::URLItem& item, UrlProfile profile);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_SERVE_FRONTIER_ITEMS_H_
