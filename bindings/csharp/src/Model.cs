using System;
using System.Collections.Generic;
using System.Collections.ObjectModel;
using System.Text;
using Llm.Native;

namespace Llm
{
    /// <summary>Flags for <see cref="Model.Tokenize"/> (LLM_TOKENIZE_*).</summary>
    [Flags]
    public enum TokenizeFlags
    {
        None = 0,
        /// <summary>Add BOS/EOS as the model's tokenizer config says.</summary>
        AddSpecial = LlmNative.LLM_TOKENIZE_ADD_SPECIAL,
        /// <summary>Turn special-token text ("&lt;|im_start|&gt;") into its id.</summary>
        ParseSpecial = LlmNative.LLM_TOKENIZE_PARSE_SPECIAL,
    }

    /// <summary>A loaded model: weights and tokenizer. Thread-safe. Dispose
    /// it when done; sessions keep the native model alive until they are
    /// disposed too. Using it after Dispose throws ObjectDisposedException.</summary>
    public sealed partial class Model : IDisposable
    {
        readonly ModelHandle handle;
        // Disposed: the Model is unusable, even while sessions keep the
        // native model (and so the SafeHandle) alive.
        volatile bool disposed;

        public string Arch { get; private set; }
        public int VocabSize { get; private set; }
        /// <summary>Positions the model was trained for.</summary>
        public int ContextLength { get; private set; }
        public int EmbeddingSize { get; private set; }
        public int Layers { get; private set; }
        public int Heads { get; private set; }
        public int KVHeads { get; private set; }
        public long Params { get; private set; }
        public long WeightBytes { get; private set; }
        /// <summary>The weight type in use; <c>WeightType.Name()</c> gives libllm's name ("q4_k").</summary>
        public WeightType WeightType { get; private set; }
        /// <summary>The model file's metadata as text, by key, in key order: a GGUF
        /// file's key-value pairs (numbers and booleans written out, arrays left
        /// out). Every model has "general.architecture". Read at load, so it
        /// stays readable after Dispose.</summary>
        public IReadOnlyDictionary<string, string> Metadata { get; private set; }
        /// <summary>BOS token id, -1 if none.</summary>
        public int Bos { get; private set; }
        /// <summary>EOS token id, -1 if none.</summary>
        public int Eos { get; private set; }

        Model(ModelHandle handle)
        {
            this.handle = handle;
            Arch = LlmNative.llm_model_arch(handle);
            VocabSize = LlmNative.llm_model_n_vocab(handle);
            ContextLength = LlmNative.llm_model_n_ctx_train(handle);
            EmbeddingSize = LlmNative.llm_model_n_embd(handle);
            Layers = LlmNative.llm_model_n_layer(handle);
            Heads = LlmNative.llm_model_n_head(handle);
            KVHeads = LlmNative.llm_model_n_head_kv(handle);
            Params = LlmNative.llm_model_n_params(handle);
            WeightBytes = LlmNative.llm_model_weight_bytes(handle);
            WeightType = (WeightType)LlmNative.llm_model_weight_type(handle);
            Bos = LlmNative.llm_model_bos(handle);
            Eos = LlmNative.llm_model_eos(handle);
            var metadata = new SortedDictionary<string, string>(StringComparer.Ordinal);
            int count = LlmNative.llm_model_meta_count(handle);
            for (int i = 0; i < count; ++i)
            {
                int index = i;
                string key = ReadText((byte[] buf, out ulong n) =>
                    LlmNative.llm_model_meta_key(handle, index, buf, (ulong)(buf == null ? 0 : buf.Length), out n));
                metadata[key] = MetaValue(handle, key);
            }
            Metadata = new ReadOnlyDictionary<string, string>(metadata);
        }

        delegate int TextCall(byte[] buf, out ulong needed);

        // A (buf, cap, &needed) call: a size query, then the text.
        static string ReadText(TextCall call)
        {
            ulong n;
            int status = call(null, out n);
            if (status != LlmNative.LLM_ERR_BUFFER_TOO_SMALL) LlmException.Check(status);
            LlmNativePINVOKE.TakeError(status);
            byte[] text = new byte[n];
            LlmException.Check(call(text, out n));
            return Encoding.UTF8.GetString(text, 0, (int)n);
        }

