#ifdef _WIN32

#include "common/os_file.h"

#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <algorithm>
#include <climits>

#include "common/error.h"
#include "common/mapped_file.h"

namespace llm {

namespace {
// UTF-8 -> UTF-16 for the wide Win32 API. False if `utf8` is not valid UTF-8.
bool to_wide(const std::string &utf8, std::wstring &out) {
    out.clear();
    if (utf8.empty()) return true;
    if (utf8.size() > static_cast<size_t>(INT_MAX)) return false;
    int len = static_cast<int>(utf8.size());
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), len, nullptr, 0);
    if (n <= 0) return false;
    out.resize(static_cast<size_t>(n));
    return MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), len, &out[0], n) == n;
}

std::wstring wide_path(const std::string &path) {
    std::wstring w;
    if (!to_wide(path, w) || w.find(L'\0') != std::wstring::npos)
        fail(LLM_ERR_INVALID_ARGUMENT, "path is not valid UTF-8: ", path);
    return w;
}

// The system's text for a Win32 error code, in UTF-8, without the final ".\r\n".
std::string error_text(DWORD code) {
    wchar_t *buf = nullptr;
    DWORD n = FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
                                 FORMAT_MESSAGE_IGNORE_INSERTS,
                             nullptr, code, 0, reinterpret_cast<wchar_t *>(&buf), 0, nullptr);
    std::string text;
    if (n > 0 && buf) {
        int len =
            WideCharToMultiByte(CP_UTF8, 0, buf, static_cast<int>(n), nullptr, 0, nullptr, nullptr);
        if (len > 0) {
            text.resize(static_cast<size_t>(len));
            WideCharToMultiByte(CP_UTF8, 0, buf, static_cast<int>(n), &text[0], len, nullptr,
                                nullptr);
        }
    }
    if (buf) LocalFree(buf);
    while (!text.empty() &&
           (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '.'))
        text.pop_back();
    if (text.empty()) text = "Windows error " + std::to_string(code);
    return text;
}

[[noreturn]] void fail_last_error(const std::string &path, const char *what) {
    DWORD e = GetLastError();
    bool missing = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND;
    fail(missing ? LLM_ERR_NOT_FOUND : LLM_ERR_IO, path, ": ", what, ": ", error_text(e));
}

HANDLE as_handle(intptr_t h) {
    return reinterpret_cast<HANDLE>(h);
}

DWORD attributes(const std::string &path) {
    std::wstring w;
    if (!to_wide(path, w)) return INVALID_FILE_ATTRIBUTES;
    return GetFileAttributesW(w.c_str());
}
} // namespace

namespace os {

ReadOnlyFile::ReadOnlyFile(const std::string &path) : path_(path) {
    std::wstring w = wide_path(path);
    // CreateFileW refuses folders with "access denied"; report them as POSIX does.
    DWORD attr = GetFileAttributesW(w.c_str());
    if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY))
        fail(LLM_ERR_IO, path, ": not a regular file");
    HANDLE h =
        CreateFileW(w.c_str(), GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_DELETE, nullptr,
                    OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL | FILE_FLAG_SEQUENTIAL_SCAN, nullptr);
    if (h == INVALID_HANDLE_VALUE) fail_last_error(path, "cannot open");
    handle_ = reinterpret_cast<intptr_t>(h);
    LARGE_INTEGER size;
    if (GetFileType(h) != FILE_TYPE_DISK) {
        CloseHandle(h);
        fail(LLM_ERR_IO, path, ": not a regular file");
    }
    if (!GetFileSizeEx(h, &size)) {
        DWORD e = GetLastError();
        CloseHandle(h);
        SetLastError(e);
        fail_last_error(path, "cannot get the size");
    }
    size_ = static_cast<uint64_t>(size.QuadPart);
}

ReadOnlyFile::~ReadOnlyFile() {
    CloseHandle(as_handle(handle_));
}

void *ReadOnlyFile::map(size_t size) const {
    HANDLE mapping = CreateFileMappingW(as_handle(handle_), nullptr, PAGE_READONLY, 0, 0, nullptr);
    if (!mapping) return nullptr;
    void *p = MapViewOfFile(mapping, FILE_MAP_READ, 0, 0, size);
    CloseHandle(mapping); // the view keeps the mapping alive
    return p;
}

void ReadOnlyFile::read_all(uint8_t *dst, size_t size) const {
    size_t done = 0;
    while (done < size) {
        DWORD chunk = static_cast<DWORD>(std::min<size_t>(size - done, 1u << 30));
        DWORD got = 0;
        if (!ReadFile(as_handle(handle_), dst + done, chunk, &got, nullptr))
            fail_last_error(path_, "read failed");
        if (got == 0) fail(LLM_ERR_IO, path_, ": file shrank while reading");
        done += got;
    }
}

void unmap(void *data, size_t) {
    UnmapViewOfFile(data);
}

void drop_pages(const void *data, size_t size) {
    // VirtualUnlock on pages that are not locked removes them from the
    // working set (it then reports ERROR_NOT_LOCKED, which is expected).
    VirtualUnlock(const_cast<void *>(data), size);
}

} // namespace os

bool path_is_directory(const std::string &path) {
    DWORD attr = attributes(path);
    return attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY);
}

bool path_exists(const std::string &path) {
    return attributes(path) != INVALID_FILE_ATTRIBUTES;
}

} // namespace llm

#endif // _WIN32
