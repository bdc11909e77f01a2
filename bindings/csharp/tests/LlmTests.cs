using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using NUnit.Framework;

namespace Llm.Tests
{
    // run.c's greedy output for one prompt (shared/golden/llama2c).
    sealed class Golden
    {
        public string Prompt, Text;
        public int[] PromptIds, GeneratedIds;

        public static Golden Read(string name)
        {
            string path = Path.Combine(LlmTests.SharedDir, "golden", "llama2c", "stories260K_" + name + ".json");
            var json = (Dictionary<string, object>)Json.Parse(File.ReadAllText(path, Encoding.UTF8));
            Func<string, int[]> ids = key => ((List<object>)json[key]).Select(v => (int)(double)v).ToArray();
            return new Golden
            {
                Prompt = (string)json["prompt"],
                Text = (string)json["text"],
                PromptIds = ids("prompt_token_ids"),
                GeneratedIds = ids("generated_token_ids"),
            };
        }
    }

    [TestFixture]
    public class LlmTests
    {
        // The test models and goldens (LLM_SHARED_DIR, set by CTest).
        internal static string SharedDir
        {
            get { return Environment.GetEnvironmentVariable("LLM_SHARED_DIR") ?? Path.Combine("..", "..", "..", "shared"); }
        }

        static Model LoadStories()
        {
            return Model.Load(Path.Combine(SharedDir, "models", "stories260K.bin"),
                              new ModelOptions { TokenizerPath = Path.Combine(SharedDir, "models", "tok512.bin") });
        }

        Golden golden;

        [SetUp]
        public void ReadGolden()
        {
            golden = Golden.Read("once_upon");
            Assert.That(golden.GeneratedIds.Length, Is.GreaterThanOrEqualTo(64));
        }

