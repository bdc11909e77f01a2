using System;
using Llm.Native;

namespace Llm
{
    /// <summary>How a model's weights are held in memory (LLM_WEIGHTS_*). The
    /// block-quantized types from Q4_0 on are those of GGUF files. Their
    /// names are libllm's: see <see cref="WeightTypes"/>.</summary>
    public enum WeightType
    {
        Auto = LlmNative.LLM_WEIGHTS_AUTO,
        F32 = LlmNative.LLM_WEIGHTS_F32,
        BF16 = LlmNative.LLM_WEIGHTS_BF16,
        F16 = LlmNative.LLM_WEIGHTS_F16,
        Q8_0 = LlmNative.LLM_WEIGHTS_Q8_0,
        Q4_0 = LlmNative.LLM_WEIGHTS_Q4_0,
        Q4_1 = LlmNative.LLM_WEIGHTS_Q4_1,
        Q5_0 = LlmNative.LLM_WEIGHTS_Q5_0,
        Q5_1 = LlmNative.LLM_WEIGHTS_Q5_1,
        Q4_K = LlmNative.LLM_WEIGHTS_Q4_K,
        Q5_K = LlmNative.LLM_WEIGHTS_Q5_K,
        Q6_K = LlmNative.LLM_WEIGHTS_Q6_K,
    }

    /// <summary>libllm's names of the weight types ("f32", "q8_0", "q4_k", ...:
    /// llm_weight_type_name), as the tools and the other bindings write them.</summary>
    public static class WeightTypes
    {
        /// <summary>The name of a weight type, e.g. "q4_k"; null for a value
        /// libllm does not know.</summary>
        public static string Name(this WeightType type)
        {
            string name = LlmNative.llm_weight_type_name((int)type);
            return string.IsNullOrEmpty(name) ? null : name;
        }

        /// <summary>The weight type of a name ("q4_k", any case).</summary>
        public static bool TryParse(string name, out WeightType type)
        {
            type = WeightType.Auto;
            if (name == null || name.IndexOf('\0') >= 0) return false;
            int value = LlmNative.llm_weight_type_from_name(name.ToLowerInvariant());
            if (value < 0) return false;
            type = (WeightType)value;
            return true;
        }

        /// <summary>The weight type of a name ("q4_k", any case).</summary>
        /// <exception cref="ArgumentException">For a name libllm does not know.</exception>
        public static WeightType Parse(string name)
        {
            if (name == null) throw new ArgumentNullException("name");
            WeightType type;
            if (!TryParse(name, out type)) throw new ArgumentException("unknown weight type '" + name + "'", "name");
            return type;
        }
    }

    /// <summary>How a session's KV cache stores keys and values (LLM_KV_*).</summary>
    public enum KVType
    {
        /// <summary>Exact (the default).</summary>
        F32 = LlmNative.LLM_KV_F32,
        /// <summary>Half the memory; keys and values rounded to fp16.</summary>
        F16 = LlmNative.LLM_KV_F16,
    }

    /// <summary>Options for <see cref="Model.Load"/>.</summary>
    public sealed class ModelOptions
    {
        /// <summary>The tokenizer of a llama2.c checkpoint; null means
        /// tokenizer.bin next to the model. Hugging Face folders ignore it.</summary>
        public string TokenizerPath { get; set; }
        /// <summary>Convert fp32/fp16 weights at load; Auto keeps the file's
        /// type. A matrix whose rows do not fit the type's blocks keeps its type.</summary>
        public WeightType WeightType { get; set; }
        /// <summary>Map the file (default) rather than reading it into memory.</summary>
        public bool UseMmap { get; set; }

        public ModelOptions() { UseMmap = true; }
    }

    /// <summary>Options for <see cref="Model.CreateSession"/>.</summary>
    public sealed class SessionOptions
    {
        /// <summary>Positions the session can hold; 0 = the model's maximum.</summary>
        public int ContextSize { get; set; }
        /// <summary>Compute threads; 0 = one per physical core.</summary>
        public int Threads { get; set; }
        /// <summary>The KV cache's value type; F16 halves its memory.</summary>
        public KVType KVType { get; set; }
    }

