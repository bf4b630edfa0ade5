#include "crawl/fetcher.h"

#include <curl/curl.h>
#include <sys/socket.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>

#include "crawl/address_guard.h"
#include "crawl/content_decoding.h"
#include "crawlrank/clock.h"

namespace crawlrank {

bool FetchErrorRetryable(FetchError error) {
  switch (error) {
    case FetchError::kDns:
    case FetchError::kConnect:
    case FetchError::kTimeout:
    case FetchError::kTls:
    case FetchError::kConnection:
    case FetchError::kOther:
      return true;
    default:
      return false;
  }
}

namespace {

struct CurlMultiDeleter {
  void operator()(CURLM* m) const { curl_multi_cleanup(m); }
};
struct CurlEasyDeleter {
  void operator()(CURL* e) const { curl_easy_cleanup(e); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
using EasyPtr = std::unique_ptr<CURL, CurlEasyDeleter>;

// libcurl is initialised once per Fetcher (it counts); since 7.84 that is thread-safe.
struct CurlGlobal {
  CurlGlobal() { ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; }
  ~CurlGlobal() {
    if (ok) curl_global_cleanup();
  }
  bool ok = false;
};

}  // namespace

// One transfer: its easy handle and what its callbacks collect.
struct Transfer {
  EasyPtr easy;
  FetchJob job;
  FetchResult result;
  uint64_t header_bytes = 0;
  bool headers_ended = true;  // the last header line was the blank one (or none came yet)
  uint64_t body_cap = 0;
  // keep_wire, FetchJob::truncate_body: the decoded body is cut here (body_cap then caps
  // the bytes as sent, at the fetcher's max_body_bytes, so that a compressed robots.txt
  // over its cap still decodes to its first bytes). 0: none.
  uint64_t decoded_cut = 0;
  uint64_t max_header_bytes = 0;
  bool body_over = false;
  bool header_over = false;
  std::string refused;  // the guard's verdict on an address it refused
  bool keep_wire = false;
  bool request_ended = true;  // the request head seen last was whole (keep_wire)
  char error[CURL_ERROR_SIZE] = {};
};

struct Fetcher::Impl {
  FetcherOptions options;
  CurlGlobal global;
  std::unique_ptr<CURLM, CurlMultiDeleter> multi;
  std::unique_ptr<curl_slist, SlistDeleter> resolve;
  std::unordered_map<CURL*, std::unique_ptr<Transfer>> transfers;
  std::vector<EasyPtr> idle;  // handles kept for reuse

