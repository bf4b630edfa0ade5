// Text that strangers wrote (crawled URLs, titles, failure details), made safe to show.
#ifndef CRAWLRANK_SRC_DASHBOARD_HTML_H_
#define CRAWLRANK_SRC_DASHBOARD_HTML_H_

#include <string>
#include <string_view>

namespace crawlrank::dashboard {

// `text` as valid UTF-8: each byte that does not start a well-formed sequence (overlong
// forms, surrogates and code points past U+10FFFF included) becomes U+FFFD. NUL and the
// other C0 controls but tab, LF and CR become U+FFFD too.
std::string ValidUtf8(std::string_view text);

// ValidUtf8(text) with & < > " ' as character references: safe in element content and in
// a quoted attribute value.
std::string Escape(std::string_view text);

// An href for a crawled URL: the escaped URL when it is http or https, else empty (no
// javascript:, data: or other scheme reaches an attribute).
std::string SafeHref(std::string_view url);

}  // namespace crawlrank::dashboard

#endif  // CRAWLRANK_SRC_DASHBOARD_HTML_H_
