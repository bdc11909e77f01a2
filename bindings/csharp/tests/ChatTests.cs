using System.Collections.Generic;
using System.IO;
using NUnit.Framework;

namespace Llm.Tests
{
    [TestFixture]
    public class ChatTests
    {
        static readonly ChatMessage[] Conversation = {
            new ChatMessage("user", "Hello"),
            new ChatMessage("assistant", "Hi there"),
            new ChatMessage("user", "Tell me a story"),
        };

        static Model LoadQwen()
        {
            return Model.Load(Path.Combine(LlmTests.SharedDir, "models", "qwen2-tiny"));
        }

        [Test]
        public void OwnTemplateRendersTheWholeConversation()
        {
            using (Model model = LoadQwen())
            {
                StringAssert.Contains("im_start", model.ChatTemplate);
                string prompt = model.ApplyChatTemplate(Conversation);
                StringAssert.Contains("<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\nHi there<|im_end|>\n", prompt);
                StringAssert.EndsWith("<|im_start|>user\nTell me a story<|im_end|>\n<|im_start|>assistant\n", prompt);
                string open = model.ApplyChatTemplate(Conversation, new ChatOptions {
                    AddGenerationPrompt = false,
                    Vars = new Dictionary<string, object> { { "enable_thinking", false } },
                });
                StringAssert.EndsWith("Tell me a story<|im_end|>\n", open);
                string own = model.ApplyChatTemplate(Conversation, new ChatOptions {
                    Template = "{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ extra }}{{ n }}",
                    Vars = new Dictionary<string, object> { { "extra", "!\"\n" }, { "n", 3 } },
                });
                Assert.AreEqual("[user:Hello][assistant:Hi there][user:Tell me a story]!\"\n3", own);
                string tools = model.ApplyChatTemplate(Conversation, new ChatOptions {
                    ToolsJson = "[{\"type\":\"function\",\"function\":{\"name\":\"get_time\",\"description\":\"The time\"," +
                                "\"parameters\":{\"type\":\"object\",\"properties\":{}}}}]",
                });
                StringAssert.Contains("get_time", tools);
            }
        }

        [Test]
        public void ParseSplitsReasoningContentAndToolCalls()
        {
            using (Model model = LoadQwen())
            {
                ChatAnswer a = model.ParseChat("<think>a</think>b");
                Assert.AreEqual("a", a.ReasoningContent);
                Assert.AreEqual("b", a.Content);
                Assert.AreEqual(0, a.ToolCalls.Count);
                ChatAnswer call = model.ParseChat("<tool_call>\n{\"name\": \"get_time\", \"arguments\": {\"zone\": \"UTC\"}}\n</tool_call>");
                Assert.AreEqual(1, call.ToolCalls.Count);
                Assert.AreEqual("get_time", call.ToolCalls[0].Name);
                Assert.AreEqual("{\"zone\":\"UTC\"}", call.ToolCalls[0].ArgumentsJson.Replace(" ", ""));
                Assert.AreEqual("héllo ✓", model.ParseChat("héllo ✓").Content);
            }
        }

        [Test]
        public void BadTemplatesAndOptionsThrow()
        {
            using (Model model = LoadQwen())
            {
                var e = Assert.Throws<LlmException>(() =>
                    model.ApplyChatTemplate(Conversation, new ChatOptions { Template = "{% for %}" }));
                Assert.AreEqual(Status.Template, e.Status);
                Assert.IsNotEmpty(e.Message);
                e = Assert.Throws<LlmException>(() =>
                    model.ApplyChatTemplate(Conversation, new ChatOptions { ToolsJson = "[{" }));
                Assert.AreEqual(Status.InvalidArgument, e.Status);
                e = Assert.Throws<LlmException>(() =>
                    model.ApplyChatTemplate(Conversation, new ChatOptions { VarsJson = "[1]" }));
                Assert.AreEqual(Status.InvalidArgument, e.Status);
                Assert.Throws<System.ArgumentException>(() =>
                    model.ApplyChatTemplate(new[] { new ChatMessage("user", null) }));
            }
        }

        [Test]
        public void TwoUserTurnsEachRenderedFromTheWholeConversation()
        {
            using (Model model = LoadQwen())
            using (Session session = model.CreateSession())
            {
                var conversation = new List<ChatMessage>();
                var options = new GenerateOptions { Temperature = 0, MaxTokens = 4, ParseSpecial = true };
                foreach (string question in new[] { "Hello", "Tell me a story" })
                {
                    conversation.Add(new ChatMessage("user", question));
                    string prompt = model.ApplyChatTemplate(conversation);
                    Assert.Less(model.Tokenize(prompt, TokenizeFlags.ParseSpecial).Length, model.Tokenize(prompt).Length);
                    session.Reset();
                    GenerationResult r = session.Generate(prompt, options);
                    Assert.That(r.Tokens.Length, Is.InRange(1, 4));
                    Assert.AreEqual(model.Tokenize(prompt, TokenizeFlags.AddSpecial | TokenizeFlags.ParseSpecial).Length + r.Tokens.Length,
                                    session.Position, "prompt read with its special tokens");
                    conversation.Add(new ChatMessage("assistant", model.ParseChat(r.Text).Content));
                }
                Assert.AreEqual(4, conversation.Count);
            }
        }

        [Test]
        public void ModelWithoutTemplate()
        {
            using (Model model = Model.Load(Path.Combine(LlmTests.SharedDir, "models", "stories260K.bin"),
                                              new ModelOptions { TokenizerPath = Path.Combine(LlmTests.SharedDir, "models", "tok512.bin") }))
            {
                Assert.AreEqual("", model.ChatTemplate);
                var e = Assert.Throws<LlmException>(() => model.ApplyChatTemplate(Conversation));
                Assert.AreEqual(Status.Unsupported, e.Status);
            }
        }
    }
}
