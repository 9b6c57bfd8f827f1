// AtomicFile: a file is written whole or not at all, and a failed write leaves an older file as it was.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <batchode/files/atomic_file.hpp>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "file_size_limit.hpp"

namespace {

namespace fs = std::filesystem;
using batchode::files::AtomicFile;
using batchode::files::write_atomically;
using batchode::testing::file_bytes;
using batchode::testing::FileSizeLimit;

std::string fresh_dir(const std::string& name) {
  const std::string dir = ::testing::TempDir() + name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// The names in a folder, sorted: what a writer left there.
std::string listing(const std::string& dir) {
  std::string names;
  for (const auto& entry : fs::directory_iterator(dir)) names += entry.path().filename().string() + " ";
  return names;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path);
}

TEST(AtomicFile, TheDestinationAppearsOnlyOnCommit) {
  const std::string dir = fresh_dir("atomic_commit");
  const std::string path = dir + "/out.txt";
  {
    AtomicFile file(path);
    EXPECT_NE(file.write_path(), path);
    EXPECT_EQ(fs::path(file.write_path()).parent_path(), fs::path(path).parent_path()) << "a rename stays in the folder";
    write_text(file.write_path(), "new");
    EXPECT_FALSE(fs::exists(path)) << "not there before commit";
    file.commit();
  }
  EXPECT_EQ(file_bytes(path), "new");
  EXPECT_EQ(listing(dir), "out.txt ") << "the temporary file is gone";
}

TEST(AtomicFile, AnErrorBeforeCommitLeavesTheOldFileAndNoTemporary) {
  const std::string dir = fresh_dir("atomic_error");
  const std::string path = dir + "/out.txt";
  write_text(path, "old");
  EXPECT_THROW(write_atomically(path,
                                [](const std::string& to) {
                                  write_text(to, "half");
                                  throw std::runtime_error("the writer failed");
                                }),
               std::runtime_error);
  EXPECT_EQ(file_bytes(path), "old");
  EXPECT_EQ(listing(dir), "out.txt ");
}

// A full disk, as a file-size limit: the write fails part way, the old file is byte for byte as it was.
TEST(AtomicFile, AFailedWritePastAFileSizeLimitLeavesTheOldFile) {
  const std::string dir = fresh_dir("atomic_limit");
  const std::string path = dir + "/result.bin";
  const std::string old(3000, 'o');
  write_text(path, old);
  {
    const FileSizeLimit limit(4096);
    EXPECT_THROW(write_atomically(path, [](const std::string& to) { write_text(to, std::string(100000, 'n')); }),
                 std::runtime_error);
  }
  EXPECT_EQ(file_bytes(path), old);
  EXPECT_EQ(listing(dir), "result.bin ");
}

TEST(AtomicFile, AReplacedFileKeepsItsPermissions) {
  const std::string dir = fresh_dir("atomic_mode");
  const std::string path = dir + "/out.txt";
  write_text(path, "old");
  ::chmod(path.c_str(), 0640);
  write_atomically(path, [](const std::string& to) { write_text(to, "new"); });
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  EXPECT_EQ(file_bytes(path), "new");
}

// A link is followed: the file it points to is replaced, the link stays a link.
TEST(AtomicFile, ASymbolicLinkIsFollowed) {
  const std::string dir = fresh_dir("atomic_link");
  fs::create_directories(dir + "/data");
  write_text(dir + "/data/real.txt", "old");
  fs::create_symlink("data/real.txt", dir + "/link.txt");
  write_atomically(dir + "/link.txt", [](const std::string& to) { write_text(to, "new"); });
  EXPECT_TRUE(fs::is_symlink(dir + "/link.txt"));
  EXPECT_EQ(file_bytes(dir + "/data/real.txt"), "new");
  EXPECT_EQ(listing(dir + "/data"), "real.txt ");
}

// A device cannot be replaced: it is written as it is.
TEST(AtomicFile, ADeviceIsWrittenDirectly) {
  if (!fs::exists("/dev/null")) GTEST_SKIP() << "no /dev/null";
  AtomicFile file("/dev/null");
  EXPECT_EQ(file.write_path(), "/dev/null");
  write_text(file.write_path(), "gone");
  EXPECT_NO_THROW(file.commit());
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
}

TEST(AtomicFile, AFolderOrAMissingFolderIsRefusedNamingThePath) {
  const std::string dir = fresh_dir("atomic_refused");
  try {
    AtomicFile file(dir);
    ADD_FAILURE() << "a folder was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + dir + "'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::generic_category().message(EISDIR)), std::string::npos) << e.what();
  }
  try {
    AtomicFile file(dir + "/missing/out.txt");
    ADD_FAILURE() << "a missing folder was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("'" + dir + "/missing/out.txt'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(std::generic_category().message(ENOENT)), std::string::npos) << e.what();
  }
  EXPECT_EQ(listing(dir), "");
}

}  // namespace
