// Prints a short story from the stories260K model.
//
//   mono story.exe [MODEL [TOKENIZER [PROMPT]]]
//
// The model paths default to $LLM_SHARED_DIR/models (or ../shared/models
// next to the repository).
using System;
using System.IO;
using Llm;

static class Program
{
    static int Main(string[] args)
    {
        string shared = Environment.GetEnvironmentVariable("LLM_SHARED_DIR") ?? Path.Combine("..", "shared");
        string modelPath = args.Length > 0 ? args[0] : Path.Combine(shared, "models", "stories260K.bin");
        string tokenizer = args.Length > 1 ? args[1] : Path.Combine(shared, "models", "tok512.bin");
        string prompt = args.Length > 2 ? args[2] : "Once upon a time";
        try
        {
            using (Model model = Model.Load(modelPath, new ModelOptions { TokenizerPath = tokenizer }))
            using (Session session = model.CreateSession())
            {
                Console.Write(prompt);
                foreach (Piece piece in session.Stream(prompt, GenerateOptions.Greedy(maxTokens: 200)))
                    Console.Write(piece.Text);
                Console.WriteLine();
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
