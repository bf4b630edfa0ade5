// Words as html_extract.h defines them (Python's `\w+`, lower-cased), for KeywordScorer and
// the link scores of ExtractHtml.
#ifndef CRAWLRANK_CRAWL_WORDS_H_
#define CRAWLRANK_CRAWL_WORDS_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/ascii.h"

namespace crawlrank::crawl_internal {

// Decodes the UTF-8 code point at text[i] and advances i past it; an invalid or truncated
// sequence gives -1 and advances i by one byte.
int32_t NextCodePoint(std::string_view text, size_t& i);

// Whether a non-ASCII code point is a word character (html_extract.h, "Words").
bool IsWordCodePoint(int32_t cp);

// Appends the lower-case form of `cp` (html_extract.h, "Words") as UTF-8.
void AppendLower(int32_t cp, std::string& out);

// Calls `f(std::string_view lower_word, size_t begin, size_t end)` for each word of `text`
// in order, [begin, end) being its bytes in `text`. Invalid UTF-8 bytes separate words.
template <typename F>
void ForEachWord(std::string_view text, F&& f) {
  std::string word;
  size_t begin = 0;
  size_t i = 0;
  while (i < text.size()) {
    const size_t at = i;
    const auto c = static_cast<unsigned char>(text[i]);
    bool is_word = false;
    if (c < 0x80) {  // ASCII fast path
      ++i;
      if (IsAsciiAlnum(static_cast<char>(c)) || c == '_') {
        if (word.empty()) begin = at;
        word += AsciiToLower(static_cast<char>(c));
        is_word = true;
      }
    } else {
      const int32_t cp = NextCodePoint(text, i);
      if (cp >= 0 && IsWordCodePoint(cp)) {
        if (word.empty()) begin = at;
        AppendLower(cp, word);
        is_word = true;
      }
    }
    if (!is_word && !word.empty()) {
      f(std::string_view(word), begin, at);
      word.clear();
    }
  }
  if (!word.empty()) f(std::string_view(word), begin, text.size());
}

}  // namespace crawlrank::crawl_internal

#endif  // CRAWLRANK_CRAWL_WORDS_H_
