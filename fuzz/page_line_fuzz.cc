// Fuzzes page_db_load's input parser (tools/load_input.h, tools/page_line.h): the lines
// are read and checked exactly as the tool reads a file, without a DB.
//
// Input: a selector byte (bit 0: the DB's URL profile, w3lib/1 when set; bits 1-2: the
// page count of the DB loaded into; bits 3-4: URL pairs per batch, the
// default, 1, 2 or 5), then the text of the input file.
//
// Properties of an input the reader accepts:
//   - page lines number their pages densely from the DB's page count, with canonical URLs
//     (under the profile) and matching hashes, and fields within the bounds every write
//     checks (ValidatePageRecord);
//   - each page prints back (AppendPageLine, full form) to a line that parses to the same
//     record;
//   - index pairs name ids up to max_link_id, and below the page count when page lines
//     came first;
//   - URL pairs come in batches of consecutive lines, at most the batch size each, grouped
//     by sources distinct within the batch (canonical ones under rfc3986/1), and counted.
// A refused input is InvalidArgument (an istringstream never fails to read).
#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include "crawlrank/url.h"
#include "fuzz_check.h"
#include "load_input.h"
#include "page_line.h"
#include "tool_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace crawlrank;
  using namespace crawlrank::tools;
  fuzz::Bytes bytes(data, size);
  const uint8_t selector = bytes.U8();
  const UrlProfile profile = (selector & 1) ? UrlProfile::kW3lib : UrlProfile::kRfc3986;
  const uint64_t first_id = (selector >> 1) & 3;
  constexpr size_t kBatchLines[] = {InputReader::kDefaultBatchLines, 1, 2, 5};
  const size_t batch_lines = kBatchLines[(selector >> 3) & 3];
  std::istringstream text{std::string(bytes.rest())};
  uint64_t url_links = 0, last_line = 0;
  const auto check_batch = [&](UrlBatch& batch) {
    FUZZ_CHECK(batch.links > 0 && batch.links <= batch_lines);
    FUZZ_CHECK(last_line < batch.first_line && batch.first_line <= batch.last_line);
    last_line = batch.last_line;
    std::set<std::string> sources;
    uint64_t links = 0;
    for (const UrlGroup& group : batch.groups) {
      FUZZ_CHECK(sources.insert(group.source).second);
      if (profile == UrlProfile::kRfc3986) {  // w3lib/1 is not idempotent (url_fuzz.cc)
        const Result<std::string> canonical = CanonicalizeUrl(group.source, profile);
        FUZZ_CHECK(canonical.ok() && *canonical == group.source);
      }
      FUZZ_CHECK(!group.targets.empty());
      links += group.targets.size();
    }
    FUZZ_CHECK(links == batch.links);
    url_links += links;
    return Status::Ok();
  };
  InputReader reader("fuzz", first_id, profile, check_batch, batch_lines);
  Status status = reader.ReadAll(text);
  if (status.ok()) status = CheckDenseIds(reader.input(), first_id);
  if (!status.ok()) {
    FUZZ_CHECK(status.code() == StatusCode::kInvalidArgument);
    return 0;
  }
  const Input& input = reader.input();
  for (size_t i = 0; i < input.pages.size(); ++i) {
    const PageRecord& page = input.pages[i];
    FUZZ_CHECK(page.id == first_id + i);
    const Result<std::string> canonical = CanonicalizeUrl(page.url, profile);
    FUZZ_CHECK(canonical.ok() && *canonical == page.url);
    FUZZ_CHECK(UrlFingerprint(page.url) == page.fingerprint);
    FUZZ_CHECK(ValidatePageRecord(page).ok());
    std::string line;
    AppendPageLine(page, /*full=*/true, line);
    const std::vector<std::string_view> fields = SplitFields(line);
    const Result<PageRecord> again = ParsePageLine(fields);
    FUZZ_CHECK(again.ok());
    FUZZ_CHECK(*again == page);
  }
  const uint64_t known = first_id + input.pages.size();
  for (const auto& [from, to] : input.id_links) {
    FUZZ_CHECK(from <= input.max_link_id && to <= input.max_link_id);
    if (!input.pages.empty()) FUZZ_CHECK(from < known && to < known);
  }
  FUZZ_CHECK(url_links == 0 || (input.pages.empty() && input.id_links.empty()));
  FUZZ_CHECK(url_links == input.url_links);
  return 0;
}
