// Base64 (src/base/base64.h) against RFC 4648's test vectors (section 10), and what a
// decoder must refuse.
#include "base/base64.h"

#include <random>

#include "testutil.h"

namespace crawlrank {
namespace {

TEST(Base64Test, Rfc4648Section10Vectors) {
  const std::pair<std::string_view, std::string_view> vectors[] = {
      {"", ""},         {"f", "Zg=="},         {"fo", "Zm8="},       {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [bytes, text] : vectors) {
    EXPECT_EQ(EncodeBase64(bytes), text);
    EXPECT_EQ(DecodeBase64(text), std::string(bytes)) << text;
  }
}

TEST(Base64Test, EveryByteStringRoundTrips) {
  const uint64_t seed = 20261126;
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937_64 random(seed);
  for (size_t size = 0; size < 300; ++size) {
    std::string bytes(size, '\0');
    for (char& c : bytes) c = static_cast<char>(random());
    const std::string text = EncodeBase64(bytes);
    EXPECT_EQ(text.size(), (size + 2) / 3 * 4);
    EXPECT_EQ(DecodeBase64(text), bytes);
  }
}

TEST(Base64Test, RefusesWhatIsNotCanonicalBase64) {
  for (std::string_view text : {"Zg", "Zg=", "Zm9", "Z===", "====", "Zg==Zg==", "Zh==", "Zm9=",
                                "Zm-v", "Zm9v\n", " Zm9v", "Zm_v", "Zm=v"}) {
    EXPECT_EQ(DecodeBase64(text), std::nullopt) << text;
  }
}

}  // namespace
}  // namespace crawlrank
