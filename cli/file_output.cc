#include "cli/file_output.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>

namespace topotune::cli {
namespace {

Expected<std::string> stage(const PendingFile& f) {
  const std::string tmp = f.path + ".tmp." + std::to_string(::getpid());
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) {
    return fail(Errc::Io, "cannot write '" + f.path + "': " + std::strerror(errno));
  }
  out << f.content;
  out.close();
  if (!out) {
    std::remove(tmp.c_str());
    return fail(Errc::Io, "cannot write '" + f.path + "': write failed");
  }
  return tmp;
}

}  // namespace

Expected<void> write_files_atomically(const std::vector<PendingFile>& files) {
  std::vector<std::string> staged;
  for (const PendingFile& f : files) {
    auto tmp = stage(f);
    if (!tmp) {
      for (const std::string& s : staged) std::remove(s.c_str());
      return Unexpected(std::move(tmp).error());
    }
    staged.push_back(*tmp);
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (std::rename(staged[i].c_str(), files[i].path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      for (std::size_t j = i; j < files.size(); ++j) std::remove(staged[j].c_str());
      return fail(Errc::Io, "cannot write '" + files[i].path + "': " + why);
    }
  }
  return {};
}

Expected<void> write_file_atomically(const std::string& path, const std::string& content) {
  return write_files_atomically({PendingFile{path, content}});
}

}  // namespace topotune::cli
