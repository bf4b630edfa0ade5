// The operating system's words for errno, the native cause at the end of an IoError's
// message (`cannot open "path": No such file or directory`).
#ifndef CRAWLRANK_SRC_BASE_ERRNO_TEXT_H_
#define CRAWLRANK_SRC_BASE_ERRNO_TEXT_H_

#include <cerrno>
#include <cstring>
#include <string>

namespace crawlrank {

// std::strerror of errno's current value, copied: call it right after the failed call,
// before anything else can set errno.
inline std::string ErrnoText() {
  return std::strerror(errno);
}

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_BASE_ERRNO_TEXT_H_
