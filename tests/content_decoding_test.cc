#include "crawl/content_decoding.h"

#include <brotli/encode.h>
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <cstdio>
#include <random>
#include <string>

namespace crawlrank {
namespace {

// Each coding is made by its reference library, so the decoder is checked against an
// encoder it does not share code with.
std::string ZlibCompress(std::string_view in, int window_bits) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, in.size()) + 32, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
std::string Gzip(std::string_view in) { return ZlibCompress(in, 16 + 15); }
std::string ZlibFormat(std::string_view in) { return ZlibCompress(in, 15); }
std::string RawDeflate(std::string_view in) { return ZlibCompress(in, -15); }

std::string Brotli(std::string_view in) {
  size_t size = BrotliEncoderMaxCompressedSize(in.size()) + 16;
  std::string out(size, '\0');
  EXPECT_TRUE(BrotliEncoderCompress(BROTLI_DEFAULT_QUALITY, BROTLI_DEFAULT_WINDOW,
                                    BROTLI_MODE_GENERIC, in.size(),
                                    reinterpret_cast<const uint8_t*>(in.data()), &size,
                                    reinterpret_cast<uint8_t*>(out.data())));
  out.resize(size);
  return out;
}

std::string Zstd(std::string_view in) {
  std::string out(ZSTD_compressBound(in.size()), '\0');
  const size_t size = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  EXPECT_FALSE(ZSTD_isError(size));
  out.resize(size);
  return out;
}

// Text that compresses, with a seeded random part so that the codings have work to do.
std::string Sample(size_t size, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string out;
  while (out.size() < size) {
    out += "<p>crawlrank page " + std::to_string(rng() % 1000) + " \xc3\xa9t\xc3\xa9</p>\n";
  }
  out.resize(size);
  return out;
}

constexpr uint64_t kMax = 10 << 20;

TEST(ContentDecodingTest, EachCodingDecodesWhatItsReferenceEncoderMade) {
  const uint64_t seed = std::random_device{}();
  std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
  for (size_t size : {size_t{0}, size_t{1}, size_t{1000}, size_t{300'000}}) {
    const std::string text = Sample(size, seed + size);
    EXPECT_EQ(*DecodeContent("gzip", Gzip(text), kMax), text) << size;
    EXPECT_EQ(*DecodeContent("x-gzip", Gzip(text), kMax), text) << size;
    EXPECT_EQ(*DecodeContent("deflate", ZlibFormat(text), kMax), text) << size;
    EXPECT_EQ(*DecodeContent("br", Brotli(text), kMax), text) << size;
    EXPECT_EQ(*DecodeContent("zstd", Zstd(text), kMax), text) << size;
  }
}

TEST(ContentDecodingTest, NoCodingOrIdentityIsTheBodyItself) {
  EXPECT_EQ(*DecodeContent("", "abc", kMax), "abc");
  EXPECT_EQ(*DecodeContent("identity", "abc", kMax), "abc");
  EXPECT_EQ(*DecodeContent(" , IDENTITY ,", "abc", kMax), "abc");
}

// RFC 9110 §8.4: "If one or more encodings have been applied to a representation, the
// sender that applied the encodings MUST generate a Content-Encoding header field that
// lists the content codings in the order in which they were applied."
TEST(ContentDecodingTest, SeveralCodingsAreUndoneLastFirst) {
  const std::string text = Sample(5000, 7);
  EXPECT_EQ(*DecodeContent("gzip, br", Brotli(Gzip(text)), kMax), text);
  EXPECT_EQ(*DecodeContent("zstd,deflate", ZlibFormat(Zstd(text)), kMax), text);
  EXPECT_FALSE(DecodeContent("br, gzip", Brotli(Gzip(text)), kMax).ok());
}

TEST(ContentDecodingTest, NamesIgnoreCaseAndBlanks) {
  const std::string text = Sample(2000, 8);
  EXPECT_EQ(*DecodeContent("  GZip ", Gzip(text), kMax), text);
  EXPECT_EQ(*DecodeContent("BR", Brotli(text), kMax), text);
}

TEST(ContentDecodingTest, DeflateSentRawIsReadToo) {
  const std::string text = Sample(4000, 9);
  EXPECT_EQ(*DecodeContent("deflate", RawDeflate(text), kMax), text);
}

TEST(ContentDecodingTest, GzipOfSeveralMembersIsTheirConcatenation) {
  const std::string a = Sample(3000, 10), b = Sample(2000, 11);
  EXPECT_EQ(*DecodeContent("gzip", Gzip(a) + Gzip(b), kMax), a + b);
  // What follows the last member is ignored, as browsers and libcurl do.
  EXPECT_EQ(*DecodeContent("gzip", Gzip(a) + "\r\n", kMax), a);
}

TEST(ContentDecodingTest, ZstdOfSeveralFramesIsTheirConcatenation) {
  const std::string a = Sample(3000, 12), b = Sample(2000, 13);
  EXPECT_EQ(*DecodeContent("zstd", Zstd(a) + Zstd(b), kMax), a + b);
}

TEST(ContentDecodingTest, ABombStopsAtTheCap) {
  const std::string zeros(20 << 20, '\0');  // 20 MiB of zeros: about 20 KB of gzip
  for (const auto& [coding, body] :
       {std::pair{"gzip", Gzip(zeros)}, std::pair{"deflate", ZlibFormat(zeros)},
        std::pair{"br", Brotli(zeros)}, std::pair{"zstd", Zstd(zeros)}}) {
    ASSERT_LT(body.size(), 100'000u) << coding;
    Result<std::string> decoded = DecodeContent(coding, body, 1 << 20);
    ASSERT_FALSE(decoded.ok()) << coding;
    EXPECT_EQ(decoded.status().code(), StatusCode::kResourceExhausted) << coding;
    EXPECT_NE(decoded.status().message().find(coding), std::string::npos)
        << decoded.status().message();
  }
  // At the cap exactly, it fits.
  EXPECT_EQ(DecodeContent("gzip", Gzip(zeros.substr(0, 1 << 20)), 1 << 20)->size(), 1u << 20);
  EXPECT_FALSE(DecodeContent("", zeros, 1 << 20).ok());
}

TEST(ContentDecodingTest, TruncatedDataIsAnErrorNamingTheCoding) {
  const std::string text = Sample(100'000, 14);
  for (const auto& [coding, body] :
       {std::pair{"gzip", Gzip(text)}, std::pair{"deflate", ZlibFormat(text)},
        std::pair{"br", Brotli(text)}, std::pair{"zstd", Zstd(text)}}) {
    Result<std::string> decoded = DecodeContent(coding, body.substr(0, body.size() / 2), kMax);
    ASSERT_FALSE(decoded.ok()) << coding;
    EXPECT_EQ(decoded.status().code(), StatusCode::kInvalidArgument) << coding;
    EXPECT_NE(decoded.status().message().find(coding), std::string::npos)
        << decoded.status().message();
  }
}

TEST(ContentDecodingTest, GarbageAndTrailingBytesAreErrors) {
  const std::string text = Sample(1000, 15);
  for (const char* coding : {"gzip", "deflate", "br", "zstd"}) {
    EXPECT_FALSE(DecodeContent(coding, "this is not compressed at all, not one bit", kMax).ok())
        << coding;
  }
  EXPECT_FALSE(DecodeContent("zstd", "", kMax).ok());
  EXPECT_FALSE(DecodeContent("deflate", ZlibFormat(text) + "xyz", kMax).ok());
  EXPECT_FALSE(DecodeContent("br", Brotli(text) + "xyz", kMax).ok());
  EXPECT_FALSE(DecodeContent("zstd", Zstd(text) + "xyz", kMax).ok());
}

TEST(ContentDecodingTest, AnUnknownCodingIsRefusedByName) {
  Result<std::string> decoded = DecodeContent("compress", "x", kMax);
  ASSERT_FALSE(decoded.ok());
  EXPECT_NE(decoded.status().message().find("compress"), std::string::npos);
  EXPECT_EQ(AcceptedContentCodings(), "gzip, deflate, br, zstd");
}

}  // namespace
}  // namespace crawlrank