  Status Setup(Transfer& t);
  FetchResult Finish(Transfer& t, CURLcode code);
};

namespace {

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const size_t bytes = size * n;
  const uint64_t room = t.body_cap - std::min<uint64_t>(t.body_cap, t.result.body.size());
  if (bytes > room) {
    t.result.body.append(data, room);
    t.body_over = true;
    return CURL_WRITEFUNC_ERROR;
  }
  t.result.body.append(data, bytes);
  return bytes;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const size_t bytes = size * n;
  // A new response (after a redirect followed, or a 1xx) starts the count again: its
  // status line is the first line after a blank one.
  if (t.headers_ended && bytes >= 5 && std::string_view(data, 5) == "HTTP/") {
    t.header_bytes = 0;
    t.result.response_head.clear();
  }
  if (t.keep_wire) t.result.response_head.append(data, bytes);
  t.headers_ended = bytes <= 2 && (bytes == 0 || data[0] == '\r' || data[0] == '\n');
  t.header_bytes += bytes;
  if (t.header_bytes > t.max_header_bytes) {
    t.header_over = true;
    return 0;
  }
  return bytes;
}

// The request heads as libcurl sends them (keep_wire; CURLOPT_VERBOSE routes them here,
// not to stderr). A head may come in several calls; a call after a whole head begins the
// next request's (after a redirect or an authentication round).
int OnDebug(CURL*, curl_infotype type, char* data, size_t size, void* user) {
  if (type != CURLINFO_HEADER_OUT) return 0;
  auto& t = *static_cast<Transfer*>(user);
  std::string& head = t.result.request_head;
  if (t.request_ended) head.clear();
  head.append(data, size);
  t.request_ended = head.ends_with("\r\n\r\n");
  return 0;
}

// The values of the last response's Content-Encoding headers, joined by commas, as
// libcurl's header API keeps them.
std::string ContentEncodingOf(CURL* e) {
  std::string codings;
  curl_header* h = nullptr;
  for (size_t i = 0;
       curl_easy_header(e, "Content-Encoding", i, CURLH_HEADER, -1, &h) == CURLHE_OK; ++i) {
    if (!codings.empty()) codings += ',';
    codings += h->value;
    if (i + 1 >= h->amount) break;
  }
  return codings;
}

// Opens the socket libcurl asks for, unless the address it is for is not public: the
// check is on the address connected to, so a second DNS answer cannot get around it.
curl_socket_t OnOpenSocket(void* user, curlsocktype, curl_sockaddr* address) {
  auto& t = *static_cast<Transfer*>(user);
  const std::string_view range =
      NonPublicRange(&address->addr, static_cast<socklen_t>(address->addrlen));
  if (!range.empty()) {
    t.refused = AddressText(&address->addr, static_cast<socklen_t>(address->addrlen)) +
                " is " + std::string(range);
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype, address->protocol);
}

// Whether libcurl ended the transfer on its own header caps, which OnHeader cannot see
// coming: libcurl hands it whole lines only, so one line too long for libcurl never reaches
// it, and max_header_bytes may be set above them. In libcurl 7.88 (Debian 12) a line over
// CURL_MAX_HTTP_HEADER (100 KiB) is CURLE_OUT_OF_MEMORY without a message (CURLE_TOO_LARGE
// from 8.6), and all the headers of an answer over 300 KiB are CURLE_RECV_ERROR "Too large
// response headers: ...". Out of memory counts only while an answer's headers were arriving:
// the request sent, the answer's header block not ended, no body byte received.
bool LibcurlHeaderCapHit(CURLcode code, const Transfer& t) {
  if (code == CURLE_RECV_ERROR) {
    return std::string_view(t.error).starts_with("Too large response headers");
  }
  bool out_of_room = code == CURLE_OUT_OF_MEMORY;
#if LIBCURL_VERSION_NUM >= 0x080600
  out_of_room = out_of_room || code == CURLE_TOO_LARGE;
#endif
  if (!out_of_room) return false;
  long request_bytes = 0;
  curl_easy_getinfo(t.easy.get(), CURLINFO_REQUEST_SIZE, &request_bytes);
  const bool in_headers = t.header_bytes == 0 || !t.headers_ended;
  return request_bytes > 0 && in_headers && t.result.body.empty();
}

FetchError Classify(CURLcode code, const Transfer& t) {
  if (LibcurlHeaderCapHit(code, t)) return FetchError::kHeadersTooLarge;
  switch (code) {
    case CURLE_OK: return FetchError::kNone;
    case CURLE_COULDNT_CONNECT:
      return t.refused.empty() ? FetchError::kConnect : FetchError::kPrivateAddress;
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return FetchError::kDns;
    case CURLE_OPERATION_TIMEDOUT: return FetchError::kTimeout;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR: return FetchError::kTls;
    case CURLE_FILESIZE_EXCEEDED: return FetchError::kBodyTooLarge;
    case CURLE_TOO_MANY_REDIRECTS: return FetchError::kTooManyRedirects;
    case CURLE_WRITE_ERROR:
      if (t.body_over) return FetchError::kBodyTooLarge;
      return t.header_over ? FetchError::kHeadersTooLarge : FetchError::kOther;
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return FetchError::kConnection;
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT: return FetchError::kProtocol;
    default:
      if (t.header_over) return FetchError::kHeadersTooLarge;
      return FetchError::kOther;
  }
}

}  // namespace

Status Fetcher::Impl::Setup(Transfer& t) {
  CURL* e = t.easy.get();
  const FetchJob& job = t.job;
  t.body_cap = job.max_body_bytes > 0 ? job.max_body_bytes : options.max_body_bytes;
  t.decoded_cut = 0;
  if (options.keep_wire && job.truncate_body && t.body_cap < options.max_body_bytes) {
    t.decoded_cut = t.body_cap;
    t.body_cap = options.max_body_bytes;
  }
  t.max_header_bytes = options.max_header_bytes;
  CURLcode rc = curl_easy_setopt(e, CURLOPT_URL, job.url.c_str());
  if (rc != CURLE_OK) {
    return InvalidArgumentError("fetch \"" + job.url + "\": " + curl_easy_strerror(rc));
  }
  curl_easy_setopt(e, CURLOPT_PRIVATE, &t);
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t.error);
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, job.max_redirects > 0 ? 1L : 0L);
  curl_easy_setopt(e, CURLOPT_MAXREDIRS, static_cast<long>(job.max_redirects));
  curl_easy_setopt(e, CURLOPT_USERAGENT, options.user_agent.c_str());
  t.keep_wire = options.keep_wire;
  if (options.keep_wire) {
    // The body stays as sent; Finish decodes it. Only codings crawlrank decodes are asked for.
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, std::string(AcceptedContentCodings()).c_str());
    curl_easy_setopt(e, CURLOPT_HTTP_CONTENT_DECODING, 0L);
    curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, OnDebug);
    curl_easy_setopt(e, CURLOPT_DEBUGDATA, &t);
    curl_easy_setopt(e, CURLOPT_VERBOSE, 1L);
  } else {
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");  // every decoder libcurl has
  }
  curl_easy_setopt(e, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
  curl_easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options.connect_timeout_ms));
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout_ms));
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, static_cast<long>(options.low_speed_bytes));
  curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME,
                   static_cast<long>(std::max<int64_t>(1, options.low_speed_ms / 1000)));
  if (!job.truncate_body) {
    curl_easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(t.body_cap));
  }
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(e, CURLOPT_HEADERDATA, &t);
  if (!options.allow_private) {
    curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, OnOpenSocket);
    curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, &t);
  }
  // "" turns proxies off, those named by the environment (http_proxy, ...) included.
  curl_easy_setopt(e, CURLOPT_PROXY, options.proxy.c_str());
  if (resolve) curl_easy_setopt(e, CURLOPT_RESOLVE, resolve.get());
  curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT,
                   static_cast<long>(std::max<int64_t>(1, options.dns_cache_ms / 1000)));
  if (job.if_modified_since_ms > 0) {
    curl_easy_setopt(e, CURLOPT_TIMECONDITION, static_cast<long>(CURL_TIMECOND_IFMODSINCE));
    curl_easy_setopt(e, CURLOPT_TIMEVALUE_LARGE,
                     static_cast<curl_off_t>(job.if_modified_since_ms / 1000));
  }
  return Status::Ok();
}

