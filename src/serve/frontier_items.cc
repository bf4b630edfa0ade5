#include "serve/frontier_items.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

#include "base/ascii.h"
#include "base/base64.h"
#include "crawlrank/failure_kind.h"
#include "crawlrank/page_db.h"

namespace crawlrank {
namespace {

std::string Field(std::string_view field, std::string_view name) {
  return std::string(field) + "." + std::string(name);
}

// Where a metadata value sits, for an error message: URLInfo.metadata["name"].
std::string MetaField(std::string_view field, std::string_view name) {
  return std::string(field) + ".metadata[\"" + std::string(name) + "\"]";
}

Status BadField(std::string_view field, std::string_view url, std::string_view cause) {
  return InvalidArgumentError(std::string(field) + " of " + QuoteForMessage(url) + ": " +
                              std::string(cause));
}

// The HTTP status a report carries: crawlrank.status, else StormCrawler's
// fetch.statusCode, else 200.
Result<uint16_t> ReadStatus(const urlfrontier::URLInfo& info, std::string_view field) {
  std::string_view name = kMetaStatus;
  const std::string* text = LastValue(info, name);
  if (text == nullptr) text = LastValue(info, name = kMetaStormStatus);
  if (text == nullptr) return uint16_t{200};
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || value < 100 ||
      value > kMaxHttpStatus) {
    return BadField(MetaField(field, name), info.url(),
                    QuoteForMessage(*text) + " is not an HTTP status (100 to 999)");
  }
  return static_cast<uint16_t>(value);
}

// A score a client sent (`name` in the metadata), 0 when absent: a finite decimal number.
Result<float> ReadScore(const urlfrontier::URLInfo& info, std::string_view name,
                        std::string_view field) {
  const std::string* text = LastValue(info, name);
  if (text == nullptr) return 0.f;
  float value = 0.f;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size() || !std::isfinite(value)) {
    return BadField(MetaField(field, name), info.url(),
                    QuoteForMessage(*text) + " is not a finite decimal number");
  }
  return value;
}

}  // namespace

std::string NormalizeCrawlId(std::string_view crawl_id) {
  std::string_view trimmed = crawl_id;
  while (!trimmed.empty() && IsAsciiSpace(trimmed.front())) trimmed.remove_prefix(1);
  while (!trimmed.empty() && IsAsciiSpace(trimmed.back())) trimmed.remove_suffix(1);
  return trimmed.empty() ? std::string(kDefaultCrawlId) : std::string(trimmed);
}

grpc::Status CheckCrawlId(std::string_view crawl_id, std::string_view field) {
  if (NormalizeCrawlId(crawl_id) == kDefaultCrawlId) return grpc::Status::OK;
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      std::string(field) + " " + QuoteForMessage(crawl_id) +
                          ": this server holds one crawl, \"DEFAULT\" (one PageDB)");
}

void LogWriteFailure(std::string_view rpc, const Status& status) {
  std::fprintf(stderr, "crawlrank_serve: %.*s: %s (acknowledged FAIL)\n",
               static_cast<int>(rpc.size()), rpc.data(), status.ToString().c_str());
}

grpc::Status ToGrpc(const Status& status) {
  using grpc::StatusCode;
  StatusCode code = StatusCode::UNKNOWN;
  switch (status.code()) {
    case crawlrank::StatusCode::kOk: return grpc::Status::OK;
    case crawlrank::StatusCode::kInvalidArgument: code = StatusCode::INVALID_ARGUMENT; break;
    case crawlrank::StatusCode::kNotFound: code = StatusCode::NOT_FOUND; break;
    case crawlrank::StatusCode::kAlreadyExists: code = StatusCode::ALREADY_EXISTS; break;
    case crawlrank::StatusCode::kFailedPrecondition: code = StatusCode::FAILED_PRECONDITION; break;
    case crawlrank::StatusCode::kResourceExhausted: code = StatusCode::RESOURCE_EXHAUSTED; break;
    case crawlrank::StatusCode::kAborted: code = StatusCode::ABORTED; break;
    case crawlrank::StatusCode::kUnavailable: code = StatusCode::UNAVAILABLE; break;
    case crawlrank::StatusCode::kDataLoss: code = StatusCode::DATA_LOSS; break;
    case crawlrank::StatusCode::kInternal: code = StatusCode::INTERNAL; break;
    case crawlrank::StatusCode::kIoError: code = StatusCode::INTERNAL; break;
  }
  return grpc::Status(code, status.message());
}

