using System;
using System.Collections.Generic;
using System.Text;
using Llm.Native;

namespace Llm
{
    /// <summary>Why a generation ended.</summary>
    public enum StopReason
    {
        /// <summary>An end-of-generation token was sampled.</summary>
        Eos,
        /// <summary>MaxTokens tokens were generated.</summary>
        MaxTokens,
        /// <summary>The session has no room for more tokens.</summary>
        ContextFull,
        /// <summary>The onPiece callback returned false, or the caller stopped
        /// enumerating the stream.</summary>
        Callback,
    }

    /// <summary>One generated token and the text it completes (possibly empty:
    /// a character split over tokens comes with the last of them).</summary>
    public struct Piece
    {
        public int Token { get; private set; }
        public string Text { get; private set; }

        internal Piece(int token, string text) : this()
        {
            Token = token;
            Text = text;
        }
    }

    /// <summary>A finished generation.</summary>
    public sealed class GenerationResult
    {
        readonly List<int> tokens = new List<int>();
        readonly StringBuilder text = new StringBuilder();

        /// <summary>The generated text, without the prompt.</summary>
        public string Text { get { return text.ToString(); } }
        /// <summary>The generated ids, without an ending EOS.</summary>
        public int[] Tokens { get { return tokens.ToArray(); } }
        public StopReason Stop { get; internal set; }

        internal void Add(Piece piece)
        {
            tokens.Add(piece.Token);
            text.Append(piece.Text);
        }
    }

    /// <summary>One conversation on a model: its KV cache and position. Each
    /// Generate continues where the last one stopped; Reset starts over. One
    /// call at a time; Cancel may come from any thread. Using a disposed
    /// session throws ObjectDisposedException.</summary>
    public sealed partial class Session : IDisposable
    {
        readonly Model model;
        readonly ContextHandle handle;
        // The model's native pointer without ownership: valid while handle
        // lives, since handle keeps the model (so this works after
        // Model.Dispose too).
        readonly ModelHandle modelView;
        readonly byte[] text; // llm_context_step's output buffer
        volatile bool disposed;

        internal Session(Model model, SessionOptions options)
        {
            this.model = model;
            ModelHandle modelHandle = model.Handle;
            using (llm_context_params p = LlmNative.llm_context_default_params())
            {
                p.n_ctx = options.ContextSize;
                p.n_threads = options.Threads;
                p.kv_type = (int)options.KVType;
                int status = LlmNative.llm_context_new(modelHandle, p, out handle);
                if (status != LlmNative.LLM_OK)
                {
                    handle.Dispose();
                    throw LlmException.Create(status);
                }
            }
            handle.KeepAlive(modelHandle); // the model is freed after its contexts
            modelView = ModelHandle.Borrow(modelHandle);
            text = new byte[LlmNative.llm_context_step_max_bytes(handle)];
        }

        /// <summary>Frees the session. Idempotent.</summary>
        public void Dispose()
        {
            disposed = true;
            handle.Dispose();
        }

        ContextHandle Handle
        {
            get
            {
                if (disposed) throw new ObjectDisposedException("Session");
                return handle;
            }
        }

        public Model Model { get { return model; } }

        /// <summary>Tokens in the session: prompts and generated text so far.</summary>
        public int Position { get { return LlmNative.llm_context_position(Handle); } }

        /// <summary>Forgets the conversation.</summary>
        public void Reset() { LlmNative.llm_context_reset(Handle); }

        /// <summary>Makes the running (or next) generation throw an LlmException
        /// with Status.Cancelled. Safe from any thread; no-op once disposed.</summary>
        public void Cancel()
        {
            try
            {
                LlmNative.llm_context_cancel(handle);
            }
            catch (ObjectDisposedException)
            {
            }
        }

