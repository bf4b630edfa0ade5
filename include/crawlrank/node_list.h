// crawlrank/node_list.h: the nodes of a cluster of `crawlrank serve` processes, and which
// node owns a queue, as URLFrontier 2.6's distributed mode decides it.
//
// Every node is given the same list of "host:port" entries. The list is sorted in Java
// String order (UTF-16 code units), and the owner of queue K of crawl C is the node at
// index abs(h % N), where N is the number of nodes and h is Java's String.hashCode of the
// queue's identifier: C and K joined by '_', each '_' inside them written "%5F", an empty
// C read as "DEFAULT" (QueueIdentifier). Java's '%' keeps the dividend's sign, as C++'s
// does, and h wraps around at 32 bits.
//
// crawlrank applies the rule to the host key it computes from each URL (HostKey, kHost),
// not to a key the client sends, so that a URL has one owner whoever sends it. That is the
// reference service's owner whenever clients key their URLs by host (StormCrawler's
// default, byHost); a client key naming a group of hosts (byDomain, byIP) is honoured on
// each node, not across nodes (docs/frontier.md).
//
// Thread safety: a NodeList is immutable once made; share it freely.
#ifndef CRAWLRANK_NODE_LIST_H_
#define CRAWLRANK_NODE_LIST_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "crawlrank/status.h"

namespace crawlrank {

// Java's String.hashCode of the text `utf8` (h = 31 * h + c over its UTF-16 code units,
// wrapping at 32 bits). A byte that is not part of valid UTF-8 counts as U+FFFD, as Java
// decodes it; text from a gRPC string field is valid UTF-8.
int32_t JavaStringHash(std::string_view utf8);

// Java's String.compareTo order of two UTF-8 texts: by UTF-16 code units, so a character
// past U+FFFF (two surrogates, 0xD800-0xDFFF) sorts before U+E000-U+FFFF, unlike bytes.
bool JavaStringLess(std::string_view a, std::string_view b);

// The identifier URLFrontier hashes for queue `key` of crawl `crawl_id`:
// "DEFAULT_example.com" for ("", "example.com"), "my%5Fcrawl_a%5Fb" for ("my_crawl", "a_b").
std::string QueueIdentifier(std::string_view crawl_id, std::string_view key);

class NodeList {
 public:
  // The list of `nodes` ("host:port" each; an IPv6 host in brackets), this node being
  // `self`, one of them. InvalidArgument naming the entry for an empty list, an entry that
  // is not host:port with a port in 1..65535, an entry given twice, or a `self` that is
  // not in the list.
  static Result<NodeList> Make(std::vector<std::string> nodes, std::string_view self);
  // The same from "h1:p1,h2:p2,..." (the form of URLFrontier's `nodes` setting).
  static Result<NodeList> Parse(std::string_view comma_separated, std::string_view self);

  // In Java String order: the order every node numbers the list by.
  const std::vector<std::string>& nodes() const { return nodes_; }
  size_t size() const { return nodes_.size(); }
  // This node: its index in nodes(), and its entry.
  size_t self_index() const { return self_; }
  const std::string& self() const { return nodes_[self_]; }

  // The index in nodes() of the node that owns queue `key` of crawl `crawl_id`.
  size_t OwnerOf(std::string_view crawl_id, std::string_view key) const;
  bool Owns(std::string_view crawl_id, std::string_view key) const {
    return OwnerOf(crawl_id, key) == self_;
  }
  // The list as "h1:p1,h2:p2,..." in nodes() order (what a node stores and compares).
  std::string Joined() const;

 private:
  NodeList(std::vector<std::string> nodes, size_t self) : nodes_(std::move(nodes)), self_(self) {}

  std::vector<std::string> nodes_;
  size_t self_ = 0;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_NODE_LIST_H_
