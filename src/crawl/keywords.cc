// KeywordScorer (html_extract.h) and the word definition it shares with ExtractHtml.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/errno_text.h"
#include "crawl/utf8.h"
#include "crawl/words.h"
#include "crawlrank/html_extract.h"

namespace crawlrank {
namespace crawl_internal {

int32_t NextCodePoint(std::string_view text, size_t& i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = byte(i);
  if (c < 0x80) return text[i++];
  int len;
  int32_t cp;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range (Unicode Table 3-7)
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0F;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    ++i;
    return -1;
  }
  if (i + len > text.size()) {
    ++i;
    return -1;
  }
  for (int k = 1; k < len; ++k) {
    const unsigned char b = byte(i + k);
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) {
      ++i;
      return -1;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  i += len;
  return cp;
}

bool IsWordCodePoint(int32_t cp) {
  if (cp < 0x80) {
    return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z') || (cp >= '0' && cp <= '9') ||
           cp == '_';
  }
  if (cp < 0xC0) {
    // Latin-1: only ª ² ³ µ ¹ º ¼ ½ ¾ are letters or numbers among U+0080-U+00BF.
    switch (cp) {
      case 0xAA:
      case 0xB2:
      case 0xB3:
      case 0xB5:
      case 0xB9:
      case 0xBA:
      case 0xBC:
      case 0xBD:
      case 0xBE: return true;
      default: return false;
    }
  }
  if (cp == 0xD7 || cp == 0xF7) return false;  // × ÷
  if (cp >= 0x2000 && cp <= 0x2BFF) {
    // General punctuation, super/subscripts, currency, letterlike, number forms, arrows,
    // math, technical, box drawing, dingbats...: symbols, but the digits among them are
    // \w in Python; keep superscript/subscript digits (U+2070-U+209F) as words.
    return cp >= 0x2070 && cp <= 0x209F;
  }
  if (cp >= 0x2E00 && cp <= 0x2E7F) return false;  // supplemental punct.
  if ((cp >= 0x3000 && cp <= 0x3003) || (cp >= 0x3008 && cp <= 0x301F)) return false;
  if (cp >= 0xFF01 && cp <= 0xFF0F) return false;  // fullwidth ! " # ... /
  if ((cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40 && cp != 0xFF3F) ||
      (cp >= 0xFF5B && cp <= 0xFF65)) {
    return false;
  }
  if (cp == 0xFEFF || cp == 0xFFFD) return false;
  return true;
}

namespace {

// Unicode's simple lower-case mapping for the blocks html_extract.h names.
int32_t ToLower(int32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 0x20;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) return cp + 0x20;  // Latin-1
  if (cp >= 0x100 && cp <= 0x17F) {                              // Latin Extended-A
    if (cp == 0x130 || cp == 0x131 || cp == 0x138 || cp == 0x149 || cp == 0x17F) return cp;
    if (cp == 0x178) return 0xFF;
    const bool pairs_from_even = (cp < 0x138) || (cp >= 0x14A && cp < 0x178);
    return pairs_from_even ? (cp % 2 == 0 ? cp + 1 : cp) : (cp % 2 == 1 ? cp + 1 : cp);
  }
  if (cp >= 0x391 && cp <= 0x3AB && cp != 0x3A2) return cp + 0x20;  // Greek
  if (cp >= 0x400 && cp <= 0x40F) return cp + 0x50;                 // Cyrillic
  if (cp >= 0x410 && cp <= 0x42F) return cp + 0x20;
  return cp;
}
}  // namespace

void AppendLower(int32_t cp, std::string& out) {
  AppendUtf8(static_cast<uint32_t>(ToLower(cp)), out);
}

}  // namespace crawl_internal

KeywordScorer::KeywordScorer(const std::vector<std::string>& keywords) {
  for (const std::string& keyword : keywords) {
    crawl_internal::ForEachWord(
        keyword, [&](std::string_view word, size_t, size_t) { words_.emplace_back(word); });
  }
  std::sort(words_.begin(), words_.end());
  words_.erase(std::unique(words_.begin(), words_.end()), words_.end());
}

Result<KeywordScorer> KeywordScorer::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return IoError("read keywords " + QuoteForMessage(path) + ": " + ErrnoText());
  }
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    lines.push_back(std::move(line));
  }
  if (in.bad()) {
    return IoError("read keywords " + QuoteForMessage(path) + ": " + ErrnoText());
  }
  KeywordScorer scorer(lines);
  if (scorer.empty()) {
    return InvalidArgumentError("read keywords " + QuoteForMessage(path) + ": no keywords");
  }
  return scorer;
}

int KeywordScorer::Find(std::string_view lower_word) const {
  const auto it = std::lower_bound(words_.begin(), words_.end(), lower_word,
                                   [](const std::string& a, std::string_view b) { return a < b; });
  return it != words_.end() && *it == lower_word ? static_cast<int>(it - words_.begin()) : -1;
}

double KeywordScorer::Share(std::string_view text) const {
  if (words_.empty()) return 0;
  std::vector<bool> seen(words_.size());
  size_t found = 0;
  crawl_internal::ForEachWord(text, [&](std::string_view word, size_t, size_t) {
    const int k = Find(word);
    if (k >= 0 && !seen[k]) {
      seen[k] = true;
      ++found;
    }
  });
  return static_cast<double>(found) / static_cast<double>(words_.size());
}

}  // namespace crawlrank
