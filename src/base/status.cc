#include "crawlrank/status.h"

namespace crawlrank {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kInvalidArgument: return "InvalidArgument";
    case StatusCode::kNotFound: return "NotFound";
    case StatusCode::kAlreadyExists: return "AlreadyExists";
    case StatusCode::kFailedPrecondition: return "FailedPrecondition";
    case StatusCode::kResourceExhausted: return "ResourceExhausted";
    case StatusCode::kAborted: return "Aborted";
    case StatusCode::kUnavailable: return "Unavailable";
    case StatusCode::kDataLoss: return "DataLoss";
    case StatusCode::kInternal: return "Internal";
    case StatusCode::kIoError: return "IoError";
  }
  return "Unknown";
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(code_));
  out += ": ";
  out += message_;
  return out;
}

Status Status::WithContext(std::string_view context) const {
  if (ok()) return *this;
  std::string message(context);
  message += ": ";
  message += message_;
  return Status(code_, std::move(message));
}

std::string QuoteForMessage(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return "\"" + std::string(text) + "\"";
  // Back up over at most three UTF-8 continuation bytes, so that no character is split.
  size_t cut = max_bytes;
  while (cut > 0 && cut + 3 > max_bytes && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;
  }
  return "\"" + std::string(text.substr(0, cut)) + "\xE2\x80\xA6\" (" +  // U+2026 ellipsis
         std::to_string(text.size()) + " bytes)";
}

Status InvalidArgumentError(std::string m) {
  return {StatusCode::kInvalidArgument, std::move(m)};
}
Status NotFoundError(std::string m) {
  return {StatusCode::kNotFound, std::move(m)};
}
Status AlreadyExistsError(std::string m) {
  return {StatusCode::kAlreadyExists, std::move(m)};
}
Status FailedPreconditionError(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}
Status ResourceExhaustedError(std::string m) {
  return {StatusCode::kResourceExhausted, std::move(m)};
}
Status AbortedError(std::string m) {
  return {StatusCode::kAborted, std::move(m)};
}
Status UnavailableError(std::string m) {
  return {StatusCode::kUnavailable, std::move(m)};
}
Status DataLossError(std::string m) {
  return {StatusCode::kDataLoss, std::move(m)};
}
Status InternalError(std::string m) {
  return {StatusCode::kInternal, std::move(m)};
}
Status IoError(std::string m) {
  return {StatusCode::kIoError, std::move(m)};
}

}  // namespace crawlrank
