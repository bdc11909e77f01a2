using NUnit.Framework;

namespace Llm.Tests
{
    [TestFixture]
    public class EngineVersionTests
    {
        [Test]
        public void TheLoadedLibllmHasMajorOne()
        {
            StringAssert.StartsWith("1.", Library.Version);
            Assert.IsNull(EngineVersion.Mismatch("1.5.0", 10500));
        }

        [Test]
        public void AnotherMajorIsRefused()
        {
            StringAssert.Contains("libllm is version 2.0.0 (major 2), this binding needs major 1",
                                  EngineVersion.Mismatch("2.0.0", 20000));
        }
    }
}
