#include "page_line.h"

#include <limits>

#include "tool_common.h"

namespace crawlrank::tools {

std::string PageLineHeader(bool full) {
  std::string header = "# hash index url first_crawl last_crawl changes crawls score";
  if (full) header += " depth discovered_from link_score content_hash status errors state";
  return header;
}

std::string PageStateField(const PageRecord& record, const std::optional<FailureKind>& failed) {
  if (record.crawled()) return "crawled";
  if (failed.has_value()) return "failed:" + std::string(FailureKindName(*failed));
  return "pending";
}

void AppendPageLine(const PageRecord& r, bool full, std::string& out, TimeFormat times) {
  const auto time = [times](int64_t ms) {
    return times == TimeFormat::kIso ? IsoTimeOr(ms, "-") : FormatSeconds(ms);
  };
  out += FormatFingerprint(r.fingerprint);
  out += ' ';
  out += std::to_string(r.id);
  out += ' ';
  out += r.url;
  out += ' ';
  out += time(r.first_crawl_ms);
  out += ' ';
  out += time(r.last_crawl_ms);
  out += ' ';
  out += std::to_string(r.n_changes);
  out += ' ';
  out += std::to_string(r.n_crawls);
  out += ' ';
  out += FormatScore(r.content_score);
  if (!full) return;
  out += ' ';
  out += std::to_string(r.depth);
  out += ' ';
  out += FormatFingerprint(r.discovered_from);
  out += ' ';
  out += FormatScore(r.link_score);
  out += ' ';
  out += FormatFingerprint(r.content_hash);
  out += ' ';
  out += std::to_string(r.http_status);
  out += ' ';
  out += std::to_string(r.n_errors);
}

namespace {

// Prefixes a field parser's error with the field's name.
template <typename T>
Status Field(Result<T> parsed, std::string_view name, T* out) {
  if (!parsed.ok()) {
    return InvalidArgumentError(std::string(name) + ": " + parsed.status().message());
  }
  *out = *parsed;
  return Status::Ok();
}

Status Unsigned32(std::string_view text, std::string_view name, uint32_t* out) {
  uint64_t value = 0;
  CRAWLRANK_RETURN_IF_ERROR(
      Field(ParseUnsigned(text, std::numeric_limits<uint32_t>::max()), name, &value));
  *out = static_cast<uint32_t>(value);
  return Status::Ok();
}

}  // namespace

Result<PageRecord> ParsePageLine(std::span<const std::string_view> f) {
  if (f.size() != kBasicPageFields && f.size() != kFullPageFields &&
      f.size() != kStatePageFields) {
    return InvalidArgumentError("a page line has " + std::to_string(kBasicPageFields) + ", " +
                                std::to_string(kFullPageFields) + " or " +
                                std::to_string(kStatePageFields) + " fields, not " +
                                std::to_string(f.size()));
  }
  if (f.size() == kStatePageFields) {
    const std::string_view state = f[kFullPageFields];
    const bool known = state == "crawled" || state == "pending" || state == "removed" ||
                       state == "elsewhere" ||
                       state == "out_of_scope" || state == "filtered" ||
                       (state.starts_with("failed:") && ParseFailureKind(state.substr(7)));
    if (!known) {
      return InvalidArgumentError("state: \"" + std::string(state) +
                                  "\" is none of crawled, pending, failed:KIND, removed, elsewhere, "
                                  "out_of_scope, filtered");
    }
  }
  PageRecord r;
  CRAWLRANK_RETURN_IF_ERROR(Field(ParseFingerprint(f[0]), "hash", &r.fingerprint));
  CRAWLRANK_RETURN_IF_ERROR(Unsigned32(f[1], "index", &r.id));
  r.url.assign(f[2]);
  CRAWLRANK_RETURN_IF_ERROR(Field(ParseSeconds(f[3]), "first_crawl", &r.first_crawl_ms));
  CRAWLRANK_RETURN_IF_ERROR(Field(ParseSeconds(f[4]), "last_crawl", &r.last_crawl_ms));
  CRAWLRANK_RETURN_IF_ERROR(Unsigned32(f[5], "changes", &r.n_changes));
  CRAWLRANK_RETURN_IF_ERROR(Unsigned32(f[6], "crawls", &r.n_crawls));
  CRAWLRANK_RETURN_IF_ERROR(Field(ParseScore(f[7]), "score", &r.content_score));
  if (f.size() >= kFullPageFields) {
    uint64_t status = 0;
    CRAWLRANK_RETURN_IF_ERROR(Unsigned32(f[8], "depth", &r.depth));
    CRAWLRANK_RETURN_IF_ERROR(Field(ParseFingerprint(f[9]), "discovered_from", &r.discovered_from));
    CRAWLRANK_RETURN_IF_ERROR(Field(ParseScore(f[10]), "link_score", &r.link_score));
    CRAWLRANK_RETURN_IF_ERROR(Field(ParseFingerprint(f[11]), "content_hash", &r.content_hash));
    CRAWLRANK_RETURN_IF_ERROR(
        Field(ParseUnsigned(f[12], std::numeric_limits<uint16_t>::max()), "status", &status));
    r.http_status = static_cast<uint16_t>(status);
    CRAWLRANK_RETURN_IF_ERROR(Unsigned32(f[13], "errors", &r.n_errors));
  }
  return r;
}

}  // namespace crawlrank::tools
