// A two-turn chat with a model's own chat template: each turn renders the
// whole conversation and generates the answer from it.
//
//   mono chat.exe [MODEL]
//
// The model defaults to qwen2-tiny in $LLM_SHARED_DIR/models (or
// ../shared/models next to the repository): random weights, so the answers
// are noise, but the prompts are Qwen's.
using System;
using System.Collections.Generic;
using System.IO;
using Llm;

static class Program
{
    static int Main(string[] args)
    {
        string shared = Environment.GetEnvironmentVariable("LLM_SHARED_DIR") ?? Path.Combine("..", "shared");
        string modelPath = args.Length > 0 ? args[0] : Path.Combine(shared, "models", "qwen2-tiny");
        try
        {
            using (Model model = Model.Load(modelPath))
            using (Session session = model.CreateSession())
            {
                var conversation = new List<ChatMessage> { new ChatMessage("system", "You are brief.") };
                var options = new GenerateOptions { Temperature = 0, MaxTokens = 8, ParseSpecial = true };
                foreach (string question in new[] { "Name a colour.", "And another one?" })
                {
                    conversation.Add(new ChatMessage("user", question));
                    string prompt = model.ApplyChatTemplate(conversation);
                    session.Reset(); // the prompt holds the whole conversation
                    ChatAnswer answer = model.ParseChat(session.Generate(prompt, options).Text);
                    Console.WriteLine("> {0}\n{1}", question, answer.Content);
                    conversation.Add(new ChatMessage("assistant", answer.Content));
                }
            }
            return 0;
        }
        catch (LlmException e)
        {
            Console.Error.WriteLine("error ({0}): {1}", e.Status, e.Message);
            return 1;
        }
    }
}
