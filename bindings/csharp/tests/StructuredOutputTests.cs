// Structured output: GenerateOptions.JsonSchema and Grammar (llm.h 1.4).
// qwen2-tiny has random weights and the real Qwen vocabulary: at temperature
// 1 only the grammar keeps its output in shape.
using System.Collections.Generic;
using System.IO;
using NUnit.Framework;

namespace Llm.Tests
{
    [TestFixture]
    public class StructuredOutputTests
    {
        const string Person =
            "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"maxLength\":8}," +
            "\"age\":{\"type\":\"integer\"}},\"required\":[\"name\",\"age\"],\"additionalProperties\":false}";
        const string Prompt = "Answer in JSON:";

        static Model LoadQwen()
        {
            return Model.Load(Path.Combine(LlmTests.SharedDir, "models", "qwen2-tiny"));
        }

        static GenerateOptions Free(ulong seed)
        {
            return new GenerateOptions { Temperature = 1, TopP = 1, MaxTokens = 64, Seed = seed };
        }

        static GenerationResult Run(Model model, GenerateOptions options)
        {
            using (Session session = model.CreateSession(new SessionOptions { ContextSize = 128 }))
                return session.Generate(Prompt, options);
        }

        [Test]
        public void JsonSchemaGivesJsonOfTheSchema()
        {
            using (Model model = LoadQwen())
            {
                for (ulong seed = 1; seed <= 4; seed++)
                {
                    GenerateOptions options = Free(seed);
                    options.JsonSchema = Person;
                    GenerationResult r = Run(model, options);
                    string what = "seed " + seed + ": " + r.Text;
                    Assert.AreEqual(StopReason.Eos, r.Stop, what);
                    var person = Json.Parse(r.Text) as Dictionary<string, object>;
                    Assert.IsNotNull(person, what);
                    CollectionAssert.AreEqual(new[] { "name", "age" }, person.Keys, what);
                    var name = person["name"] as string;
                    Assert.IsNotNull(name, what);
                    int codePoints = 0;
                    foreach (char c in name)
                        if (!char.IsLowSurrogate(c)) codePoints++;
                    Assert.LessOrEqual(codePoints, 8, what);
                    Assert.IsInstanceOf<double>(person["age"], what);
                    double age = (double)person["age"];
                    Assert.AreEqual(System.Math.Floor(age), age, what);
                }
            }
        }

        [Test]
        public void GrammarGivesOneOfTheAlternatives()
        {
            using (Model model = LoadQwen())
            {
                for (ulong seed = 1; seed <= 3; seed++)
                {
                    GenerateOptions options = Free(seed);
                    options.Grammar = "root ::= (\"yes\" | \"no\")";
                    GenerationResult r = Run(model, options);
                    Assert.AreEqual(StopReason.Eos, r.Stop);
                    Assert.That(r.Text == "yes" || r.Text == "no", r.Text);
                }
                GenerateOptions rooted = Free(1);
                rooted.Grammar = "answer ::= \"maybe\"\nroot ::= \"never\"";
                rooted.GrammarRoot = "answer";
                Assert.AreEqual("maybe", Run(model, rooted).Text);
            }
        }

        [Test]
        public void BadGrammarOrSchemaThrowsGrammar()
        {
            using (Model model = LoadQwen())
            using (Session session = model.CreateSession(new SessionOptions { ContextSize = 128 }))
            {
                GenerateOptions undefinedRule = Free(1);
                undefinedRule.Grammar = "root ::= missing";
                var e = Assert.Throws<LlmException>(() => session.Generate(Prompt, undefinedRule));
                Assert.AreEqual(Status.Grammar, e.Status);
                StringAssert.Contains("missing", e.Message);

                GenerateOptions pattern = Free(1);
                pattern.JsonSchema = "{\"type\":\"object\",\"properties\":{\"zip\":{\"type\":\"string\",\"pattern\":\"^[0-9]+$\"}}}";
                e = Assert.Throws<LlmException>(() => session.Generate(Prompt, pattern));
                Assert.AreEqual(Status.Grammar, e.Status);
                StringAssert.Contains("pattern", e.Message);

                GenerateOptions broken = Free(1);
                broken.JsonSchema = "{\"type\": ";
                e = Assert.Throws<LlmException>(() => session.Generate(Prompt, broken));
                Assert.AreEqual(Status.Grammar, e.Status);
                Assert.AreEqual(0, session.Position); // refused before the prompt was fed

                GenerateOptions ok = Free(1);
                ok.Grammar = "root ::= \"ok\"";
                Assert.AreEqual("ok", session.Generate(Prompt, ok).Text);

                foreach (var bad in new[] {
                    new GenerateOptions { JsonSchema = Person, Grammar = "root ::= \"a\"" },
                    new GenerateOptions { GrammarRoot = "root" },
                    new GenerateOptions { Grammar = "root ::= \"a\"\0" },
                    new GenerateOptions { JsonSchema = "{}\0" },
                })
                {
                    e = Assert.Throws<LlmException>(() => session.Generate("", bad));
                    Assert.AreEqual(Status.InvalidArgument, e.Status);
                }
            }
        }
    }
}
