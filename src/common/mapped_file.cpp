#include "common/mapped_file.h"

#include <cstdint>
#include <new>

#include "common/error.h"
#include "common/os_file.h"

namespace llm {

namespace {
#ifdef _WIN32
const char *const kSeparators = "/\\";
#else
const char *const kSeparators = "/";
#endif
} // namespace

std::shared_ptr<MappedFile> MappedFile::open(const std::string &path, bool use_mmap,
                                             size_t max_bytes) {
    os::ReadOnlyFile file(path);
    if (file.size() > max_bytes)
        fail(LLM_ERR_FORMAT, path, ": ", file.size(), " bytes is larger than the ", max_bytes,
             " allowed for this file");
    if (file.size() > SIZE_MAX)
        fail(LLM_ERR_IO, path, ": ", file.size(), " bytes do not fit in this address space");
    std::shared_ptr<MappedFile> m(new MappedFile());
    m->path_ = path;
    m->size_ = static_cast<size_t>(file.size());
    if (m->size_ == 0) {
        m->data_ = reinterpret_cast<const uint8_t *>("");
        return m;
    }
    if (use_mmap) {
        if (void *p = file.map(m->size_)) {
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
    file.read_all(m->buffer_.data(), m->size_);
    m->data_ = m->buffer_.data();
    return m;
}

MappedFile::~MappedFile() {
    if (map_) os::unmap(map_, size_);
}

std::string path_join(const std::string &dir, const std::string &name) {
    if (dir.empty()) return name;
    if (std::string(kSeparators).find(dir.back()) != std::string::npos) return dir + name;
    return dir + "/" + name;
}

std::string path_dirname(const std::string &path) {
    size_t slash = path.find_last_of(kSeparators);
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string read_file_prefix(const std::string &path, size_t n) {
    os::ReadOnlyFile file(path);
    if (file.size() < n) n = static_cast<size_t>(file.size());
    std::string out(n, '\0');
    file.read_all(reinterpret_cast<uint8_t *>(&out[0]), n);
    return out;
}

std::string read_text_file(const std::string &path, size_t max_bytes) {
    auto f = MappedFile::open(path, false, max_bytes); // an oversized file is refused unread
    return std::string(reinterpret_cast<const char *>(f->data()), f->size());
}

void MappedFile::drop_pages(const void *p, size_t n) const {
    if (map_ && contains(p)) os::drop_pages(p, n);
}

} // namespace llm
