/* Loads the C# binding's native wrapper the way .NET does a NuGet package's
 * runtimes/win-x64/native asset on Windows: LoadLibraryExW of its full path
 * with LOAD_WITH_ALTERED_SEARCH_PATH, under which the loader looks for the
 * DLL's own imports (llm.dll) in its folder first. Then calls the wrapper of
 * llm_version_number() that Llm.dll P/Invokes and compares it with llm.h's.
 *   csharp_native_load.exe <full path of llm_csharp.dll>
 *   csharp_native_load.exe --plain <full path of llm_csharp.dll>
 * --plain is the control: a LoadLibrary of the same path without the flag
 * must fail to find llm.dll (error 126), so llm.dll is on no other search
 * path. Run from another folder than the DLL's. */
#include <stdio.h>
#include <string.h>
#include <windows.h>

#include "llm.h"

typedef int (*version_number_fn)(void);

int main(int argc, char **argv) {
    int plain = argc == 3 && strcmp(argv[1], "--plain") == 0;
    if (argc != 2 && !plain) {
        fprintf(stderr, "usage: %s [--plain] <full path of llm_csharp.dll>\n", argv[0]);
        return 2;
    }
    const char *path = argv[argc - 1];
    if (plain) {
        HMODULE loaded = LoadLibraryA(path);
        DWORD error = GetLastError();
        if (loaded || error != ERROR_MOD_NOT_FOUND) {
            fprintf(stderr, "LoadLibrary(%s) without the DLL's folder: %s (error %lu)\n", path,
                    loaded ? "loaded, llm.dll is on another search path" : "failed", error);
            return 1;
        }
        printf("without LOAD_WITH_ALTERED_SEARCH_PATH, llm.dll is not found (error 126)\n");
        return 0;
    }
    HMODULE wrapper = LoadLibraryExA(path, NULL, LOAD_WITH_ALTERED_SEARCH_PATH);
    if (!wrapper) {
        fprintf(stderr, "LoadLibraryEx(%s) failed: error %lu\n", path, GetLastError());
        return 1;
    }
    const char *entry = "CSharp_LlmfNative_llm_version_number___";
    version_number_fn version_number =
        (version_number_fn)(void (*)(void))GetProcAddress(wrapper, entry);
    if (!version_number) {
        fprintf(stderr, "llm_csharp.dll does not export %s\n", entry);
        return 1;
    }
    int version = version_number();
    printf("llm_csharp.dll: %s() = %d\n", entry, version);
    if (version / 10000 != LLM_VERSION_MAJOR) {
        fprintf(stderr, "expected major version %d\n", LLM_VERSION_MAJOR);
        return 1;
    }
    FreeLibrary(wrapper);
    return 0;
}
