// The tools' command line: the part of CLI11 the tools use, behind a small class.
//
// CLI11 2.1 (Debian 12) is header-only; compiling it cost every tool about 10 of its 15 s.
// Only cli.cc includes it now: the tools name options through CommandLine, and cli.cc
// instantiates Add for the option types they use (a new type is a link error until it is
// listed there).
#ifndef CRAWLRANK_TOOLS_CLI_H_
#define CRAWLRANK_TOOLS_CLI_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace crawlrank::tools {

class CommandLine {
 public:
  // One option or positional argument. Each setter returns the option, to chain them.
  class Option {
   public:
    Option(CLI::Option* option, std::string name) : option_(option), name_(std::move(name)) {}
    Option* Required();
    // --help shows the target's value at the time of this call as the default.
    Option* ShowDefault();
    Option* OneOf(std::vector<std::string> choices);
    Option* Positive();  // a number above 0
    Option* Excludes(Option* other);
    Option* Hidden();  // parsed, but left out of --help
    // An old spelling of `replacement` kept working: hidden from --help; when given,
    // Parse tells stderr to use `instead` ("--delay SECONDS"), and refuses it beside
    // `replacement` (a usage error, exit 2). The tool maps the old value onto the new.
    Option* Deprecated(const Option* replacement, std::string instead);

   private:
    friend class CommandLine;
    CLI::Option* option_;
    std::string name_;     // as given to Add or Flag
    std::string instead_;  // Deprecated's; empty: a current option
    const Option* replacement_ = nullptr;  // Deprecated's
  };

  // `name` is what --help, --version and error messages print ("page_db_dump").
  CommandLine(const std::string& description, const std::string& name);
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;
  ~CommandLine();

  // `name` as CLI11 reads it: "--long", "-s,--long", a positional "db", or for a flag
  // "--x,!--no-x". Unsigned targets refuse negative numbers (CLI11 would wrap them).
  template <typename T>
  Option* Add(const std::string& name, T& target, const std::string& help = "");
  Option* Flag(const std::string& name, bool& target, const std::string& help);
  // How many times the option appeared on the command line.
  size_t Count(const std::string& name) const;
  void Footer(const std::string& text);
  const std::string& name() const { return name_; }

  // Adds --version and parses. Returns -1 to go on, or the exit code to return: 0 after
  // --help or --version (printed on stdout), 2 after a parse error (printed on stderr).
  // Each deprecated option given gets one line on stderr naming what to use instead.
  int Parse(int argc, char** argv);

 private:
  std::string name_;
  std::unique_ptr<CLI::App> app_;
  std::vector<std::unique_ptr<Option>> options_;
};

}  // namespace crawlrank::tools

#endif  // CRAWLRANK_TOOLS_CLI_H_