    /// <summary>Sampling and stopping settings of one generation. A new
    /// instance holds libllm's defaults (temperature 1, top-p 0.9, ...).</summary>
    public sealed class GenerateOptions
    {
        /// <summary>0 = greedy (always the most likely token).</summary>
        public float Temperature { get; set; }
        /// <summary>Nucleus sampling; 1 = off.</summary>
        public float TopP { get; set; }
        /// <summary>Keep the k most likely tokens; 0 = off.</summary>
        public int TopK { get; set; }
        /// <summary>Drop tokens below MinP times the most likely; 0 = off.</summary>
        public float MinP { get; set; }
        /// <summary>Above 1 discourages repeating the last RepeatLastN tokens.</summary>
        public float RepeatPenalty { get; set; }
        public int RepeatLastN { get; set; }
        /// <summary>The sampling RNG's seed: the same seed, the same text.</summary>
        public ulong Seed { get; set; }
        /// <summary>Tokens to generate at most; 0 = until the end of generation
        /// or a full context.</summary>
        public int MaxTokens { get; set; }
        /// <summary>Stop at an end-of-generation token (default true).</summary>
        public bool StopAtEos { get; set; }
        /// <summary>Read special-token text in the prompt ("&lt;|im_start|&gt;") as
        /// those tokens, as a chat template's prompt needs (default false).</summary>
        public bool ParseSpecial { get; set; }
        /// <summary>Structured output: a JSON Schema (as JSON text) the generated
        /// text validates against; see docs/structured-output.md for the keywords
        /// libllm supports. A schema it refuses throws an LlmException with
        /// Status.Grammar before the prompt is fed. Null (default): none.</summary>
        public string JsonSchema { get; set; }
        /// <summary>Structured output: a GBNF grammar the generated text follows
        /// (a bad one throws an LlmException with Status.Grammar). Null
        /// (default): none. Set JsonSchema or Grammar, not both.</summary>
        public string Grammar { get; set; }
        /// <summary>The start rule of Grammar; null (default) = "root".</summary>
        public string GrammarRoot { get; set; }

        public GenerateOptions()
        {
            using (llm_sampler_params p = LlmNative.llm_sampler_default_params())
            {
                Temperature = p.temperature;
                TopP = p.top_p;
                TopK = p.top_k;
                MinP = p.min_p;
                RepeatPenalty = p.repeat_penalty;
                RepeatLastN = p.repeat_last_n;
                Seed = p.seed;
            }
            StopAtEos = true;
        }

        /// <summary>Greedy decoding: Temperature 0.</summary>
        public static GenerateOptions Greedy(int maxTokens = 0)
        {
            return new GenerateOptions { Temperature = 0, MaxTokens = maxTokens };
        }

        // model: the model whose tokens the sampler picks (for a grammar); the
        // caller keeps it alive during the call.
        internal SamplerHandle CreateSampler(ModelHandle model)
        {
            CheckStructure();
            using (llm_sampler_params p = LlmNative.llm_sampler_default_params())
            {
                p.temperature = Temperature;
                p.top_p = TopP;
                p.top_k = TopK;
                p.min_p = MinP;
                p.repeat_penalty = RepeatPenalty;
                p.repeat_last_n = RepeatLastN;
                p.seed = Seed;
                SamplerHandle sampler;
                LlmException.Check(LlmNative.llm_sampler_new(p, out sampler));
                try
                {
                    if (JsonSchema != null)
                        LlmException.Check(LlmNative.llm_sampler_set_json_schema(sampler, model, JsonSchema));
                    else if (Grammar != null)
                        LlmException.Check(LlmNative.llm_sampler_set_grammar(sampler, model, Grammar, GrammarRoot));
                }
                catch
                {
                    sampler.Dispose();
                    throw;
                }
                return sampler;
            }
        }

        // What llm.h's C strings cannot carry, and a schema with a grammar.
        void CheckStructure()
        {
            string bad = null;
            if (JsonSchema != null && Grammar != null) bad = "set JsonSchema or Grammar, not both";
            else if (GrammarRoot != null && Grammar == null) bad = "GrammarRoot needs Grammar";
            else if (HasNul(JsonSchema) || HasNul(Grammar) || HasNul(GrammarRoot))
                bad = "JsonSchema, Grammar and GrammarRoot must not contain NUL characters";
            if (bad != null) throw new LlmException(Status.InvalidArgument, bad);
        }

        static bool HasNul(string s) { return s != null && s.IndexOf('\0') >= 0; }
    }
}
