using System;
using System.IO;
using System.Linq;
using NUnit.Framework;

namespace Llm.Tests
{
    [TestFixture]
    public class EmbedTests
    {
        static Model LoadStories()
        {
            return Model.Load(Path.Combine(LlmTests.SharedDir, "models", "stories260K.bin"),
                              new ModelOptions { TokenizerPath = Path.Combine(LlmTests.SharedDir, "models", "tok512.bin") });
        }

        [Test]
        public void UnitVectorSameEveryTime()
        {
            using (Model model = LoadStories())
            {
                Assert.AreEqual(Pooling.Mean, model.DefaultPooling);
                float[] v = model.Embed("Once upon a time");
                Assert.AreEqual(model.EmbeddingSize, v.Length);
                double sum = v.Sum(x => (double)x * x);
                Assert.That(Math.Abs(sum - 1), Is.LessThan(1e-4));
                CollectionAssert.AreEqual(v, model.Embed("Once upon a time", new EmbedOptions { Pooling = Pooling.Mean }));
            }
        }

        [Test]
        public void NoneGivesARowPerTokenTheLastOneLasts()
        {
            using (Model model = LoadStories())
            {
                int dim = model.EmbeddingSize;
                int n = model.Tokenize("Once upon a time").Length;
                float[] rows = model.Embed("Once upon a time", new EmbedOptions { Pooling = Pooling.None, Normalize = false });
                Assert.AreEqual(n * dim, rows.Length);
                float[] last = model.Embed("Once upon a time", new EmbedOptions { Pooling = Pooling.Last, Normalize = false });
                CollectionAssert.AreEqual(rows.Skip((n - 1) * dim).ToArray(), last);
            }
        }

        [Test]
        public void Errors()
        {
            Model model = LoadStories();
            var e = Assert.Throws<LlmException>(() => model.Embed("x", new EmbedOptions { Pooling = (Pooling)9 }));
            Assert.AreEqual(Status.InvalidArgument, e.Status);
            StringAssert.Contains("pooling", e.Message);
            model.Dispose();
            Assert.Throws<ObjectDisposedException>(() => model.Embed("x"));
        }
    }
}
