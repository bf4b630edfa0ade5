#include "load_input.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

#include "page_line.h"
#include "tool_common.h"

namespace crawlrank::tools {

Status InputReader::ReadAll(std::istream& in) {
  // Whole blocks, split into lines here: getline costs more than the rest of a URL pair.
  constexpr size_t kBlock = size_t{1} << 20;
  std::vector<char> buffer(kBlock);
  size_t held = 0;  // bytes of a line not yet complete, at the start of `buffer`
  const auto read_line = [&](std::string_view line) {
    ++input_.lines;
    Status status = ReadLine(line);
    if (!status.ok()) {
      return InvalidArgumentError(name_ + ":" + std::to_string(input_.lines) + ": " +
                                  status.message());
    }
    if (batch_.links >= batch_lines_ || batch_bytes_ >= kUrlBatchBytes) return FlushBatch();
    return Status::Ok();
  };
  for (;;) {
    if (held == buffer.size()) buffer.resize(2 * buffer.size());  // a line longer than it
    in.read(buffer.data() + held, static_cast<std::streamsize>(buffer.size() - held));
    const size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    const char* const end = buffer.data() + held + got;
    const char* line = buffer.data();
    const char* search = line + held;  // the held bytes hold no newline
    while (const char* newline = static_cast<const char*>(
               std::memchr(search, '\n', static_cast<size_t>(end - search)))) {
      CRAWLRANK_RETURN_IF_ERROR(
          read_line(std::string_view(line, static_cast<size_t>(newline - line))));
      line = search = newline + 1;
    }
    held = static_cast<size_t>(end - line);
    std::memmove(buffer.data(), line, held);
  }
  if (in.bad()) return IoError("read " + name_ + ": input error");
  if (held > 0) CRAWLRANK_RETURN_IF_ERROR(read_line(std::string_view(buffer.data(), held)));
  if (batch_.links > 0) return FlushBatch();
  return Status::Ok();
}

Status InputReader::ReadLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::array<std::string_view, kStatePageFields> split;
  const size_t n = SplitFields(line, split);
  const std::span<const std::string_view> fields(split.data(), std::min(n, split.size()));
  if (fields.empty() || fields[0].front() == '#') return Status::Ok();
  if (n == kBasicPageFields || n == kFullPageFields || n == kStatePageFields) {
    return ReadPage(fields);
  }
  if (n != 2) {
    return InvalidArgumentError("expected `src dst` or a page_db_dump info line (" +
                                std::to_string(kBasicPageFields) + ", " +
                                std::to_string(kFullPageFields) + " or " +
                                std::to_string(kStatePageFields) + " fields), got " +
                                std::to_string(n) + " fields");
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
  // The bounds every write checks, here before anything is written.
  CRAWLRANK_RETURN_IF_ERROR(ValidatePageRecord(page));
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
  if (batch_.links == 0 || src != last_source_) {
    CRAWLRANK_ASSIGN_OR_RETURN(std::string from, CanonicalizeUrl(src, profile_));
    auto [it, inserted] = group_of_.try_emplace(from, batch_.groups.size());
    if (inserted) {
      batch_bytes_ += from.size();
      batch_.groups.push_back(UrlGroup{std::move(from), {}});
    }
    last_source_.assign(src);
    last_group_ = it->second;
  }
  CRAWLRANK_ASSIGN_OR_RETURN(std::string to, CanonicalizeUrl(dst, profile_));
  batch_bytes_ += to.size();
  batch_.groups[last_group_].targets.push_back(Link{std::move(to), 0.f});
  if (batch_.links++ == 0) batch_.first_line = input_.lines;
  batch_.last_line = input_.lines;
  ++input_.url_links;
  return Status::Ok();
}

Status InputReader::FlushBatch() {
  Status status = sink_(batch_);
  batch_ = UrlBatch();
  group_of_.clear();
  batch_bytes_ = 0;
  return status;
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
