// The interchange formats of page_db_dump: CSV fields (RFC 4180) and GraphML text (XML 1.0).
// Values come from crawled pages (URLs strangers wrote), so each is escaped here.
#ifndef CRAWLRANK_TOOLS_DUMP_FORMATS_H_
#define CRAWLRANK_TOOLS_DUMP_FORMATS_H_

#include <string>
#include <string_view>

namespace crawlrank::tools {

// Records end with CRLF (RFC 4180, section 2).
inline constexpr std::string_view kCsvLineEnd = "\r\n";

// Appends `value` as one CSV field: as it is, or in double quotes with each quote doubled
// when it holds a comma, a quote, CR, LF, or starts or ends with a space.
void AppendCsvField(std::string_view value, std::string& out);

// Appends `value` as XML character data or an attribute value: & < > " ' as entities, and
// each byte XML 1.0 cannot carry (C0 controls but tab, LF and CR; DEL; any byte of 0x80
// and above, so that invalid UTF-8 cannot reach the document) as %XX, the way a URL
// escapes it.
void AppendXmlText(std::string_view value, std::string& out);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_DUMP_FORMATS_H_
