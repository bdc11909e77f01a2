#ifndef _WIN32

#include "common/os_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"
#include "common/mapped_file.h"

namespace llm {

namespace {
[[noreturn]] void fail_errno(const std::string &path, const char *what) {
    int e = errno;
    fail(e == ENOENT ? LLM_ERR_NOT_FOUND : LLM_ERR_IO, path, ": ", what, ": ", std::strerror(e));
}
} // namespace

namespace os {

ReadOnlyFile::ReadOnlyFile(const std::string &path) : path_(path) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused
    // below as not a regular file. No effect on regular files.
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) fail_errno(path, "cannot open");
    handle_ = fd;
    struct stat st;
    if (::fstat(fd, &st) != 0) {
        int e = errno;
        ::close(fd);
        errno = e;
        fail_errno(path, "cannot stat");
    }
    if (!S_ISREG(st.st_mode)) {
        ::close(fd);
        fail(LLM_ERR_IO, path, ": not a regular file");
    }
    size_ = static_cast<uint64_t>(st.st_size);
}

ReadOnlyFile::~ReadOnlyFile() {
    ::close(static_cast<int>(handle_));
}

void *ReadOnlyFile::map(size_t size) const {
    void *p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, static_cast<int>(handle_), 0);
    return p == MAP_FAILED ? nullptr : p;
}

void ReadOnlyFile::read_all(uint8_t *dst, size_t size) const {
    size_t done = 0;
    while (done < size) {
        ssize_t r = ::read(static_cast<int>(handle_), dst + done, size - done);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail_errno(path_, "read failed");
        if (r == 0) fail(LLM_ERR_IO, path_, ": file shrank while reading");
        done += static_cast<size_t>(r);
    }
}

void unmap(void *data, size_t size) {
    ::munmap(data, size);
}

void drop_pages(const void *data, size_t size) {
    const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + size) / page * page;
    if (begin < end) ::madvise(reinterpret_cast<void *>(begin), end - begin, MADV_DONTNEED);
}

} // namespace os

bool path_is_directory(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool path_exists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

} // namespace llm

#endif // !_WIN32
