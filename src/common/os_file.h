// The operating-system side of reading a file: POSIX in os_file_posix.cpp,
// Win32 in os_file_windows.cpp (each compiles to nothing on the other).
// Paths are UTF-8 everywhere; errors throw llm::Error with NOT_FOUND when the
// path does not exist and IO otherwise. path_exists() and path_is_directory()
// from mapped_file.h are defined there too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace llm {
namespace os {

// An open regular file, read-only.
class ReadOnlyFile {
  public:
    explicit ReadOnlyFile(const std::string &path);
    ~ReadOnlyFile();
    ReadOnlyFile(const ReadOnlyFile &) = delete;
    ReadOnlyFile &operator=(const ReadOnlyFile &) = delete;

    uint64_t size() const { return size_; }
    // Maps the first `size` bytes read-only, or returns nullptr when the OS
    // refuses (the caller then reads the file instead). Release with unmap().
    // The mapping stays valid after the file is closed.
    void *map(size_t size) const;
    // Reads exactly `size` bytes from the start of the file into `dst`.
    void read_all(uint8_t *dst, size_t size) const;

  private:
    std::string path_;
    intptr_t handle_; // a file descriptor or a Win32 HANDLE
    uint64_t size_ = 0;
};

void unmap(void *data, size_t size);

// Takes the pages wholly inside [data, data + size) of a read-only file
// mapping out of the resident set; a later read maps them in again.
void drop_pages(const void *data, size_t size);

} // namespace os
} // namespace llm
