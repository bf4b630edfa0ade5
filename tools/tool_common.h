// Shared plumbing of the command-line tools: option parsing, exit codes, error output.
//
// Every tool: `--help`, `--version`, data on stdout, errors on stderr as `tool: message`,
// exit 0 (success), 1 (the work failed: missing DB, bad data) or 2 (bad usage).
#ifndef CRAWLRANK_TOOLS_TOOL_COMMON_H_
#define CRAWLRANK_TOOLS_TOOL_COMMON_H_

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

#include "crawlrank/status.h"

namespace crawlrank::tools {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// Adds `--version`, parses argv into `app`, then runs `body`. Maps CLI11's help/version to exit 0 and its
// parse errors to exit 2 (with the usage hint on stderr).
int Run(CLI::App& app, int argc, char** argv, const std::function<int()>& body);

// Prints `tool: <status message>` to stderr and returns the exit code for it:
// kExitUsage for InvalidArgument raised by arguments, kExitFailure otherwise.
int Fail(const CLI::App& app, const Status& status);

// Same as Fail for a usage error (exit 2).
int UsageError(const CLI::App& app, std::string_view message);

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_TOOL_COMMON_H_
