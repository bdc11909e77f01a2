package llm

import "libllm.dev/llm/internal/capi"

// Version is the version of the libllm this program runs with, e.g. "1.5.0".
func Version() string { return capi.Llm_version() }

// SystemInfo tells what libllm runs on, for logs and bug reports:
// space-separated key=value pairs such as "simd=avx2vnni simd_best=avx2vnni
// cores=8". simd is the kernel level in use (the CPU's best unless the
// environment variable LLM_SIMD lowers it), simd_best the best this CPU and
// OS support, cores the physical cores (a session's default thread count).
// Later versions may add keys.
func SystemInfo() string { return capi.Llm_system_info() }
