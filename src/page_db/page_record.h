// Value encoding of the `pages` table (docs/format.md, format version 2). Beside the
// decoder, page_record.cc defines the bounds every write checks first
// (ValidateCrawledPage, ValidatePageRecord in crawlrank/page_db.h), so that nothing a
// caller sends is stored as a value the decoder refuses.
#ifndef CRAWLRANK_SRC_PAGE_RECORD_H_
#define CRAWLRANK_SRC_PAGE_RECORD_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "crawlrank/page_types.h"
#include "crawlrank/status.h"

namespace crawlrank {

// Appends the encoding of `record`: every field but the id (the key) and the fingerprint
// (the hash of the URL).
void EncodePageRecord(const PageRecord& record, std::string* out);

// Decodes a `pages` value stored under `id`, computing the fingerprint from the URL.
// DataLoss naming the id and the first field that fails on any truncated, overlong,
// out-of-range (a negative time) or trailing byte.
Status DecodePageRecord(uint32_t id, std::string_view value, PageRecord* record);

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_PAGE_RECORD_H_
