// check_output_path: an output that cannot be written is found before a solve, with the path and why.
#include <gtest/gtest.h>

#include <batchode/checks/invalid_input.hpp>
#include <batchode/files/output_path.hpp>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using batchode::files::check_output_path;

std::string refusal(const std::string& path) {
  try {
    check_output_path(path);
  } catch (const batchode::InvalidInput& e) {
    return e.what();
  }
  return "accepted";
}

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(CheckOutputPath, AWritableFileIsAcceptedAndNothingIsLeft) {
  const std::string dir = fresh_dir("output_ok");
  EXPECT_NO_THROW(check_output_path(dir + "/out.h5"));
  EXPECT_TRUE(fs::is_empty(dir)) << "the probe's file is removed";
  EXPECT_NO_THROW(check_output_path("relative_name_in_the_working_folder.csv"));
}

TEST(CheckOutputPath, AMissingFolderIsNamed) {
  const std::string dir = fresh_dir("output_missing");
  EXPECT_EQ(refusal(dir + "/no/out.h5"), "'" + dir + "/no/out.h5': the folder '" + dir + "/no' does not exist");
}

TEST(CheckOutputPath, AFolderIsNotAFile) {
  const std::string dir = fresh_dir("output_folder");
  EXPECT_EQ(refusal(dir), "'" + dir + "': it is a folder; name a file in it");
}

// /proc takes no new files, not even root's: what a user who may not write a folder meets.
TEST(CheckOutputPath, AFolderThatTakesNoFileIsNamedWithTheReason) {
  if (!fs::is_directory("/proc/self")) GTEST_SKIP() << "no /proc";
  const std::string message = refusal("/proc/x.h5");
  EXPECT_EQ(message.rfind("'/proc/x.h5': cannot create a file in the folder '/proc': ", 0), 0u) << message;
}

TEST(CheckOutputPath, APathThroughAFileIsRefused) {
  const std::string dir = fresh_dir("output_through_file");
  { std::ofstream(dir + "/plain") << "x"; }
  EXPECT_EQ(refusal(dir + "/plain/out.h5"), "'" + dir + "/plain/out.h5': '" + dir + "/plain' is not a folder");
}

TEST(CheckOutputPath, AnEmptyPathIsRefused) { EXPECT_EQ(refusal(""), "'': an empty path"); }

}  // namespace