const std::string* LastValue(const urlfrontier::URLInfo& info, std::string_view name) {
  const auto it = info.metadata().find(std::string(name));
  if (it == info.metadata().end() || it->second.values().empty()) return nullptr;
  return &*it->second.values().rbegin();
}

Result<std::string> ClientUrl(std::string_view url, UrlProfile profile, std::string_view field) {
  if (url.empty()) return InvalidArgumentError(std::string(field) + ": empty URL");
  if (url.size() > kMaxUrlBytes) {
    return BadField(field, url, "longer than " + std::to_string(kMaxUrlBytes) + " bytes");
  }
  Result<std::string> canonical = CanonicalizeUrl(url, profile);
  if (!canonical.ok()) return BadField(field, url, canonical.status().message());
  return canonical;
}

Result<Discovery> ReadDiscovery(const urlfrontier::URLInfo& info, UrlProfile profile,
                                std::string_view field) {
  if (grpc::Status crawl = CheckCrawlId(info.crawlid(), Field(field, "crawlID")); !crawl.ok()) {
    return BadField(Field(field, "crawlID"), info.url(), crawl.error_message());
  }
  Discovery discovery;
  CRAWLRANK_ASSIGN_OR_RETURN(discovery.url, ClientUrl(info.url(), profile, Field(field, "url")));
  if (info.key().size() > kMaxKeyBytes) {
    return BadField(Field(field, "key"), info.url(),
                    "a key longer than " + std::to_string(kMaxKeyBytes) + " bytes");
  }
  discovery.key = info.key();
  if (const std::string* payload = LastValue(info, kMetaPayload)) {
    std::optional<std::string> bytes = DecodeBase64(*payload);
    if (!bytes.has_value()) {
      return BadField(MetaField(field, kMetaPayload), info.url(), "not base64 (RFC 4648)");
    }
    if (bytes->size() > kMaxPayloadBytes) {
      return BadField(MetaField(field, kMetaPayload), info.url(),
                      "over " + std::to_string(kMaxPayloadBytes) + " bytes decoded");
    }
    discovery.payload = *std::move(bytes);
  }
  if (const std::string* text = LastValue(info, kMetaPriority)) {
    const auto [end, error] =
        std::from_chars(text->data(), text->data() + text->size(), discovery.priority);
    if (error != std::errc() || end != text->data() + text->size()) {
      return BadField(MetaField(field, kMetaPriority), info.url(),
                      QuoteForMessage(*text) + " is not a whole number in int32's range");
    }
  }
  CRAWLRANK_ASSIGN_OR_RETURN(discovery.link_score, ReadScore(info, kMetaLinkScore, field));
  if (const std::string* text = LastValue(info, kMetaDiscoveredDepth)) {
    uint32_t depth = 0;
    const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), depth);
    if (error != std::errc() || end != text->data() + text->size()) {
      return BadField(MetaField(field, kMetaDiscoveredDepth), info.url(),
                      QuoteForMessage(*text) + " is not a whole number from 0 to 4294967295");
    }
    discovery.depth = depth;
  }
  CRAWLRANK_ASSIGN_OR_RETURN(discovery.share, ReadScore(info, kMetaShare, field));
  if (discovery.share < 0) {
    return BadField(MetaField(field, kMetaShare), info.url(), "a share is at least 0");
  }
  std::string_view name = kMetaSource;
  const std::string* source = LastValue(info, name);
  if (source == nullptr) source = LastValue(info, name = kMetaPath);
  if (source != nullptr && !source->empty()) {
    Result<std::string> canonical = ClientUrl(*source, profile, MetaField(field, name));
    if (!canonical.ok()) {
      return BadField(MetaField(field, name), info.url(), canonical.status().message());
    }
    discovery.source = *std::move(canonical);
  }
  return discovery;
}

urlfrontier::URLInfo HandOnUrl(const Discovery& d, uint32_t depth) {
  urlfrontier::URLInfo info;
  info.set_url(d.url);
  info.set_key(d.key);
  info.set_crawlid(std::string(kDefaultCrawlId));
  auto& metadata = *info.mutable_metadata();
  metadata[std::string(kMetaDiscoveredDepth)].add_values(std::to_string(depth));
  if (d.link_score != 0.f) {
    char text[32];
    const auto written = std::to_chars(text, text + sizeof text, d.link_score);
    metadata[std::string(kMetaLinkScore)].add_values(std::string(text, written.ptr));
  }
  if (!d.payload.empty()) metadata[std::string(kMetaPayload)].add_values(EncodeBase64(d.payload));
  if (d.priority != 0) metadata[std::string(kMetaPriority)].add_values(std::to_string(d.priority));
  return info;
}

