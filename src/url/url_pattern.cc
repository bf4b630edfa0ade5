#include "crawlrank/url_pattern.h"

#include <re2/re2.h>

namespace crawlrank {

struct UrlPattern::Program {
  Program(std::string_view text, const RE2::Options& options)
      : pattern(text), re(pattern, options) {}
  std::string pattern;
  RE2 re;
};

namespace {

// What to tell a person whose pattern used a construct RE2 leaves out on purpose.
std::string_view HintFor(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadPerlOp:
    case RE2::ErrorBadEscape:
    case RE2::ErrorRepeatOp:
    case RE2::ErrorRepeatArgument:
    case RE2::ErrorRepeatSize:
      return " (crawlrank's patterns are RE2: no look-around, no backreferences; "
             "see include/crawlrank/url_pattern.h)";
    default:
      return "";
  }
}

}  // namespace

Result<UrlPattern> UrlPattern::Compile(std::string_view pattern) {
  const auto refuse = [&](std::string_view why) {
    std::string shown(pattern.substr(0, 200));
    if (shown.size() < pattern.size()) shown += "...";
    return InvalidArgumentError("URL pattern \"" + shown + "\": " + std::string(why));
  };
  if (pattern.size() > kMaxPatternBytes) {
    return refuse("longer than " + std::to_string(kMaxPatternBytes) + " bytes");
  }
  RE2::Options options;
  options.set_log_errors(false);  // the error is returned, not printed
  auto program = std::make_shared<const Program>(pattern, options);
  if (!program->re.ok()) {
    return refuse(program->re.error() + std::string(HintFor(program->re.error_code())));
  }
  return UrlPattern(std::move(program));
}

bool UrlPattern::Search(std::string_view url) const {
  return RE2::PartialMatch(re2::StringPiece(url.data(), url.size()), program_->re);
}

const std::string& UrlPattern::pattern() const { return program_->pattern; }

}  // namespace crawlrank
