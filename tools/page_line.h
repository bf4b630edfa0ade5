// The text form of a page record printed by `page_db_dump info` and read back by
// `page_db_load`, kept together so the two cannot drift apart.
//
//   basic (8 fields, Aduana's order):  hash index url first_crawl last_crawl changes crawls score
//   full (--all, 6 more fields):       ... depth discovered_from link_score content_hash status
//   errors
//   with the state (--all's dump):     ... state
//
// The state is what the schedule says of the page: `crawled`, `failed:KIND` (failed for
// good, KIND as in crawlrank/failure_kind.h) or `pending` (queued, in flight or waiting to
// retry: page_db_schedule tells which). page_db_load checks its form and restores nothing
// of it: a loaded page that is not crawled is queued.
//
// Times are Unix seconds with three decimals, scores have 9 significant digits (enough to
// restore the same float), hashes are 16 hex digits.
#ifndef CRAWLRANK_TOOLS_PAGE_LINE_H_
#define CRAWLRANK_TOOLS_PAGE_LINE_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "crawlrank/failure_kind.h"
#include "crawlrank/page_db.h"

namespace crawlrank::tools {

inline constexpr size_t kBasicPageFields = 8;
inline constexpr size_t kFullPageFields = 14;
inline constexpr size_t kStatePageFields = 15;

// The header line (`# hash index url ...`) for `--header`.
std::string PageLineHeader(bool full);

// How a page line writes its crawl times: Unix seconds with three decimals (what
// page_db_load reads), or ISO 8601 UTC to the second, `-` for never (for people).
enum class TimeFormat : uint8_t { kUnixSeconds, kIso };

// Appends the line for `record`, without a newline.
void AppendPageLine(const PageRecord& record, bool full, std::string& out,
                    TimeFormat times = TimeFormat::kUnixSeconds);

// The state field of page `record`; `failed` names its kind when it failed for good.
std::string PageStateField(const PageRecord& record, const std::optional<FailureKind>& failed);

// Parses the fields of one line (kBasicPageFields, kFullPageFields or kStatePageFields of
// them). Fields a basic line lacks are left at their defaults; a state is checked, not kept. Checks the form of each field only: the
// bounds of their values are ValidatePageRecord's (crawlrank/page_db.h), as for every
// write.
Result<PageRecord> ParsePageLine(std::span<const std::string_view> fields);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_PAGE_LINE_H_