urlfrontier::URLInfo ShareUrl(std::string_view url, uint32_t depth, float share) {
  Discovery d;
  d.url = url;
  urlfrontier::URLInfo info = HandOnUrl(d, depth);
  char text[32];
  const auto written = std::to_chars(text, text + sizeof text, share);
  (*info.mutable_metadata())[std::string(kMetaShare)].add_values(std::string(text, written.ptr));
  return info;
}

Result<Fetch> ReadFetch(const urlfrontier::KnownURLItem& known, UrlProfile profile) {
  constexpr std::string_view kField = "URLItem.known.info";
  const urlfrontier::URLInfo& info = known.info();
  if (grpc::Status crawl = CheckCrawlId(info.crawlid(), Field(kField, "crawlID")); !crawl.ok()) {
    return BadField(Field(kField, "crawlID"), info.url(), crawl.error_message());
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::string url, ClientUrl(info.url(), profile, Field(kField, "url")));
  CRAWLRANK_ASSIGN_OR_RETURN(const uint16_t status, ReadStatus(info, kField));
  Fetch fetch;
  const std::string* failure = LastValue(info, kMetaFailure);
  if (failure != nullptr || status == 429 || status >= 500) {
    fetch.failed = true;
    const std::string* retryable = LastValue(info, kMetaRetryable);
    fetch.failure.url = std::move(url);
    fetch.failure.retryable = retryable == nullptr || *retryable != "false";
    fetch.failure.http_status = status == 200 ? uint16_t{0} : status;
    fetch.failure.reason = failure != nullptr ? *failure : "HTTP " + std::to_string(status);
    if (const std::string* kind = LastValue(info, kMetaFailureKind)) {
      const std::optional<FailureKind> parsed = ParseFailureKind(*kind);
      if (!parsed.has_value()) {
        return BadField(MetaField(kField, kMetaFailureKind), info.url(),
                        QuoteForMessage(*kind) + " is not a failure kind (docs/frontier.md)");
      }
      fetch.failure.kind = *parsed;
    }
    return fetch;
  }
  fetch.page.url = std::move(url);
  fetch.page.http_status = status;
  CRAWLRANK_ASSIGN_OR_RETURN(fetch.page.content_score,
                             ReadScore(info, kMetaContentScore, kField));
  if (const std::string* hash = LastValue(info, kMetaContentHash)) {
    Result<uint64_t> parsed = ParseFingerprint(*hash);
    if (!parsed.ok()) {
      return BadField(MetaField(kField, kMetaContentHash), info.url(), parsed.status().message());
    }
    fetch.page.content_hash = *parsed;
  }
  // Seconds since 1970; 0 (the default) names no date. The last second of 9999 bounds
  // it, as every write bounds a time (write_batch.h).
  constexpr uint64_t kLastSecond = kMaxCrawlTimeMs / 1000;
  if (known.refetchable_from_date() > kLastSecond) {
    return BadField(Field("URLItem.known", "refetchable_from_date"), info.url(),
                    std::to_string(known.refetchable_from_date()) +
                        " is after the year 9999 (seconds since 1970 expected)");
  }
  fetch.refetch_at_ms = static_cast<int64_t>(known.refetchable_from_date()) * 1000;
  return fetch;
}

Result<PutItem> ReadPutItem(const urlfrontier::URLItem& item, UrlProfile profile) {
  if (item.has_discovered()) {
    CRAWLRANK_ASSIGN_OR_RETURN(Discovery discovery,
                               ReadDiscovery(item.discovered().info(), profile,
                                             "URLItem.discovered.info"));
    return PutItem(std::move(discovery));
  }
  if (item.has_known()) {
    CRAWLRANK_ASSIGN_OR_RETURN(Fetch fetch, ReadFetch(item.known(), profile));
    return PutItem(std::move(fetch));
  }
  return InvalidArgumentError("URLItem " + QuoteForMessage(item.id()) +
                              ": carries neither a discovered nor a known URL");
}

}  // namespace crawlrank
