using System;
using System.IO;
using NUnit.Framework;

namespace Llm.Tests
{
    [TestFixture]
    public class StateTests
    {
        static Model LoadStories(WeightType type = WeightType.Auto)
        {
            return Model.Load(Path.Combine(LlmTests.SharedDir, "models", "stories260K.bin"),
                              new ModelOptions
                              {
                                  TokenizerPath = Path.Combine(LlmTests.SharedDir, "models", "tok512.bin"),
                                  WeightType = type,
                              });
        }

        static readonly GenerateOptions greedy = new GenerateOptions { Temperature = 0, MaxTokens = 16 };

        [Test]
        public void LoadStateContinuesExactly()
        {
            using (Model m = LoadStories())
            using (Session a = m.CreateSession())
            using (Session b = m.CreateSession())
            {
                a.Generate("Once upon a time", new GenerateOptions { Temperature = 0, MaxTokens = 8 });
                byte[] state = a.SaveState();
                b.LoadState(state);
                Assert.AreEqual(a.Position, b.Position);
                CollectionAssert.AreEqual(a.Generate("", greedy).Tokens, b.Generate("", greedy).Tokens);

                string path = Path.Combine(Path.GetTempPath(), "llm-state-" + Guid.NewGuid() + ".bin");
                try
                {
                    a.SaveStateFile(path);
                    b.LoadStateFile(path);
                    Assert.AreEqual(a.Position, b.Position);
                }
                finally
                {
                    File.Delete(path);
                }
                var e = Assert.Throws<LlmException>(() => b.LoadStateFile(path));
                Assert.AreEqual(Status.NotFound, e.Status);
            }
        }

        [Test]
        public void DamagedAndForeignStatesAreRefused()
        {
            using (Model m = LoadStories())
            using (Model q8 = LoadStories(WeightType.Q8_0))
            using (Session a = m.CreateSession())
            using (Session b = m.CreateSession())
            using (Session c = q8.CreateSession())
            {
                a.Generate("Once", new GenerateOptions { Temperature = 0, MaxTokens = 2 });
                byte[] state = a.SaveState();
                byte[] half = new byte[state.Length / 2];
                Array.Copy(state, half, half.Length);
                Assert.AreEqual(Status.Truncated, Assert.Throws<LlmException>(() => b.LoadState(half)).Status);
                byte[] damaged = (byte[])state.Clone();
                damaged[damaged.Length / 2] ^= 1;
                Assert.AreEqual(Status.Format, Assert.Throws<LlmException>(() => b.LoadState(damaged)).Status);
                Assert.AreEqual(0, b.Position);
                var e = Assert.Throws<LlmException>(() => c.LoadState(state));
                Assert.AreEqual(Status.StateMismatch, e.Status);
                StringAssert.Contains("weight type", e.Message);
            }
        }

        [Test]
        public void CopyPrefixFrom()
        {
            using (Model m = LoadStories())
            using (Session system = m.CreateSession())
            using (Session a = m.CreateSession())
            {
                system.Generate("Once upon a time", new GenerateOptions { Temperature = 0, MaxTokens = 4 });
                a.CopyPrefixFrom(system);
                Assert.AreEqual(system.Position, a.Position);
                CollectionAssert.AreEqual(system.Generate("", greedy).Tokens, a.Generate("", greedy).Tokens);
                var e = Assert.Throws<LlmException>(() => a.CopyPrefixFrom(system, 10000));
                Assert.AreEqual(Status.InvalidArgument, e.Status);
            }
        }
    }
}
