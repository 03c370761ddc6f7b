// What the pairwise and the scene golden tests share: reading a golden JSON
// file (testdata/golden/README.md) as a protobuf Struct, its fields, and the
// comparison it prescribes (floats within the file's tolerance, everything
// else exactly).
#ifndef COLLISION_TESTS_CONFORMANCE_GOLDEN_FILE_H_
#define COLLISION_TESTS_CONFORMANCE_GOLDEN_FILE_H_

#include <fstream>
#include <sstream>
#include <string>

#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/field_comparator.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace collision::golden {

namespace pb = google::protobuf;

inline std::string ToJson(const pb::Message& m) {
  std::string out;
  EXPECT_TRUE(pb::util::MessageToJsonString(m, &out).ok());
  return out;
}

// The field `key` of `s`, or a null value when it is absent.
inline const pb::Value& Field(const pb::Struct& s, const std::string& key) {
  static const pb::Value kNull;
  auto it = s.fields().find(key);
  return it == s.fields().end() ? kNull : it->second;
}

// A message of type M from its JSON form.
template <typename M>
M Parse(const std::string& json) {
  M m;
  const auto status = pb::util::JsonStringToMessage(json, &m);
  EXPECT_TRUE(status.ok()) << status.ToString() << " in " << json;
  return m;
}

class GoldenFile {
 public:
  // Reads and parses `path`; a file that cannot be parsed fails the test
  // and reads as empty.
  explicit GoldenFile(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    const auto status = pb::util::JsonStringToMessage(text.str(), &root_);
    if (!status.ok()) {
      ADD_FAILURE() << "cannot parse " << path << ": " << status.ToString();
    }
    const pb::Struct& c = Field(root_, "comparison").struct_value();
    absolute_ = Field(c, "float_absolute").number_value();
    relative_ = Field(c, "float_relative").number_value();
  }

  const pb::Struct& root() const { return root_; }
  double absolute() const { return absolute_; }
  double relative() const { return relative_; }
  const pb::Value& cases() const { return Field(root_, "cases"); }

  // Empty when `got` equals `want` within the file's tolerance, else the
  // differences.
  std::string Diff(const pb::Message& want, const pb::Message& got) const {
    pb::util::DefaultFieldComparator comparator;
    comparator.set_float_comparison(
        pb::util::DefaultFieldComparator::APPROXIMATE);
    comparator.SetDefaultFractionAndMargin(relative_, absolute_);
    pb::util::MessageDifferencer differ;
    differ.set_field_comparator(&comparator);
    differ.set_message_field_comparison(
        pb::util::MessageDifferencer::EQUIVALENT);
    std::string report;
    differ.ReportDifferencesToString(&report);
    if (differ.Compare(want, got)) return "";
    return report;
  }

 private:
  pb::Struct root_;
  double absolute_ = 0;
  double relative_ = 0;
};

}  // namespace collision::golden

#endif  // COLLISION_TESTS_CONFORMANCE_GOLDEN_FILE_H_
