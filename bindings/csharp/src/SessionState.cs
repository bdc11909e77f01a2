using System;
using Llm.Native;

namespace Llm
{
    // Saved states and shared prefixes (llm_context_state_*, llm_context_copy_prefix).
    public sealed partial class Session
    {
        /// <summary>The session's state: its tokens, KV cache, last logits and
        /// text stream, as bytes that <see cref="LoadState"/> on a session of
        /// the same model (now or in another process) continues from exactly.</summary>
        public byte[] SaveState()
        {
            ContextHandle ctx = Handle;
            ulong size, n;
            LlmException.Check(LlmNative.llm_context_state_size(ctx, out size));
            var state = new byte[size];
            LlmException.Check(LlmNative.llm_context_state_save(ctx, state, (ulong)state.Length, out n));
            if (n != (ulong)state.Length) Array.Resize(ref state, (int)n);
            return state;
        }

        /// <summary>Replaces the conversation with a saved state. Throws an
        /// LlmException with Status.StateMismatch for another model's state,
        /// Format or Truncated for a damaged one, ContextFull if it is longer
        /// than this session; the session is then unchanged.</summary>
        public void LoadState(byte[] state)
        {
            if (state == null) throw new ArgumentNullException("state");
            LlmException.Check(LlmNative.llm_context_state_load(Handle, state, (ulong)state.Length));
        }

        /// <summary>SaveState to a file (replacing one at that path).</summary>
        public void SaveStateFile(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            LlmException.Check(LlmNative.llm_context_state_save_file(Handle, path));
        }

        /// <summary>LoadState from a file (Status.NotFound if it is missing).</summary>
        public void LoadStateFile(string path)
        {
            if (path == null) throw new ArgumentNullException("path");
            LlmException.Check(LlmNative.llm_context_state_load_file(Handle, path));
        }

        /// <summary>Makes this session hold the first nTokens tokens of source
        /// and their KV cache, as if it had run them: a shared system prompt
        /// evaluated once, copied into each conversation. Both sessions must
        /// run the same model.</summary>
        public void CopyPrefixFrom(Session source, int nTokens)
        {
            if (source == null) throw new ArgumentNullException("source");
            LlmException.Check(LlmNative.llm_context_copy_prefix(Handle, source.Handle, nTokens));
        }

        /// <summary>CopyPrefixFrom all of source's tokens: the next Generate
        /// goes on exactly as source's would.</summary>
        public void CopyPrefixFrom(Session source)
        {
            if (source == null) throw new ArgumentNullException("source");
            CopyPrefixFrom(source, source.Position);
        }
    }
}
