/* Compiled into the prebuilt addons only (binding.gyp, libllm_prebuilt=yes).
 * Their libstdc++ is linked in, and GCC 12's libstdc++.a built on glibc 2.36
 * refers to arc4random (for std::random_device, which libllm never uses).
 * glibc has arc4random only since 2.36: that one reference would make the
 * addon refuse to load on older systems that it otherwise runs on (glibc
 * 2.34). This hidden definition, from getrandom (glibc 2.25), satisfies the
 * reference inside the addon instead. */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/types.h>

__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
    uint32_t value = 0;
    size_t got = 0;
    while (got < sizeof value) {
        ssize_t n = getrandom((char *)&value + got, sizeof value - got, 0);
        if (n > 0)
            got += (size_t)n;
        else if (n < 0 && errno != EINTR)
            break; /* no getrandom (a kernel before 3.17): never reached by libllm */
    }
    return value;
}
