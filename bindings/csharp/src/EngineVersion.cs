using System;
using Llm.Native;

namespace Llm
{
    /// <summary>The check that the loaded libllm has the major version this
    /// binding was written for (another major has another ABI).</summary>
    public static class EngineVersion
    {
        /// <summary>The libllm major version this binding needs.</summary>
        public const int Major = 1;

        /// <summary>Null when <paramref name="versionNumber"/> (as
        /// llm_version_number() gives it) has the right major, else the error.</summary>
        public static string Mismatch(string version, int versionNumber)
        {
            int major = versionNumber / 10000;
            if (major == Major) return null;
            return "the loaded libllm is version " + version + " (major " + major +
                   "), this binding needs major " + Major + ": install a libllm " + Major + ".x";
        }

        internal static void Check()
        {
            string error = Mismatch(LlmNative.llm_version(), LlmNative.llm_version_number());
            if (error != null) throw new InvalidOperationException(error);
        }
    }

    // Refuses another major version before the first model loads.
    public sealed partial class Model
    {
        static Model() { EngineVersion.Check(); }
    }
}
