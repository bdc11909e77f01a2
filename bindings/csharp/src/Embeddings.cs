using System;
using System.Text;
using Llm.Native;

namespace Llm
{
    /// <summary>How <see cref="Model.Embed"/> turns the tokens' hidden states
    /// into the result (LLM_POOLING_*).</summary>
    public enum Pooling
    {
        /// <summary>The model's own (<see cref="Model.DefaultPooling"/>).</summary>
        Default = LlmNative.LLM_POOLING_DEFAULT,
        /// <summary>Every token's state, one after the other.</summary>
        None = LlmNative.LLM_POOLING_NONE,
        /// <summary>The average of the tokens' states.</summary>
        Mean = LlmNative.LLM_POOLING_MEAN,
        /// <summary>The last token's state (Qwen3-Embedding).</summary>
        Last = LlmNative.LLM_POOLING_LAST,
        /// <summary>The first token's state ([CLS] style).</summary>
        First = LlmNative.LLM_POOLING_FIRST,
    }

    /// <summary>Options of <see cref="Model.Embed"/>.</summary>
    public sealed class EmbedOptions
    {
        public Pooling Pooling = Pooling.Default;
        /// <summary>Scale the vector (each row for None) to unit length.</summary>
        public bool Normalize = true;
        /// <summary>Compute threads; 0 = the physical cores.</summary>
        public int Threads;
    }

    public sealed partial class Model
    {
        /// <summary>The pooling the model file asks for: Last for
        /// Qwen3-Embedding, else Mean.</summary>
        public Pooling DefaultPooling
        {
            get { return (Pooling)LlmNative.llm_model_default_pooling(Handle); }
        }

        /// <summary>The embedding of text (tokenized with the model's special
        /// tokens): EmbeddingSize values, or that many per token, one token
        /// after the other, with Pooling.None.</summary>
        public float[] Embed(string text, EmbedOptions options = null)
        {
            if (text == null) throw new ArgumentNullException("text");
            options = options ?? new EmbedOptions();
            ModelHandle model = Handle;
            int[] ids = Tokenize(model, Encoding.UTF8.GetBytes(text), TokenizeFlags.AddSpecial);
            if (ids.Length == 0) throw new ArgumentException("the text has no tokens", "text");
            ContextHandle ctx;
            using (llm_context_params p = LlmNative.llm_context_default_params())
            {
                p.n_ctx = Math.Min(ids.Length, ContextLength);
                p.n_threads = options.Threads;
                p.embeddings = 1;
                int status = LlmNative.llm_context_new(model, p, out ctx);
                if (status != LlmNative.LLM_OK)
                {
                    ctx.Dispose();
                    throw LlmException.Create(status);
                }
            }
            using (ctx)
            {
                int pooling = (int)options.Pooling, normalize = options.Normalize ? 1 : 0;
                ulong n;
                int status = LlmNative.llm_embed(ctx, ids, (ulong)ids.Length, pooling, normalize, null, 0, out n);
                if (status != LlmNative.LLM_ERR_BUFFER_TOO_SMALL) LlmException.Check(status);
                LlmNativePINVOKE.TakeError(status);
                float[] values = new float[n];
                LlmException.Check(LlmNative.llm_embed(ctx, ids, (ulong)ids.Length, pooling, normalize, values,
                                                       (ulong)values.Length, out n));
                return values;
            }
        }
    }
}
