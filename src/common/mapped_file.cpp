#include "common/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/error.h"

namespace llm {

namespace {
struct Fd {
    int fd;
    ~Fd() {
        if (fd >= 0) ::close(fd);
    }
};

[[noreturn]] void fail_errno(const std::string &path, const char *what) {
    int e = errno;
    fail(e == ENOENT ? LLM_ERR_NOT_FOUND : LLM_ERR_IO, path, ": ", what, ": ", std::strerror(e));
}
} // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string &path, bool use_mmap) {
    Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (f.fd < 0) fail_errno(path, "cannot open");
    struct stat st;
    if (::fstat(f.fd, &st) != 0) fail_errno(path, "cannot stat");
    if (!S_ISREG(st.st_mode)) fail(LLM_ERR_IO, path, ": not a regular file");
    std::shared_ptr<MappedFile> m(new MappedFile());
    m->path_ = path;
    m->size_ = static_cast<size_t>(st.st_size);
    if (m->size_ == 0) {
        m->data_ = reinterpret_cast<const uint8_t *>("");
        return m;
    }
    if (use_mmap) {
        void *p = ::mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE, f.fd, 0);
        if (p != MAP_FAILED) {
            m->map_ = p;
            m->data_ = static_cast<const uint8_t *>(p);
            return m;
        }
    }
    try {
        m->buffer_.resize(m->size_);
    } catch (const std::bad_alloc &) {
        fail(LLM_ERR_OUT_OF_MEMORY, path, ": cannot allocate ", m->size_, " bytes");
    }
    size_t done = 0;
    while (done < m->size_) {
        ssize_t r = ::read(f.fd, m->buffer_.data() + done, m->size_ - done);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) fail_errno(path, "read failed");
        if (r == 0) fail(LLM_ERR_IO, path, ": file shrank while reading");
        done += static_cast<size_t>(r);
    }
    m->data_ = m->buffer_.data();
    return m;
}

MappedFile::~MappedFile() {
    if (map_) ::munmap(map_, size_);
}

bool path_is_directory(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool path_exists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

std::string path_join(const std::string &dir, const std::string &name) {
    if (dir.empty()) return name;
    if (dir.back() == '/') return dir + name;
    return dir + "/" + name;
}

std::string path_dirname(const std::string &path) {
    size_t slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string read_text_file(const std::string &path, size_t max_bytes) {
    auto f = MappedFile::open(path, false);
    if (f->size() > max_bytes)
        fail(LLM_ERR_FORMAT, path, ": ", f->size(), " bytes is larger than the ", max_bytes,
             " allowed for this file");
    return std::string(reinterpret_cast<const char *>(f->data()), f->size());
}

} // namespace llm
