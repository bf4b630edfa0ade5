#include "load_input.h"

#include <algorithm>
#include <limits>

#include "page_line.h"
#include "tool_common.h"

namespace crawlrank::tools {

Status InputReader::ReadAll(std::istream& in) {
  std::string line;
  while (std::getline(in, line)) {
    ++input_.lines;
    Status status = ReadLine(line);
    if (!status.ok()) {
      return InvalidArgumentError(name_ + ":" + std::to_string(input_.lines) + ": " +
                                  status.message());
    }
  }
  if (in.bad()) return IoError("read " + name_ + ": input error");
  return Status::Ok();
}

Status InputReader::ReadLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  const auto fields = SplitFields(line);
  if (fields.empty() || fields[0].front() == '#') return Status::Ok();
  if (fields.size() == kBasicPageFields || fields.size() == kFullPageFields) {
    return ReadPage(fields);
  }
  if (fields.size() != 2) {
    return InvalidArgumentError("expected `src dst` or a page_db_dump info line (" +
                                std::to_string(kBasicPageFields) + " or " +
                                std::to_string(kFullPageFields) + " fields), got " +
                                std::to_string(fields.size()) + " fields");
  }
  for (std::string_view field : fields) {
    if (field.size() > 1 && field[0] == '-' && IsNumber(field.substr(1))) {
      return InvalidArgumentError("page index " + QuoteForMessage(field) +
                                  " is negative: indexes run from 0");
    }
  }
  const bool ids = IsNumber(fields[0]) && IsNumber(fields[1]);
  return ids ? ReadIdLink(fields[0], fields[1]) : ReadUrlLink(fields[0], fields[1]);
}

bool InputReader::IsNumber(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

Status InputReader::Become(Kind kind) {
  static constexpr std::string_view kNames[] = {"", "page lines", "index pairs", "URL pairs"};
  if (kind_ == kind) return Status::Ok();
  const bool allowed = kind_ == Kind::kNone || (kind_ == Kind::kPages && kind == Kind::kIdLinks);
  if (!allowed) {
    return InvalidArgumentError(std::string(kNames[int(kind)]) + " cannot follow " +
                                std::string(kNames[int(kind_)]));
  }
  kind_ = kind;
  return Status::Ok();
}

Status InputReader::ReadPage(std::span<const std::string_view> fields) {
  CRAWLRANK_RETURN_IF_ERROR(Become(Kind::kPages));
  CRAWLRANK_ASSIGN_OR_RETURN(PageRecord page, ParsePageLine(fields));
  const uint64_t expected = first_id_ + input_.pages.size();
  if (page.id != expected) {
    return InvalidArgumentError(
        "index " + std::to_string(page.id) + " where " + std::to_string(expected) +
        " was expected (pages must be in index order, starting at the DB's page count " +
        std::to_string(first_id_) + ")");
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::string canonical, CanonicalizeUrl(page.url, profile_));
  if (canonical != page.url) {
    return InvalidArgumentError("URL " + QuoteForMessage(page.url) + " is not canonical under " +
                                std::string(UrlProfileName(profile_)) + " (that is " +
                                QuoteForMessage(canonical) +
                                "); was the dump made with another --profile?");
  }
  if (UrlFingerprint(page.url) != page.fingerprint) {
    return InvalidArgumentError("hash " + FormatFingerprint(page.fingerprint) +
                                " is not the hash of " + QuoteForMessage(page.url) + " (" +
                                FormatFingerprint(UrlFingerprint(page.url)) + ")");
  }
  input_.pages.push_back(std::move(page));
  return Status::Ok();
}

Status InputReader::ReadIdLink(std::string_view src, std::string_view dst) {
  CRAWLRANK_RETURN_IF_ERROR(Become(Kind::kIdLinks));
  // Ids end below 2^32 - 1 so that the page count fits 32 bits.
  constexpr uint64_t kMaxId = std::numeric_limits<uint32_t>::max() - 1;
  CRAWLRANK_ASSIGN_OR_RETURN(uint64_t from, ParseUnsigned(src, kMaxId));
  CRAWLRANK_ASSIGN_OR_RETURN(uint64_t to, ParseUnsigned(dst, kMaxId));
  if (!input_.pages.empty()) {
    const uint64_t known = first_id_ + input_.pages.size();
    if (from >= known || to >= known) {
      return InvalidArgumentError("link " + std::to_string(from) + " -> " + std::to_string(to) +
                                  " names an index beyond the " + std::to_string(known) + " pages");
    }
  }
  input_.id_links.emplace_back(static_cast<uint32_t>(from), static_cast<uint32_t>(to));
  input_.max_link_id = static_cast<uint32_t>(std::max({uint64_t{input_.max_link_id}, from, to}));
  return Status::Ok();
}

Status InputReader::ReadUrlLink(std::string_view src, std::string_view dst) {
  CRAWLRANK_RETURN_IF_ERROR(Become(Kind::kUrlLinks));
  CRAWLRANK_ASSIGN_OR_RETURN(std::string from, CanonicalizeUrl(src, profile_));
  CRAWLRANK_ASSIGN_OR_RETURN(std::string to, CanonicalizeUrl(dst, profile_));
  auto [it, inserted] = group_of_.try_emplace(from, input_.url_groups.size());
  if (inserted) input_.url_groups.push_back(UrlGroup{std::move(from), {}});
  input_.url_groups[it->second].targets.push_back(Link{std::move(to), 0.f});
  ++input_.url_links;
  return Status::Ok();
}

Status CheckDenseIds(const Input& input, uint64_t first_id) {
  const uint64_t next_id = first_id + input.pages.size();
  const uint64_t max_id = input.max_link_id;
  const uint64_t can_number = 2 * uint64_t{input.id_links.size()} + (uint64_t{1} << 20);
  if (max_id >= next_id && max_id - next_id >= can_number) {
    return InvalidArgumentError("the edge list names page id " + std::to_string(max_id) +
                                ", but its " + std::to_string(input.id_links.size()) +
                                " links could number at most " + std::to_string(can_number) +
                                " new pages after id " + std::to_string(next_id) +
                                ": ids must run densely from 0 (or from the DB's page count)");
  }
  return Status::Ok();
}

}  // namespace crawlrank::tools
