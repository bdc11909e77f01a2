using System;
using System.Collections.Generic;
using System.Text;
using Llm.Native;

namespace Llm
{
    /// <summary>One message of a conversation for <see cref="Model.ApplyChatTemplate"/>.</summary>
    public sealed class ChatMessage
    {
        /// <summary>"system", "user", "assistant", "tool".</summary>
        public string Role;
        public string Content;

        public ChatMessage() { }
        public ChatMessage(string role, string content) { Role = role; Content = content; }
    }

    /// <summary>Options of <see cref="Model.ApplyChatTemplate"/>.</summary>
    public sealed class ChatOptions
    {
        /// <summary>A JSON array of tool definitions, the template's `tools` (null: none).</summary>
        public string ToolsJson;
        /// <summary>Extra template variables as a JSON object, e.g.
        /// {"enable_thinking":false} (null: none). Or use <see cref="Vars"/>, not both.</summary>
        public string VarsJson;
        /// <summary>Extra template variables (strings, bools, numbers, null,
        /// dictionaries and lists), written as JSON (null: none).</summary>
        public IDictionary<string, object> Vars;
        /// <summary>End with the opening of an assistant turn.</summary>
        public bool AddGenerationPrompt = true;
        /// <summary>A Jinja template used instead of the model's (null: the model's).</summary>
        public string Template;
    }

    /// <summary>A tool call found in an answer by <see cref="Model.ParseChat"/>.</summary>
    public sealed class ChatToolCall
    {
        public string Name { get; internal set; }
        /// <summary>The call's arguments as JSON text (usually an object).</summary>
        public string ArgumentsJson { get; internal set; }
    }

    /// <summary>A generated answer split by <see cref="Model.ParseChat"/>.</summary>
    public sealed class ChatAnswer
    {
        public string Content { get; internal set; }
        /// <summary>The &lt;think&gt; block's text ("" if none).</summary>
        public string ReasoningContent { get; internal set; }
        public IReadOnlyList<ChatToolCall> ToolCalls { get; internal set; }
    }

    public sealed partial class Model
    {
        /// <summary>The model's Jinja chat template ("" if it has none).</summary>
        public string ChatTemplate
        {
            get
            {
                ModelHandle model = Handle;
                return ReadText((byte[] buf, out ulong n) =>
                    LlmNative.llm_model_chat_template(model, buf, (ulong)(buf == null ? 0 : buf.Length), out n));
            }
        }

        /// <summary>The prompt for a whole conversation, rendered with the
        /// model's chat template (or options.Template). Tokenize it with
        /// TokenizeFlags.ParseSpecial.</summary>
        /// <exception cref="LlmException">Template when the template fails to
        /// parse or raises, Unsupported when the model has none and none is
        /// given, InvalidArgument for bad ToolsJson/VarsJson.</exception>
        public string ApplyChatTemplate(IEnumerable<ChatMessage> messages, ChatOptions options = null)
        {
            if (messages == null) throw new ArgumentNullException("messages");
            options = options ?? new ChatOptions();
            var sb = new StringBuilder("[");
            int i = 0;
            foreach (ChatMessage m in messages)
            {
                if (m == null || m.Role == null || m.Content == null)
                    throw new ArgumentException("messages[" + i + "] needs a Role and a Content", "messages");
                if (i++ > 0) sb.Append(',');
                sb.Append("{\"role\":");
                ChatJson.WriteString(sb, m.Role);
                sb.Append(",\"content\":");
                ChatJson.WriteString(sb, m.Content);
                sb.Append('}');
            }
            string messagesJson = sb.Append(']').ToString();
            string varsJson = options.VarsJson;
            if (options.Vars != null)
            {
                if (varsJson != null) throw new ArgumentException("set Vars or VarsJson, not both", "options");
                var vars = new StringBuilder();
                ChatJson.WriteValue(vars, options.Vars);
                varsJson = vars.ToString();
            }
            ModelHandle model = Handle;
            using (llm_chat_params p = LlmNative.llm_chat_default_params())
            {
                p.template_override = options.Template;
                p.tools_json = options.ToolsJson;
                p.extra_vars_json = varsJson;
                p.add_generation_prompt = options.AddGenerationPrompt ? 1 : 0;
                return ReadText((byte[] buf, out ulong n) =>
                    LlmNative.llm_chat_apply(model, messagesJson, p, buf, (ulong)(buf == null ? 0 : buf.Length), out n));
            }
        }

        /// <summary>Splits a generated assistant answer: a &lt;think&gt; block
        /// becomes ReasoningContent, &lt;tool_call&gt; blocks (Qwen, Hermes) and a
        /// Llama 3.1 call become ToolCalls, the rest is Content.</summary>
        public ChatAnswer ParseChat(string text)
        {
            if (text == null) throw new ArgumentNullException("text");
            ModelHandle model = Handle;
            byte[] bytes = Encoding.UTF8.GetBytes(text);
            string json = ReadText((byte[] buf, out ulong n) =>
                LlmNative.llm_chat_parse(model, bytes, (ulong)bytes.Length, buf, (ulong)(buf == null ? 0 : buf.Length), out n));
            return Answer(json);
        }

        static string Field(Dictionary<string, object> obj, string key)
        {
            object v;
            if (!obj.TryGetValue(key, out v)) return null;
            return ((ChatJson.RawJson)v).Value as string;
        }

        static ChatAnswer Answer(string json)
        {
            var obj = ChatJson.Parse(json) as Dictionary<string, object>;
            if (obj == null) throw new LlmException(Status.Internal, "llm_chat_parse gave no JSON object");
            var calls = new List<ChatToolCall>();
            object v;
            if (obj.TryGetValue("tool_calls", out v) && ((ChatJson.RawJson)v).Value is List<object>)
            {
                foreach (object item in (List<object>)((ChatJson.RawJson)v).Value)
                {
                    var call = item as Dictionary<string, object>;
                    if (call == null) continue;
                    object args;
                    calls.Add(new ChatToolCall {
                        Name = Field(call, "name") ?? "",
                        ArgumentsJson = call.TryGetValue("arguments", out args) ? ((ChatJson.RawJson)args).Text : "{}",
                    });
                }
            }
            return new ChatAnswer {
                Content = Field(obj, "content") ?? "",
                ReasoningContent = Field(obj, "reasoning_content") ?? "",
                ToolCalls = calls.AsReadOnly(),
            };
        }
    }
}