        [Test]
        public void VersionAndSystemInfo()
        {
            StringAssert.IsMatch(@"^1\.[0-9]+\.[0-9]+$", Library.Version); // a libllm.so.1
            const string level = "(scalar|neondot|neon|avx2|avx2vnni|avx512|avx512vnni|amx)";
            var m = System.Text.RegularExpressions.Regex.Match(
                Library.SystemInfo, "^simd=" + level + " simd_best=" + level + " cores=[1-9][0-9]*( |$)");
            Assert.IsTrue(m.Success, Library.SystemInfo);
            if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable("LLM_SIMD")))
                Assert.AreEqual(m.Groups[2].Value, m.Groups[1].Value, "without LLM_SIMD the best level runs");
        }

        [Test]
        public void ModelInfo()
        {
            using (Model m = LoadStories())
            {
                Assert.AreEqual("llama", m.Arch);
                Assert.AreEqual(512, m.VocabSize);
                Assert.AreEqual(512, m.ContextLength);
                Assert.AreEqual(64, m.EmbeddingSize);
                Assert.AreEqual(5, m.Layers);
                Assert.AreEqual(8, m.Heads);
                Assert.AreEqual(4, m.KVHeads);
                Assert.AreEqual(WeightType.F32, m.WeightType);
                Assert.AreEqual(1, m.Bos);
                Assert.AreEqual(2, m.Eos);
                Assert.That(m.Params, Is.GreaterThan(0));
                Assert.IsTrue(m.IsEndOfGeneration(1));
                Assert.IsFalse(m.IsEndOfGeneration(403));
            }
        }

        [Test]
        public void TokenizeRoundTrip()
        {
            using (Model m = LoadStories())
            {
                CollectionAssert.AreEqual(golden.PromptIds, m.Tokenize(golden.Prompt));
                foreach (string text in new[] { golden.Prompt, "Lily saw a big, red ball.\nShe said: \"Hi!\"", "", "héllo ✓" })
                    Assert.AreEqual(text, m.Detokenize(m.Tokenize(text)));
            }
        }

        [Test]
        public void FP16KVCache()
        {
            using (Model m = LoadStories())
            {
                using (Session s = m.CreateSession(new SessionOptions { KVType = KVType.F16 }))
                {
                    GenerationResult r = s.Generate(golden.Prompt, GenerateOptions.Greedy(30));
                    CollectionAssert.AreEqual(golden.GeneratedIds.Take(30).ToArray(), r.Tokens);
                }
                var e = Assert.Throws<LlmException>(
                    () => m.CreateSession(new SessionOptions { KVType = (KVType)9 }));
                Assert.AreEqual(Status.InvalidArgument, e.Status);
            }
        }

        [Test]
        public void GreedyMatchesGolden()
        {
            using (Model m = LoadStories())
            using (Session s = m.CreateSession())
            {
                GenerationResult r = s.Generate(golden.Prompt, GenerateOptions.Greedy(golden.GeneratedIds.Length));
                CollectionAssert.AreEqual(golden.GeneratedIds, r.Tokens);
                Assert.AreEqual(golden.Text, golden.Prompt + r.Text + "\n");
                Assert.AreEqual(StopReason.MaxTokens, r.Stop);
                Assert.AreEqual(golden.PromptIds.Length + golden.GeneratedIds.Length, s.Position);
            }
        }

        [Test]
        public void StopsAtEos()
        {
            Golden g = Golden.Read("pigs_punct"); // run.c stopped at a sampled BOS
            using (Model m = LoadStories())
            using (Session s = m.CreateSession())
            {
                GenerationResult r = s.Generate(g.Prompt, GenerateOptions.Greedy());
                CollectionAssert.AreEqual(g.GeneratedIds, r.Tokens);
                Assert.AreEqual(StopReason.Eos, r.Stop);
                Assert.AreEqual(g.Text, g.Prompt + r.Text + "\n");

                s.Reset();
                int n = g.GeneratedIds.Length;
                var options = GenerateOptions.Greedy(n + 3);
                options.StopAtEos = false;
                int[] tokens = s.Generate(g.Prompt, options).Tokens;
                Assert.AreEqual(n + 3, tokens.Length);
                Assert.AreEqual(1, tokens[n]);
                CollectionAssert.AreEqual(g.GeneratedIds, tokens.Take(n).ToArray());
            }
        }

        [Test]
        public void StreamingPieces()
        {
            using (Model m = LoadStories())
            using (Session s = m.CreateSession())
            {
                var pieces = s.Stream(golden.Prompt, GenerateOptions.Greedy()).Take(10).ToList();
                CollectionAssert.AreEqual(golden.GeneratedIds.Take(10).ToArray(), pieces.Select(p => p.Token).ToArray());
                string text = string.Concat(pieces.Select(p => p.Text));
                StringAssert.StartsWith(golden.Prompt + text, golden.Text);

                s.Reset();
                var seen = new List<Piece>();
                GenerationResult r = s.Generate(golden.Prompt, GenerateOptions.Greedy(), p => { seen.Add(p); return seen.Count < 7; });
                Assert.AreEqual(StopReason.Callback, r.Stop);
                Assert.AreEqual(7, r.Tokens.Length);
                Assert.AreEqual(string.Concat(seen.Select(p => p.Text)), r.Text);
            }
        }

        [Test]
        public void MissingFileThrowsWithStatus()
        {
            string path = Path.Combine(Path.GetTempPath(), "llm-missing-" + Guid.NewGuid() + ".bin");
            var e = Assert.Throws<LlmException>(() => Model.Load(path));
            Assert.AreEqual(Status.NotFound, e.Status);
            Assert.AreEqual(-2, (int)e.Status);
            StringAssert.Contains(Path.GetFileName(path), e.Message);
        }

        [Test]
        public void TwoSessionsAgree()
        {
            using (Model m = LoadStories())
            using (Session a = m.CreateSession())
            using (Session b = m.CreateSession())
            {
                int[] ta = a.Generate(golden.Prompt, GenerateOptions.Greedy(40)).Tokens;
                int[] tb = b.Generate(golden.Prompt, GenerateOptions.Greedy(40)).Tokens;
                CollectionAssert.AreEqual(ta, tb);
                CollectionAssert.AreEqual(golden.GeneratedIds.Take(40).ToArray(), ta);
            }
        }

        [Test]
        public void ResetAndSeed()
        {
            using (Model m = LoadStories())
            using (Session s = m.CreateSession())
            {
                var options = new GenerateOptions { Temperature = 1, TopP = 0.9f, Seed = 42, MaxTokens = 30 };
                GenerationResult first = s.Generate(golden.Prompt, options);
                s.Reset();
                Assert.AreEqual(0, s.Position);
                GenerationResult second = s.Generate(golden.Prompt, options);
                CollectionAssert.AreEqual(first.Tokens, second.Tokens);
                Assert.AreEqual(first.Text, second.Text);
            }
        }

        [Test]
        public void BadArgumentsThrow()
        {
            using (Model m = LoadStories())
            using (Session s = m.CreateSession())
            {
                var e = Assert.Throws<LlmException>(() => s.Generate("x", new GenerateOptions { TopP = 2 }));
                Assert.AreEqual(Status.InvalidArgument, e.Status);
                e = Assert.Throws<LlmException>(() => m.Detokenize(new[] { 1, 9999 }));
                Assert.AreEqual(Status.TokenOutOfRange, e.Status);
                s.Cancel(); // consumed by the next call
                e = Assert.Throws<LlmException>(() => s.Generate("Once"));
                Assert.AreEqual(Status.Cancelled, e.Status);
                Assert.AreEqual(3, s.Generate("Once", GenerateOptions.Greedy(3)).Tokens.Length);
            }
        }

        [Test]
        public void DisposeTwiceAndUseAfterDispose()
        {
            Model m = LoadStories();
            Session s = m.CreateSession();
            m.Dispose();
            m.Dispose();
            // the open session keeps the native model alive
            CollectionAssert.AreEqual(golden.GeneratedIds.Take(5).ToArray(),
                                      s.Generate(golden.Prompt, GenerateOptions.Greedy(5)).Tokens);
            Assert.Throws<ObjectDisposedException>(() => m.Tokenize("x"));
            Assert.Throws<ObjectDisposedException>(() => m.CreateSession());
            s.Dispose();
            s.Dispose();
            Assert.Throws<ObjectDisposedException>(() => s.Generate("x"));
            Assert.Throws<ObjectDisposedException>(() => s.Reset());
            Assert.Throws<ObjectDisposedException>(() => { int p = s.Position; });
            s.Cancel();
            Assert.AreEqual(512, m.VocabSize); // cached metadata stays readable
        }

        [Test]
        public void WeightTypeNames()
        {
            string[] names = { "auto", "f32", "bf16", "f16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k" };
            Assert.AreEqual(names.Length, Enum.GetValues(typeof(WeightType)).Length);
            for (int i = 0; i < names.Length; i++)
            {
                Assert.AreEqual(names[i], ((WeightType)i).Name());
                Assert.IsTrue(Enum.IsDefined(typeof(WeightType), i));
                Assert.AreEqual(names[i], ((WeightType)Enum.Parse(typeof(WeightType), names[i], true)).Name());
                Assert.AreEqual((WeightType)i, WeightTypes.Parse(names[i].ToUpperInvariant()));
            }
            Assert.AreEqual(WeightType.Q4_K, WeightTypes.Parse("q4_k"));
            Assert.IsNull(((WeightType)12).Name());
            WeightType type;
            Assert.IsFalse(WeightTypes.TryParse("q4_k_m", out type));
            Assert.IsFalse(WeightTypes.TryParse("f32\0", out type));
            Assert.IsFalse(WeightTypes.TryParse(null, out type));
            Assert.Throws<ArgumentException>(() => WeightTypes.Parse("q4_k_m"));
        }

        [Test]
        public void LoadConvertsToBlockTypes()
        {
            // stories260K's rows hold 64 values: 32-value blocks fit, the
            // 256-value k-quant blocks do not and the weights stay fp32.
            string dir = Path.Combine(SharedDir, "models");
            Func<WeightType, WeightType> load = type =>
            {
                using (Model m = Model.Load(Path.Combine(dir, "stories260K.bin"),
                                            new ModelOptions { TokenizerPath = Path.Combine(dir, "tok512.bin"), WeightType = type }))
                    return m.WeightType;
            };
            Assert.AreEqual("q4_0", load(WeightType.Q4_0).Name());
            Assert.AreEqual(WeightType.F32, load(WeightType.Q4_K));
        }

        [Test]
        public void MetadataAndTryGetMeta()
        {
            Model m = LoadStories();
            IReadOnlyDictionary<string, string> meta = m.Metadata;
            Assert.AreEqual("llama", meta["general.architecture"]);
            CollectionAssert.IsOrdered(meta.Keys.ToList(), StringComparer.Ordinal);
            string value;
            foreach (KeyValuePair<string, string> pair in meta)
            {
                Assert.IsTrue(m.TryGetMeta(pair.Key, out value), pair.Key);
                Assert.AreEqual(pair.Value, value);
            }
            foreach (string absent in new[] { "no.such.key", "", "general.architecture\0x" })
            {
                Assert.IsFalse(m.TryGetMeta(absent, out value), absent);
                Assert.IsNull(value);
            }
            Assert.Throws<ArgumentNullException>(() => m.TryGetMeta(null, out value));
            m.Dispose();
            Assert.AreEqual("llama", m.Metadata["general.architecture"]); // read at load
            Assert.Throws<ObjectDisposedException>(() => m.TryGetMeta("general.architecture", out value));
        }

        [Test]
        public void FinalizersFreeForgottenObjects()
        {
            for (int i = 0; i < 3; i++)
            {
                Session s = LoadStories().CreateSession();
                Assert.AreEqual(3, s.Generate("Once", GenerateOptions.Greedy(3)).Tokens.Length);
            }
            GC.Collect();
            GC.WaitForPendingFinalizers();
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
    }
}
