#include "crawl/sitemap.h"

#include <cstdint>

#include "base/ascii.h"
#include "crawl/utf8.h"

namespace crawlrank {
namespace {


std::string DecodeXmlText(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.starts_with("<![CDATA[")) {
      const size_t end = in.find("]]>");
      out += in.substr(9, end == std::string_view::npos ? std::string_view::npos : end - 9);
      if (end == std::string_view::npos) break;
      in.remove_prefix(end + 3);
      continue;
    }
    if (in[0] != '&') {
      out += in[0];
      in.remove_prefix(1);
      continue;
    }
    // An entity is short: look for its ';' nearby only (a run of '&' stays linear).
    const size_t semi = in.substr(0, 12).find(';');
    const std::string_view name = semi == std::string_view::npos ? "" : in.substr(1, semi - 1);
    if (name == "amp") out += '&';
    else if (name == "lt") out += '<';
    else if (name == "gt") out += '>';
    else if (name == "quot") out += '"';
    else if (name == "apos") out += '\'';
    else if (name.size() > 1 && name[0] == '#' && name.size() < 10) {
      uint32_t cp = 0;
      const bool hex = name[1] == 'x' || name[1] == 'X';
      bool ok = name.size() > (hex ? 2u : 1u);
      for (char c : name.substr(hex ? 2 : 1)) {
        const int d = (hex ? IsAsciiHexDigit(c) : IsAsciiDigit(c)) ? AsciiHexValue(c) : -1;
        if (d < 0) ok = false;
        else cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
      }
      if (ok && cp != 0 && cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF)) {
        crawl_internal::AppendUtf8(cp, out);
      }
    } else {
      out += '&';  // not an entity: kept as it is
      in.remove_prefix(1);
      continue;
    }
    in.remove_prefix(semi + 1);
  }
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r' ||
                        s.front() == '\n')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' ||
                        s.back() == '\n')) {
    s.remove_suffix(1);
  }
  return s;
}

}  // namespace

SitemapUrls ParseSitemap(std::string_view body, size_t max_urls) {
  SitemapUrls result;
  const std::string_view trimmed = Trim(body);
  if (!trimmed.starts_with("<")) {  // a text sitemap
    while (!body.empty() && result.pages.size() < max_urls) {
      const size_t end = body.find('\n');
      const std::string_view line = Trim(body.substr(0, end));
      if (line.starts_with("http://") || line.starts_with("https://")) {
        result.pages.emplace_back(line);
      }
      if (end == std::string_view::npos) break;
      body.remove_prefix(end + 1);
    }
    return result;
  }
  const bool index = body.find("<sitemapindex") != std::string_view::npos;
  auto& out = index ? result.sitemaps : result.pages;
  size_t at = 0;
  while (out.size() < max_urls) {
    const size_t open = body.find("<loc", at);
    if (open == std::string_view::npos) break;
    const size_t gt = body.find('>', open);
    if (gt == std::string_view::npos) break;
    const char after = body[open + 4];
    if (after != '>' && after != ' ' && after != '\t' && after != '\r' && after != '\n') {
      at = gt + 1;  // <location> or the like
      continue;
    }
    const size_t close = body.find("</loc>", gt);
    if (close == std::string_view::npos) break;
    std::string url = DecodeXmlText(Trim(body.substr(gt + 1, close - gt - 1)));
    if (!url.empty()) out.push_back(std::move(url));
    at = close + 6;
  }
  return result;
}

}  // namespace crawlrank
