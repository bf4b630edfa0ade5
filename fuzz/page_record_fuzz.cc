// Fuzzes the `pages` value decoder, DecodePageRecord (src/page_db/page_record.h).
//
// Input: a 4-byte id (little-endian), then the value.
//
// Properties of a value DecodePageRecord accepts:
//   - the record carries the id, a non-empty URL, its fingerprint, and non-negative times;
//   - re-encoding gives a value no longer than the input (the encoder writes the shortest
//     varints) that decodes to the same record, bit for bit (compared through a second
//     encoding, so NaN scores compare too).
// A value it refuses is DataLoss.
#include <cstddef>
#include <cstdint>
#include <string>

#include "crawlrank/url.h"
#include "fuzz_check.h"
#include "page_db/page_record.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace crawlrank;
  fuzz::Bytes in(data, size);
  const uint32_t id = in.U32();
  PageRecord record;
  const Status status = DecodePageRecord(id, in.rest(), &record);
  if (!status.ok()) {
    FUZZ_CHECK(status.code() == StatusCode::kDataLoss);
    return 0;
  }
  FUZZ_CHECK(record.id == id);
  FUZZ_CHECK(!record.url.empty());
  FUZZ_CHECK(record.fingerprint == UrlFingerprint(record.url));
  FUZZ_CHECK(record.first_crawl_ms >= 0 && record.last_crawl_ms >= 0);
  std::string encoded;
  EncodePageRecord(record, &encoded);
  FUZZ_CHECK(encoded.size() <= in.rest().size());
  PageRecord again;
  FUZZ_CHECK(DecodePageRecord(id, encoded, &again).ok());
  std::string encoded_again;
  EncodePageRecord(again, &encoded_again);
  FUZZ_CHECK(encoded_again == encoded);
  FUZZ_CHECK(again.id == record.id && again.fingerprint == record.fingerprint &&
             again.url == record.url);
  return 0;
}
