// Two conversations served at once: two sessions of one model generate on
// two tasks, and the engine gathers their steps into one batched pass over
// the weights.
//
//   mono parallel.exe [--check]
//
// The model is stories260K in $LLM_SHARED_DIR/models (or ../shared/models).
// --check generates each story again alone and fails unless they are the same.
using System;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using Llm;

static class Program
{
    static int Main(string[] args)
    {
        string shared = Environment.GetEnvironmentVariable("LLM_SHARED_DIR") ?? Path.Combine("..", "shared");
        string models = Path.Combine(shared, "models");
        string[] prompts = { "Once upon a time", "The little dog" };
        try
        {
            using (Model model = Model.Load(Path.Combine(models, "stories260K.bin"),
                                            new ModelOptions { TokenizerPath = Path.Combine(models, "tok512.bin") }))
            {
                Func<string, string> tell = prompt =>
                {
                    using (Session session = model.CreateSession())
                        return prompt + session.Generate(prompt, GenerateOptions.Greedy(maxTokens: 60)).Text;
                };
                // One task per conversation; both run at once.
                string[] stories = Task.WhenAll(prompts.Select(p => Task.Run(() => tell(p)))).Result;
                for (int i = 0; i < stories.Length; i++)
                    Console.WriteLine("[{0}] {1}", i + 1, stories[i]);

                if (args.Contains("--check"))
                {
                    for (int i = 0; i < prompts.Length; i++)
                        if (tell(prompts[i]) != stories[i])
                        {
                            Console.Error.WriteLine("story {0} differs from the one generated alone", i + 1);
                            return 1;
                        }
                    Console.WriteLine("both stories are the same as generated alone");
                }
            }
            return 0;
        }
        catch (AggregateException e) when (e.InnerException is LlmException)
        {
            Console.Error.WriteLine("error: {0}", e.InnerException.Message);
            return 1;
        }
        catch (LlmException e)
        {
            Console.Error.WriteLine("error ({0}): {1}", e.Status, e.Message);
            return 1;
        }
    }
}