namespace {

// keep_wire: the body as received moves to wire_body, and its content decoded to body. A
// coding that cannot be undone fails the fetch as libcurl's own decoding would have.
void Decode(const Transfer& t, FetchResult& r) {
  r.wire_complete = !r.truncated;
  r.wire_body = std::move(r.body);
  r.body.clear();
  Result<std::string> decoded =
      DecodeContent(ContentEncodingOf(t.easy.get()), r.wire_body, t.body_cap);
  if (decoded.ok()) {
    r.body = std::move(*decoded);
    if (t.decoded_cut > 0 && r.body.size() > t.decoded_cut) {
      r.body.resize(t.decoded_cut);
      r.truncated = true;
    }
    return;
  }
  r.error = decoded.status().code() == StatusCode::kResourceExhausted ? FetchError::kBodyTooLarge
                                                                      : FetchError::kProtocol;
  r.message = "fetch \"" + t.job.url + "\": " + decoded.status().message();
}

}  // namespace

FetchResult Fetcher::Impl::Finish(Transfer& t, CURLcode code) {
  FetchResult r = std::move(t.result);
  CURL* e = t.easy.get();
  r.tag = t.job.tag;
  r.url = t.job.url;
  long status = 0;
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  r.status = status;
  char* text = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_EFFECTIVE_URL, &text) == CURLE_OK && text) r.final_url = text;
  text = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_CONTENT_TYPE, &text) == CURLE_OK && text) r.content_type = text;
  text = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &text) == CURLE_OK && text) r.location = text;
  text = nullptr;
  if (curl_easy_getinfo(e, CURLINFO_PRIMARY_IP, &text) == CURLE_OK && text) r.address = text;
  long header_bytes = 0;
  curl_off_t body_bytes = 0, total_us = 0;
  if (curl_easy_getinfo(e, CURLINFO_HEADER_SIZE, &header_bytes) == CURLE_OK && header_bytes > 0) {
    r.wire_bytes += static_cast<uint64_t>(header_bytes);
  }
  if (curl_easy_getinfo(e, CURLINFO_SIZE_DOWNLOAD_T, &body_bytes) == CURLE_OK && body_bytes > 0) {
    r.wire_bytes += static_cast<uint64_t>(body_bytes);
  }
  if (curl_easy_getinfo(e, CURLINFO_TOTAL_TIME_T, &total_us) == CURLE_OK && total_us > 0) {
    r.fetch_ms = static_cast<uint32_t>(std::min<curl_off_t>(total_us / 1000, UINT32_MAX));
  }
  curl_off_t retry_after = 0;
  if (curl_easy_getinfo(e, CURLINFO_RETRY_AFTER, &retry_after) == CURLE_OK && retry_after > 0) {
    // A day at most: the scheduler caps holds further (max_hold_ms); this keeps the
    // arithmetic far from overflow whatever the server sends.
    r.retry_after_ms = std::min<int64_t>(retry_after, 86'400) * 1000;
  }
  r.error = Classify(code, t);
  if (r.error == FetchError::kBodyTooLarge && t.job.truncate_body) {
    r.error = FetchError::kNone;
    r.truncated = true;
  }
  if (t.keep_wire && r.error == FetchError::kNone) Decode(t, r);
  if (r.error != FetchError::kNone && r.message.empty()) {
    std::string cause;
    if (r.error == FetchError::kPrivateAddress) {
      cause = "refused: " + t.refused + " (allow_private is off)";
    } else if (r.error == FetchError::kBodyTooLarge) {
      cause = "body over " + std::to_string(t.body_cap) + " bytes";
    } else if (r.error == FetchError::kHeadersTooLarge && t.header_over) {
      cause = "headers over " + std::to_string(t.max_header_bytes) + " bytes";
    } else if (r.error == FetchError::kHeadersTooLarge) {
      cause = "headers over libcurl's limits (100 KiB a line, 300 KiB in all)";
      if (t.error[0] != '\0') cause += ": " + std::string(t.error);
    } else {
      cause = t.error[0] != '\0' ? std::string(t.error) : curl_easy_strerror(code);
    }
    r.message = "fetch \"" + t.job.url + "\": " + cause;
    r.body.clear();
  }
  return r;
}