        /// <summary>Feeds the prompt (with BOS at position 0; an empty prompt
        /// continues) and generates. onPiece, if given, sees each piece as it
        /// comes and returns false to stop.</summary>
        public GenerationResult Generate(string prompt, GenerateOptions options = null,
                                         Func<Piece, bool> onPiece = null)
        {
            var result = new GenerationResult();
            foreach (Piece piece in Run(prompt, options, result))
            {
                if (onPiece != null && !onPiece(piece))
                {
                    result.Stop = StopReason.Callback;
                    break;
                }
            }
            return result;
        }

        /// <summary>Generate as a lazy sequence of pieces: nothing runs until
        /// it is enumerated, and leaving the loop early stops generating.</summary>
        public IEnumerable<Piece> Stream(string prompt, GenerateOptions options = null)
        {
            return Run(prompt, options, new GenerationResult());
        }

        // The generation loop over llm_context_step; records into result.
        IEnumerable<Piece> Run(string prompt, GenerateOptions options, GenerationResult result)
        {
            if (prompt == null) throw new ArgumentNullException("prompt");
            options = options ?? new GenerateOptions();
            if (options.MaxTokens < 0)
                throw new LlmException(Status.InvalidArgument, "MaxTokens must be >= 0");
            ContextHandle ctx = Handle;
            using (SamplerHandle sampler = NewSampler(ctx, options)) // bad options fail before the prompt is fed
            {
                Feed(ctx, prompt, options.ParseSpecial);
                result.Stop = StopReason.MaxTokens;
                int count = 0;
                while (options.MaxTokens == 0 || count < options.MaxTokens)
                {
                    int token, eog;
                    ulong n;
                    int status = LlmNative.llm_context_step(ctx, sampler, out token, out eog, text,
                                                            (ulong)text.Length, out n);
                    bool full = status == LlmNative.LLM_ERR_CONTEXT_FULL; // token still valid
                    if (full) LlmNativePINVOKE.TakeError(status);
                    else LlmException.Check(status);
                    if (eog != 0)
                    {
                        if (options.StopAtEos)
                        {
                            result.Stop = StopReason.Eos;
                            yield break;
                        }
                        if (!full) full = FeedBack(ctx, token);
                    }
                    var piece = new Piece(token, Encoding.UTF8.GetString(text, 0, (int)n));
                    result.Add(piece);
                    count++;
                    if (full) result.Stop = StopReason.ContextFull;
                    yield return piece;
                    if (full) yield break;
                }
            }
        }

        SamplerHandle NewSampler(ContextHandle ctx, GenerateOptions options)
        {
            bool added = false;
            try
            {
                ctx.DangerousAddRef(ref added); // keeps modelView valid meanwhile
                return options.CreateSampler(modelView);
            }
            finally
            {
                if (added) ctx.DangerousRelease();
            }
        }

        void Feed(ContextHandle ctx, string prompt, bool parseSpecial)
        {
            bool added = false;
            try
            {
                ctx.DangerousAddRef(ref added); // keeps modelView valid meanwhile
                var flags = LlmNative.llm_context_position(ctx) == 0 ? TokenizeFlags.AddSpecial : TokenizeFlags.None;
                if (parseSpecial) flags |= TokenizeFlags.ParseSpecial;
                int[] ids = Model.Tokenize(modelView, Encoding.UTF8.GetBytes(prompt), flags);
                if (ids.Length > 0) LlmException.Check(LlmNative.llm_forward(ctx, ids, (ulong)ids.Length));
            }
            finally
            {
                if (added) ctx.DangerousRelease();
            }
        }

        // Feeds an end-of-generation token (llm_context_step does not);
        // returns true if the context had no room for it.
        static bool FeedBack(ContextHandle ctx, int token)
        {
            int status = LlmNative.llm_forward(ctx, new[] { token }, 1);
            if (status != LlmNative.LLM_ERR_CONTEXT_FULL)
            {
                LlmException.Check(status);
                return false;
            }
            LlmNativePINVOKE.TakeError(status);
            return true;
        }
    }
}
