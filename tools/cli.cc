#include "cli.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <iostream>
#include <optional>
#include <type_traits>

#include "crawlrank/version.h"

namespace crawlrank::tools {
namespace {

template <typename T>
constexpr bool kUnsigned = std::is_unsigned_v<T>;
template <typename T>
constexpr bool kUnsigned<std::optional<T>> = std::is_unsigned_v<T>;

}  // namespace

CommandLine::Option* CommandLine::Option::Required() {
  option_->required();
  return this;
}

CommandLine::Option* CommandLine::Option::ShowDefault() {
  option_->capture_default_str();
  return this;
}

CommandLine::Option* CommandLine::Option::OneOf(std::vector<std::string> choices) {
  option_->check(CLI::IsMember(std::move(choices)));
  return this;
}

CommandLine::Option* CommandLine::Option::Positive() {
  option_->check(CLI::PositiveNumber);
  return this;
}

CommandLine::Option* CommandLine::Option::Excludes(Option* other) {
  option_->excludes(other->option_);
  return this;
}

CommandLine::Option* CommandLine::Option::Hidden() {
  option_->group("");
  return this;
}

CommandLine::Option* CommandLine::Option::Deprecated(const Option* replacement,
                                                    std::string instead) {
  replacement_ = replacement;
  instead_ = std::move(instead);
  return Hidden();
}

CommandLine::CommandLine(const std::string& description, const std::string& name)
    : name_(name), app_(std::make_unique<CLI::App>(description, name)) {}

CommandLine::~CommandLine() = default;

template <typename T>
CommandLine::Option* CommandLine::Add(const std::string& name, T& target, const std::string& help) {
  CLI::Option* option = app_->add_option(name, target, help);
  if constexpr (kUnsigned<T>) {
    // CLI11 would wrap "-5" round to 2^64 - 5.
    option->check(CLI::Validator(
        [](std::string& value) {
          return value.starts_with('-') ? "\"" + value + "\" is negative; give 0 or more"
                                        : std::string();
        },
        "NONNEGATIVE"));
  }
  return options_.emplace_back(std::make_unique<Option>(option, name)).get();
}

template CommandLine::Option* CommandLine::Add(const std::string&, std::string&,
                                               const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, std::vector<std::string>&,
                                               const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, int&, const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, double&, const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, float&, const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, uint32_t&, const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, uint64_t&, const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, int64_t&, const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, std::optional<int64_t>&,
                                               const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, std::optional<uint32_t>&,
                                               const std::string&);
template CommandLine::Option* CommandLine::Add(const std::string&, std::optional<double>&,
                                               const std::string&);

CommandLine::Option* CommandLine::Flag(const std::string& name, bool& target,
                                       const std::string& help) {
  return options_.emplace_back(std::make_unique<Option>(app_->add_flag(name, target, help), name))
      .get();
}

size_t CommandLine::Count(const std::string& name) const {
  return app_->count(name);
}

void CommandLine::Footer(const std::string& text) {
  app_->footer(text);
}

int CommandLine::Parse(int argc, char** argv) {
  app_->set_version_flag("--version", name_ + " (crawlrank) " CRAWLRANK_VERSION_STRING);
  try {
    app_->parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app_->help();
    return 0;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << name_ << ": " << e.what() << "\n"
              << "Run with --help for more information.\n";
    return 2;
  }
  for (const auto& option : options_) {
    if (option->instead_.empty() || option->option_->count() == 0) continue;
    if (option->replacement_ != nullptr && option->replacement_->option_->count() > 0) {
      std::cerr << name_ << ": " << option->replacement_->name_ << " replaces "
                << option->name_ << ": give it alone\n"
                << "Run with --help for more information.\n";
      return 2;
    }
    std::cerr << name_ << ": " << option->name_ << " is deprecated; use " << option->instead_
              << "\n";
  }
  return -1;
}

}  // namespace crawlrank::tools
