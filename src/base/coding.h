// Little-endian fixed-width and varint encodings (docs/format.md), with checked decoding.
//
// Decoders read from a std::string_view cursor, advance it, and return false on truncated
// or overlong input instead of reading past the end: a damaged record is a DataLoss
// status, never a crash. Varints are 64-bit safe throughout (Aduana defect 3).
#ifndef CRAWLRANK_SRC_CODING_H_
#define CRAWLRANK_SRC_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace crawlrank::coding {

inline void PutFixed32(std::string& out, uint32_t v) {
  char buf[4];
  for (int i = 0; i < 4; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out.append(buf, 4);
}

inline void PutFixed64(std::string& out, uint64_t v) {
  char buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = static_cast<char>(v >> (8 * i));
  out.append(buf, 8);
}

inline void PutVarint64(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

inline void PutVarint32(std::string& out, uint32_t v) {
  PutVarint64(out, v);
}

inline void PutFloat(std::string& out, float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  PutFixed32(out, bits);
}

inline bool GetFixed32(std::string_view& in, uint32_t* v) {
  if (in.size() < 4) return false;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= uint32_t{static_cast<uint8_t>(in[i])} << (8 * i);
  *v = r;
  in.remove_prefix(4);
  return true;
}

inline bool GetFixed64(std::string_view& in, uint64_t* v) {
  if (in.size() < 8) return false;
  uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r |= uint64_t{static_cast<uint8_t>(in[i])} << (8 * i);
  *v = r;
  in.remove_prefix(8);
  return true;
}

inline bool GetVarint64(std::string_view& in, uint64_t* v) {
  uint64_t result = 0;
  for (size_t i = 0; i < in.size() && i < 10; ++i) {
    const uint64_t byte = static_cast<uint8_t>(in[i]);
    if (i == 9 && byte > 1) return false;  // more than 64 bits
    result |= (byte & 0x7F) << (7 * i);
    if (byte < 0x80) {
      *v = result;
      in.remove_prefix(i + 1);
      return true;
    }
  }
  return false;
}

inline bool GetVarint32(std::string_view& in, uint32_t* v) {
  uint64_t wide;
  std::string_view probe = in;
  if (!GetVarint64(probe, &wide) || wide > UINT32_MAX) return false;
  *v = static_cast<uint32_t>(wide);
  in = probe;
  return true;
}

inline bool GetFloat(std::string_view& in, float* f) {
  uint32_t bits;
  if (!GetFixed32(in, &bits)) return false;
  std::memcpy(f, &bits, sizeof bits);
  return true;
}

// Keys are big-endian so that LMDB's byte-wise order is numeric order.
inline void EncodeBigEndian32(uint32_t v, char out[4]) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>(v >> (8 * (3 - i)));
}
inline void EncodeBigEndian64(uint64_t v, char out[8]) {
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(v >> (8 * (7 - i)));
}
inline uint32_t DecodeBigEndian32(const char* in) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}
inline uint64_t DecodeBigEndian64(const char* in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<uint8_t>(in[i]);
  return v;
}

inline uint64_t ZigZag(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t UnZigZag(uint64_t v) {
  return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1);
}

}  // namespace crawlrank::coding

#endif  // CRAWLRANK_SRC_CODING_H_
