#include "crawl/content_decoding.h"

#include <brotli/decode.h>
#include <zlib.h>
#include <zstd.h>

#include <array>
#include <memory>
#include <vector>

#include "base/ascii.h"

namespace crawlrank {
namespace {

constexpr size_t kChunk = 64 << 10;
// zstd frames may ask for a window of up to 2 GiB; RFC 8878 §3.1.1.1.2 lets an HTTP
// decoder refuse more than 8 MiB, which bounds its memory.
constexpr int kZstdWindowLogMax = 23;

Status TooLarge(std::string_view coding, uint64_t max_bytes) {
  return ResourceExhaustedError("content coding " + std::string(coding) + ": decodes to over " +
                                std::to_string(max_bytes) + " bytes");
}

Status Corrupt(std::string_view coding, std::string_view what) {
  return InvalidArgumentError("content coding " + std::string(coding) + ": " + std::string(what));
}

struct ZStreamEnd {
  void operator()(z_stream* z) const { inflateEnd(z); }
};

// One zlib-family stream (window_bits as inflateInit2 takes them). gzip may hold several
// members, and whatever follows the last one is ignored, as browsers and libcurl do.
Result<std::string> Inflate(std::string_view coding, std::string_view in, int window_bits,
                            uint64_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, window_bits) != Z_OK) return InternalError("zlib: inflateInit2 failed");
  std::unique_ptr<z_stream, ZStreamEnd> end(&z);
  const bool gzip = window_bits > 15;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::string out;
  std::array<char, kChunk> buffer;
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buffer.data());
    z.avail_out = static_cast<uInt>(buffer.size());
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer.data(), buffer.size() - z.avail_out);
    if (out.size() > max_bytes) return TooLarge(coding, max_bytes);
    if (rc == Z_STREAM_END) {
      const bool next_member = gzip && z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b;
      if (!next_member) {
        if (!gzip && z.avail_in > 0) return Corrupt(coding, "bytes after the end of the stream");
        return out;
      }
      inflateReset(&z);
      continue;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) return Corrupt(coding, "the data ends early");
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Corrupt(coding, z.msg != nullptr ? z.msg : "corrupt data");
    }
  }
}

// deflate is the zlib format (RFC 9110), but some servers send raw DEFLATE: a stream whose
// first two bytes are not a zlib header is read as raw.
Result<std::string> Deflate(std::string_view in, uint64_t max_bytes) {
  const bool zlib_header = in.size() >= 2 && (static_cast<uint8_t>(in[0]) & 0x0f) == 8 &&
                           ((static_cast<uint8_t>(in[0]) << 8) | static_cast<uint8_t>(in[1])) % 31 == 0;
  return Inflate("deflate", in, zlib_header ? 15 : -15, max_bytes);
}

struct BrotliEnd {
  void operator()(BrotliDecoderState* s) const { BrotliDecoderDestroyInstance(s); }
};

Result<std::string> Brotli(std::string_view in, uint64_t max_bytes) {
  std::unique_ptr<BrotliDecoderState, BrotliEnd> state(
      BrotliDecoderCreateInstance(nullptr, nullptr, nullptr));
  if (!state) return ResourceExhaustedError("brotli: out of memory");
  size_t avail_in = in.size();
  const auto* next_in = reinterpret_cast<const uint8_t*>(in.data());
  std::string out;
  std::array<uint8_t, kChunk> buffer;
  for (;;) {
    size_t avail_out = buffer.size();
    uint8_t* next_out = buffer.data();
    const BrotliDecoderResult rc = BrotliDecoderDecompressStream(
        state.get(), &avail_in, &next_in, &avail_out, &next_out, nullptr);
    out.append(reinterpret_cast<const char*>(buffer.data()), buffer.size() - avail_out);
    if (out.size() > max_bytes) return TooLarge("br", max_bytes);
    switch (rc) {
      case BROTLI_DECODER_RESULT_SUCCESS:
        if (avail_in > 0) return Corrupt("br", "bytes after the end of the stream");
        return out;
      case BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT: return Corrupt("br", "the data ends early");
      case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: break;
      case BROTLI_DECODER_RESULT_ERROR:
        return Corrupt("br", BrotliDecoderErrorString(BrotliDecoderGetErrorCode(state.get())));
    }
  }
}

struct ZstdEnd {
  void operator()(ZSTD_DStream* s) const { ZSTD_freeDStream(s); }
};

// One frame or several in a row (RFC 8878 §3.1); skippable frames are skipped.
Result<std::string> Zstd(std::string_view in, uint64_t max_bytes) {
  std::unique_ptr<ZSTD_DStream, ZstdEnd> stream(ZSTD_createDStream());
  if (!stream) return ResourceExhaustedError("zstd: out of memory");
  ZSTD_DCtx_setParameter(stream.get(), ZSTD_d_windowLogMax, kZstdWindowLogMax);
  if (in.empty()) return Corrupt("zstd", "no frame");
  ZSTD_inBuffer input{in.data(), in.size(), 0};
  std::string out;
  std::array<char, kChunk> buffer;
  size_t hint = 0;  // ZSTD_decompressStream's return: 0 once a frame is whole and flushed
  const auto step = [&]() -> Status {
    ZSTD_outBuffer output{buffer.data(), buffer.size(), 0};
    hint = ZSTD_decompressStream(stream.get(), &output, &input);
    if (ZSTD_isError(hint)) return Corrupt("zstd", ZSTD_getErrorName(hint));
    out.append(buffer.data(), output.pos);
    if (out.size() > max_bytes) return TooLarge("zstd", max_bytes);
    if (input.pos == input.size && hint != 0 && output.pos < buffer.size()) {
      return Corrupt("zstd", "the data ends early");  // it wants input there is none of
    }
    return Status::Ok();
  };
  while (input.pos < input.size) CRAWLRANK_RETURN_IF_ERROR(step());
  while (hint != 0) CRAWLRANK_RETURN_IF_ERROR(step());  // output it still holds
  return out;
}

Result<std::string> DecodeOne(std::string_view coding, std::string_view in, uint64_t max_bytes) {
  if (coding == "gzip" || coding == "x-gzip") return Inflate(coding, in, 16 + 15, max_bytes);
  if (coding == "deflate") return Deflate(in, max_bytes);
  if (coding == "br") return Brotli(in, max_bytes);
  if (coding == "zstd") return Zstd(in, max_bytes);
  return Corrupt(coding, "not a coding crawlrank decodes (gzip, deflate, br, zstd)");
}

}  // namespace

std::string_view AcceptedContentCodings() { return "gzip, deflate, br, zstd"; }

Result<std::string> DecodeContent(std::string_view content_encoding, std::string_view body,
                                  uint64_t max_bytes) {
  std::vector<std::string> codings;
  size_t start = 0;
  while (start <= content_encoding.size()) {
    size_t comma = content_encoding.find(',', start);
    if (comma == std::string_view::npos) comma = content_encoding.size();
    std::string name(TrimAsciiSpace(content_encoding.substr(start, comma - start)));
    AsciiStrToLower(name);
    if (!name.empty() && name != "identity") codings.push_back(std::move(name));
    start = comma + 1;
  }
  if (body.size() > max_bytes && codings.empty()) return TooLarge("identity", max_bytes);
  std::string current(body);
  for (auto it = codings.rbegin(); it != codings.rend(); ++it) {
    CRAWLRANK_ASSIGN_OR_RETURN(current, DecodeOne(*it, current, max_bytes));
  }
  return current;
}

}  // namespace crawlrank
