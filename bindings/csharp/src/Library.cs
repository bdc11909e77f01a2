using Llm.Native;

namespace Llm
{
    /// <summary>The loaded libllm as a whole.</summary>
    public static class Library
    {
        /// <summary>The version of the libllm this program runs with, e.g. "1.5.0".</summary>
        public static string Version
        {
            get { return LlmNative.llm_version(); }
        }

        /// <summary>What libllm runs on, for logs and bug reports: space-separated
        /// key=value pairs such as "simd=avx2vnni simd_best=avx2vnni cores=8".
        /// simd is the kernel level in use (the CPU's best unless the environment
        /// variable LLM_SIMD lowers it), simd_best the best this CPU and OS
        /// support, cores the physical cores (a session's default thread count).
        /// Later versions may add keys.</summary>
        public static string SystemInfo
        {
            get { return LlmNative.llm_system_info(); }
        }
    }
}