        static string MetaValue(ModelHandle handle, string key)
        {
            return ReadText((byte[] buf, out ulong n) =>
                LlmNative.llm_model_meta_value(handle, key, buf, (ulong)(buf == null ? 0 : buf.Length), out n));
        }

        /// <summary>One metadata value, read from the model: false if the file
        /// has no such key.</summary>
        /// <exception cref="ObjectDisposedException">After Dispose.</exception>
        public bool TryGetMeta(string key, out string value)
        {
            if (key == null) throw new ArgumentNullException("key");
            ModelHandle model = Handle;
            value = null;
            if (key.IndexOf('\0') >= 0) return false; // C strings: never a key
            try
            {
                value = MetaValue(model, key);
                return true;
            }
            catch (LlmException e)
            {
                if (e.Status == Status.NotFound) return false;
                throw;
            }
        }

        /// <summary>Loads a llama2.c checkpoint (.bin) or a Hugging Face folder
        /// (config.json, model.safetensors, tokenizer.json).</summary>
        /// <exception cref="LlmException">With the status, e.g. NotFound.</exception>
        public static Model Load(string path, ModelOptions options = null)
        {
            if (path == null) throw new ArgumentNullException("path");
            options = options ?? new ModelOptions();
            using (llm_model_params p = LlmNative.llm_model_default_params())
            {
                if (options.TokenizerPath != null) p.tokenizer_path = options.TokenizerPath;
                p.weight_type = (int)options.WeightType;
                p.use_mmap = options.UseMmap ? 1 : 0;
                ModelHandle handle;
                int status = LlmNative.llm_model_load(path, p, out handle);
                if (status != LlmNative.LLM_OK)
                {
                    handle.Dispose();
                    throw LlmException.Create(status);
                }
                return new Model(handle);
            }
        }

        /// <summary>Frees the model (once no session uses it). Idempotent.</summary>
        public void Dispose()
        {
            disposed = true;
            handle.Dispose();
        }

        internal ModelHandle Handle
        {
            get
            {
                if (disposed) throw new ObjectDisposedException("Model");
                return handle;
            }
        }

        /// <summary>True if token ends a generation (EOS; BOS too for llama2.c
        /// checkpoints).</summary>
        public bool IsEndOfGeneration(int token) { return LlmNative.llm_token_is_eog(Handle, token) != 0; }

        /// <summary>Encodes text into token ids.</summary>
        public int[] Tokenize(string text, TokenizeFlags flags = TokenizeFlags.AddSpecial)
        {
            if (text == null) throw new ArgumentNullException("text");
            return Tokenize(Handle, Encoding.UTF8.GetBytes(text), flags);
        }

        internal static int[] Tokenize(ModelHandle model, byte[] utf8, TokenizeFlags flags)
        {
            int[] ids = new int[utf8.Length + 2]; // enough unless merges are absent
            ulong n;
            int status = LlmNative.llm_tokenize(model, utf8, (ulong)utf8.Length, (int)flags, ids, (ulong)ids.Length, out n);
            if (status == LlmNative.LLM_ERR_BUFFER_TOO_SMALL)
            {
                LlmNativePINVOKE.TakeError(status);
                ids = new int[n];
                status = LlmNative.llm_tokenize(model, utf8, (ulong)utf8.Length, (int)flags, ids, (ulong)ids.Length, out n);
            }
            LlmException.Check(status);
            Array.Resize(ref ids, (int)n);
            return ids;
        }

        /// <summary>Decodes token ids back to text; special tokens are skipped.</summary>
        public string Detokenize(int[] ids)
        {
            if (ids == null) throw new ArgumentNullException("ids");
            ModelHandle model = Handle;
            ulong n;
            int status = LlmNative.llm_detokenize(model, ids, (ulong)ids.Length, 0, null, 0, out n);
            if (status != LlmNative.LLM_ERR_BUFFER_TOO_SMALL) LlmException.Check(status);
            LlmNativePINVOKE.TakeError(status);
            byte[] text = new byte[n];
            LlmException.Check(LlmNative.llm_detokenize(model, ids, (ulong)ids.Length, 0, text, (ulong)text.Length, out n));
            return Encoding.UTF8.GetString(text, 0, (int)n);
        }

        /// <summary>Starts a conversation on this model.</summary>
        public Session CreateSession(SessionOptions options = null)
        {
            return new Session(this, options ?? new SessionOptions());
        }
    }
}
