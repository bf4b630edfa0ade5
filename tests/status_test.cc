#include "crawlrank/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>

namespace crawlrank {
namespace {

TEST(StatusTest, DefaultIsOkAndPrintsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeNameAndMessage) {
  Status s = NotFoundError("page \"abc\": not in PageDB");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.ToString(), "NotFound: page \"abc\": not in PageDB");
}

TEST(StatusTest, WithContextPrefixesErrorsOnly) {
  EXPECT_EQ(DataLossError("bad varint").WithContext("read links").message(),
            "read links: bad varint");
  EXPECT_TRUE(Status::Ok().WithContext("ignored").ok());
}

TEST(StatusTest, EveryCodeHasADistinctName) {
  const StatusCode codes[] = {StatusCode::kOk,
                              StatusCode::kInvalidArgument,
                              StatusCode::kNotFound,
                              StatusCode::kAlreadyExists,
                              StatusCode::kFailedPrecondition,
                              StatusCode::kResourceExhausted,
                              StatusCode::kAborted,
                              StatusCode::kUnavailable,
                              StatusCode::kDataLoss,
                              StatusCode::kInternal,
                              StatusCode::kIoError};
  std::set<std::string_view> names;
  for (StatusCode c : codes) names.insert(StatusCodeName(c));
  EXPECT_EQ(names.size(), std::size(codes));
}

Result<int> Half(int x) {
  if (x % 2 != 0) return InvalidArgumentError(std::to_string(x) + " is odd");
  return x / 2;
}

Result<int> Quarter(int x) {
  CRAWLRANK_ASSIGN_OR_RETURN(int half, Half(x));
  CRAWLRANK_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

Status CheckEven(int x) {
  CRAWLRANK_RETURN_IF_ERROR(Half(x).status());
  return Status::Ok();
}

TEST(ResultTest, HoldsValueOrError) {
  EXPECT_EQ(*Quarter(12), 3);
  const Result<int> odd = Quarter(6);  // 6 -> 3 -> odd
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().message(), "3 is odd");
  EXPECT_TRUE(CheckEven(4).ok());
  EXPECT_EQ(CheckEven(5).code(), StatusCode::kInvalidArgument);
}

TEST(ResultTest, MovesOnlyTypesThrough) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 7);
}

}  // namespace
}  // namespace crawlrank
