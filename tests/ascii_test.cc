// src/base/ascii.h against <cctype> in the "C" locale, which a test process runs in (it
// calls no setlocale): there the C library's classes are exactly ASCII's, so they are an
// independent oracle for every one of the 256 byte values, signed char or not.
#include "base/ascii.h"

#include <gtest/gtest.h>

#include <cctype>
#include <clocale>
#include <cstdlib>
#include <string>

namespace crawlrank {
namespace {

TEST(AsciiTest, ClassesMatchTheCLocaleForEveryByte) {
  ASSERT_STREQ(std::setlocale(LC_CTYPE, nullptr), "C");
  for (int byte = 0; byte < 256; ++byte) {
    const auto c = static_cast<char>(byte);
    const auto u = static_cast<unsigned char>(byte);
    SCOPED_TRACE("byte " + std::to_string(byte));
    EXPECT_EQ(IsAsciiDigit(c), std::isdigit(u) != 0);
    EXPECT_EQ(IsAsciiUpper(c), std::isupper(u) != 0);
    EXPECT_EQ(IsAsciiLower(c), std::islower(u) != 0);
    EXPECT_EQ(IsAsciiAlpha(c), std::isalpha(u) != 0);
    EXPECT_EQ(IsAsciiAlnum(c), std::isalnum(u) != 0);
    EXPECT_EQ(IsAsciiHexDigit(c), std::isxdigit(u) != 0);
    // HTML's whitespace is C's without vertical tab.
    EXPECT_EQ(IsAsciiSpace(c), std::isspace(u) != 0 && c != '\v');
    EXPECT_EQ(AsciiToLower(c), static_cast<char>(std::tolower(u)));
    EXPECT_EQ(AsciiToUpper(c), static_cast<char>(std::toupper(u)));
    EXPECT_EQ(IsAscii(std::string(1, c)), byte < 0x80);
    if (IsAsciiHexDigit(c)) {
      EXPECT_EQ(AsciiHexValue(c), std::strtol(std::string(1, c).c_str(), nullptr, 16));
    }
  }
}

TEST(AsciiTest, TrimTakesHtmlWhitespaceOffBothEndsOnly) {
  EXPECT_EQ(TrimAsciiSpace(" \t\r\n\f a b \n"), "a b");
  EXPECT_EQ(TrimAsciiSpace("\va\v"), "\va\v");  // vertical tab is not HTML whitespace
  EXPECT_EQ(TrimAsciiSpace(" \n "), "");
  EXPECT_EQ(TrimAsciiSpace("\xC2\xA0x"), "\xC2\xA0x");  // nor is U+00A0
}

TEST(AsciiTest, StringsChangeOnlyAsciiLetters) {
  std::string s = "HTTP://Ex\xC3\x89.Org/A%2F";  // \xC3\x89 is É in UTF-8: left as it is
  AsciiStrToLower(s);
  EXPECT_EQ(s, "http://ex\xC3\x89.org/a%2f");
  EXPECT_TRUE(AsciiEqualsIgnoreCase("User-Agent", "user-AGENT"));
  EXPECT_FALSE(AsciiEqualsIgnoreCase("user-agent", "user-agents"));
  EXPECT_FALSE(AsciiEqualsIgnoreCase("\xC3\x89", "\xC3\xA9"));  // É and é: not ASCII
  EXPECT_TRUE(IsAscii("plain text"));
  EXPECT_FALSE(IsAscii("caf\xC3\xA9"));
}

}  // namespace
}  // namespace crawlrank
