#include "crawlrank/node_list.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace crawlrank {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// The next code point of `text` from `*pos` (advanced past it): a byte that does not start
// a valid, shortest UTF-8 sequence of a scalar value is U+FFFD on its own.
char32_t NextCodePoint(std::string_view text, size_t* pos) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(*pos);
  size_t length = 0;
  char32_t cp = 0;
  char32_t least = 0;
  if (lead < 0x80) {
    ++*pos;
    return lead;
  } else if ((lead & 0xE0) == 0xC0) {
    length = 2, cp = lead & 0x1F, least = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, cp = lead & 0x0F, least = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, cp = lead & 0x07, least = 0x10000;
  } else {
    ++*pos;
    return kReplacement;
  }
  if (*pos + length > text.size()) {
    ++*pos;
    return kReplacement;
  }
  for (size_t i = 1; i < length; ++i) {
    if ((byte(*pos + i) & 0xC0) != 0x80) {
      ++*pos;
      return kReplacement;
    }
    cp = (cp << 6) | (byte(*pos + i) & 0x3F);
  }
  if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++*pos;
    return kReplacement;
  }
  *pos += length;
  return cp;
}

// Calls fn with each UTF-16 code unit of `utf8`, in order.
template <typename Fn>
void ForEachUtf16Unit(std::string_view utf8, Fn&& fn) {
  for (size_t pos = 0; pos < utf8.size();) {
    const char32_t cp = NextCodePoint(utf8, &pos);
    if (cp < 0x10000) {
      fn(static_cast<char16_t>(cp));
    } else {
      fn(static_cast<char16_t>(0xD800 + ((cp - 0x10000) >> 10)));
      fn(static_cast<char16_t>(0xDC00 + ((cp - 0x10000) & 0x3FF)));
    }
  }
}

std::u16string Utf16Of(std::string_view utf8) {
  std::u16string out;
  ForEachUtf16Unit(utf8, [&](char16_t unit) { out.push_back(unit); });
  return out;
}

std::string Escaped(std::string_view part) {
  std::string out;
  for (char c : part) {
    if (c == '_') {
      out += "%5F";
    } else {
      out += c;
    }
  }
  return out;
}

// Whether `entry` is host:port: a host (a name, or an IPv6 address in brackets) and a
// port in 1..65535.
Status CheckEntry(std::string_view entry) {
  const auto bad = [&](std::string_view why) {
    return InvalidArgumentError("node \"" + std::string(entry) + "\": " + std::string(why));
  };
  const size_t colon = entry.rfind(':');
  if (colon == std::string_view::npos) return bad("expected host:port");
  const std::string_view host = entry.substr(0, colon);
  const std::string_view port = entry.substr(colon + 1);
  if (host.empty() || host == "[]") return bad("no host before the port");
  if (host.front() == '[' ? host.back() != ']' : host.find(':') != std::string_view::npos) {
    return bad("an IPv6 host goes in brackets, [::1]:9000");
  }
  unsigned value = 0;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), value);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || value < 1 ||
      value > 65535) {
    return bad("the port is not a number in 1..65535");
  }
  return Status::Ok();
}

std::string JoinNodes(const std::vector<std::string>& nodes) {
  std::string out;
  for (const std::string& entry : nodes) out += (out.empty() ? "" : ",") + entry;
  return out;
}

}  // namespace

int32_t JavaStringHash(std::string_view utf8) {
  uint32_t h = 0;  // unsigned: wraps as Java's int does, without undefined behaviour
  ForEachUtf16Unit(utf8, [&](char16_t unit) { h = 31 * h + unit; });
  return static_cast<int32_t>(h);
}

bool JavaStringLess(std::string_view a, std::string_view b) {
  return Utf16Of(a) < Utf16Of(b);
}

std::string QueueIdentifier(std::string_view crawl_id, std::string_view key) {
  return Escaped(crawl_id.empty() ? "DEFAULT" : crawl_id) + "_" + Escaped(key);
}

Result<NodeList> NodeList::Make(std::vector<std::string> nodes, std::string_view self) {
  if (nodes.empty()) return InvalidArgumentError("the node list is empty");
  for (const std::string& entry : nodes) CRAWLRANK_RETURN_IF_ERROR(CheckEntry(entry));
  std::sort(nodes.begin(), nodes.end(), JavaStringLess);
  const auto repeated = std::adjacent_find(nodes.begin(), nodes.end());
  if (repeated != nodes.end()) {
    return InvalidArgumentError("node \"" + *repeated + "\" is in the node list twice");
  }
  const auto found = std::find(nodes.begin(), nodes.end(), self);
  if (found == nodes.end()) {
    return InvalidArgumentError("this node, \"" + std::string(self) +
                                "\", is not in the node list " + JoinNodes(nodes));
  }
  const auto index = static_cast<size_t>(found - nodes.begin());
  return NodeList(std::move(nodes), index);
}

Result<NodeList> NodeList::Parse(std::string_view comma_separated, std::string_view self) {
  std::vector<std::string> nodes;
  size_t start = 0;
  while (start <= comma_separated.size()) {
    size_t end = comma_separated.find(',', start);
    if (end == std::string_view::npos) end = comma_separated.size();
    nodes.emplace_back(comma_separated.substr(start, end - start));
    start = end + 1;
  }
  if (comma_separated.empty()) nodes.clear();
  return Make(std::move(nodes), self);
}

size_t NodeList::OwnerOf(std::string_view crawl_id, std::string_view key) const {
  const int32_t hash = JavaStringHash(QueueIdentifier(crawl_id, key));
  return static_cast<size_t>(std::abs(hash % static_cast<int32_t>(nodes_.size())));
}

std::string NodeList::Joined() const {
  return JoinNodes(nodes_);
}

}  // namespace crawlrank
