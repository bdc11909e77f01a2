using System;
using Llm.Native;

namespace Llm
{
    /// <summary>A libllm status code (LLM_ERR_* in llm.h).</summary>
    public enum Status
    {
        Ok = LlmNative.LLM_OK,
        InvalidArgument = LlmNative.LLM_ERR_INVALID_ARGUMENT,
        NotFound = LlmNative.LLM_ERR_NOT_FOUND,
        IO = LlmNative.LLM_ERR_IO,
        Truncated = LlmNative.LLM_ERR_TRUNCATED,
        SizeMismatch = LlmNative.LLM_ERR_SIZE_MISMATCH,
        BadDimensions = LlmNative.LLM_ERR_BAD_DIMENSIONS,
        Format = LlmNative.LLM_ERR_FORMAT,
        TokenizerMismatch = LlmNative.LLM_ERR_TOKENIZER_MISMATCH,
        Unsupported = LlmNative.LLM_ERR_UNSUPPORTED,
        TokenOutOfRange = LlmNative.LLM_ERR_TOKEN_OUT_OF_RANGE,
        ContextFull = LlmNative.LLM_ERR_CONTEXT_FULL,
        BufferTooSmall = LlmNative.LLM_ERR_BUFFER_TOO_SMALL,
        Cancelled = LlmNative.LLM_ERR_CANCELLED,
        OutOfMemory = LlmNative.LLM_ERR_OUT_OF_MEMORY,
        Internal = LlmNative.LLM_ERR_INTERNAL,
        Template = LlmNative.LLM_ERR_TEMPLATE,
        Grammar = LlmNative.LLM_ERR_GRAMMAR,
        StateMismatch = LlmNative.LLM_ERR_STATE_MISMATCH,
    }

    /// <summary>A failed libllm call: its status and libllm's message.</summary>
    public class LlmException : Exception
    {
        public Status Status { get; private set; }

        public LlmException(Status status, string message) : base(message) { Status = status; }

        /// <summary>Throws for a failed status. The message was recorded by the
        /// native wrapper on this thread, right after the call failed.</summary>
        internal static void Check(int status)
        {
            if (status != LlmNative.LLM_OK) throw Create(status);
        }

        internal static LlmException Create(int status)
        {
            string message = LlmNativePINVOKE.TakeError(status) ?? LlmNative.llm_status_str(status);
            return new LlmException((Status)status, message);
        }
    }
}
