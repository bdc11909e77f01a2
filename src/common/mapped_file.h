// A read-only view of a whole file: memory-mapped when possible (weights are
// then paged in by the OS and shared between processes), else read into RAM.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llm {

class MappedFile {
  public:
    // Throws llm::Error: NOT_FOUND if the path does not exist, FORMAT if the
    // file is larger than max_bytes (checked before reading), IO otherwise.
    static std::shared_ptr<MappedFile> open(const std::string &path, bool use_mmap = true,
                                            size_t max_bytes = SIZE_MAX);
    ~MappedFile();
    MappedFile(const MappedFile &) = delete;
    MappedFile &operator=(const MappedFile &) = delete;

    const uint8_t *data() const { return data_; }
    size_t size() const { return size_; }
    const std::string &path() const { return path_; }
    bool contains(const void *p) const {
        return p >= static_cast<const void *>(data_) &&
               p < static_cast<const void *>(data_ + size_);
    }
    // The pages wholly inside [p, p + n) leave the resident set (a later
    // read maps them in again from the file). For weights converted to
    // another type at load: their source is not read again. A no-op when the
    // file was read into memory.
    void drop_pages(const void *p, size_t n) const;

  private:
    MappedFile() = default;
    std::string path_;
    const uint8_t *data_ = nullptr;
    size_t size_ = 0;
    void *map_ = nullptr; // non-null when mmap'ed
    std::vector<uint8_t> buffer_;
};

// Defined per OS in os_file_posix.cpp / os_file_windows.cpp.
bool path_is_directory(const std::string &path);
bool path_exists(const std::string &path);
std::string path_join(const std::string &dir, const std::string &name);
std::string path_dirname(const std::string &path);
// Reads a whole (small) text file; NOT_FOUND / IO on failure.
std::string read_text_file(const std::string &path, size_t max_bytes);
// The first `n` bytes of a file (fewer if it is shorter), to sniff its format.
std::string read_file_prefix(const std::string &path, size_t n);

} // namespace llm