Result<std::unique_ptr<Fetcher>> Fetcher::Create(const FetcherOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (!impl->global.ok) return InternalError("fetcher: curl_global_init failed");
  impl->multi.reset(curl_multi_init());
  if (!impl->multi) return InternalError("fetcher: curl_multi_init failed");
  curl_multi_setopt(impl->multi.get(), CURLMOPT_MAXCONNECTS,
                    static_cast<long>(std::max<uint32_t>(1, options.max_connections)));
  curl_multi_setopt(impl->multi.get(), CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX);
  curl_slist* list = nullptr;
  for (const std::string& entry : options.resolve) {
    curl_slist* grown = curl_slist_append(list, entry.c_str());
    if (grown == nullptr) {
      curl_slist_free_all(list);
      return ResourceExhaustedError("fetcher: out of memory for --resolve");
    }
    list = grown;
  }
  impl->resolve.reset(list);
  return std::unique_ptr<Fetcher>(new Fetcher(std::move(impl)));
}

Fetcher::Fetcher(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Fetcher::~Fetcher() { AbandonAll(); }

Status Fetcher::Start(FetchJob job) {
  auto t = std::make_unique<Transfer>();
  if (!impl_->idle.empty()) {
    t->easy = std::move(impl_->idle.back());
    impl_->idle.pop_back();
  } else {
    t->easy.reset(curl_easy_init());
    if (!t->easy) return ResourceExhaustedError("fetch \"" + job.url + "\": curl_easy_init failed");
  }
  t->job = std::move(job);
  t->result.started_ms = UnixNowMs();
  CRAWLRANK_RETURN_IF_ERROR(impl_->Setup(*t));
  CURL* e = t->easy.get();
  if (CURLMcode rc = curl_multi_add_handle(impl_->multi.get(), e); rc != CURLM_OK) {
    return InternalError("fetch \"" + t->job.url + "\": " + curl_multi_strerror(rc));
  }
  impl_->transfers.emplace(e, std::move(t));
  return Status::Ok();
}

Status Fetcher::Poll(int timeout_ms, std::vector<FetchResult>* done) {
  CURLM* multi = impl_->multi.get();
  const auto collect = [&]() {
    int queued = 0;
    size_t n = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      CURL* e = msg->easy_handle;
      const CURLcode code = msg->data.result;
      auto it = impl_->transfers.find(e);
      if (it == impl_->transfers.end()) continue;
      curl_multi_remove_handle(multi, e);
      std::unique_ptr<Transfer> t = std::move(it->second);
      impl_->transfers.erase(it);
      done->push_back(impl_->Finish(*t, code));
      curl_easy_reset(t->easy.get());  // no option may point at the Transfer freed next
      impl_->idle.push_back(std::move(t->easy));
      ++n;
    }
    return n;
  };
  int running = 0;
  CURLMcode rc = curl_multi_perform(multi, &running);
  if (rc != CURLM_OK) return InternalError(std::string("fetcher: ") + curl_multi_strerror(rc));
  if (collect() > 0) return Status::Ok();
  rc = curl_multi_poll(multi, nullptr, 0, timeout_ms, nullptr);
  if (rc != CURLM_OK) return InternalError(std::string("fetcher: ") + curl_multi_strerror(rc));
  rc = curl_multi_perform(multi, &running);
  if (rc != CURLM_OK) return InternalError(std::string("fetcher: ") + curl_multi_strerror(rc));
  collect();
  return Status::Ok();
}

void Fetcher::AbandonAll() {
  for (auto& [e, t] : impl_->transfers) curl_multi_remove_handle(impl_->multi.get(), e);
  impl_->transfers.clear();
}

void Fetcher::Wakeup() { curl_multi_wakeup(impl_->multi.get()); }

size_t Fetcher::running() const { return impl_->transfers.size(); }

}  // namespace crawlrank
