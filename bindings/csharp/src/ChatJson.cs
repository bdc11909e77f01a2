// JSON for the chat API: a writer for messages and template variables, and a
// reader for llm_chat_parse's answer (Mono's minimal runtime has no JSON
// library). Objects read as Dictionary<string, object>, arrays List<object>,
// numbers double; RawJson keeps a value's exact text.
using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Llm
{
    static class ChatJson
    {
        // ---- writing ----------------------------------------------------------
        internal static void WriteString(StringBuilder sb, string s)
        {
            sb.Append('"');
            foreach (char c in s)
            {
                switch (c)
                {
                    case '"': sb.Append("\\\""); break;
                    case '\\': sb.Append("\\\\"); break;
                    case '\n': sb.Append("\\n"); break;
                    case '\r': sb.Append("\\r"); break;
                    case '\t': sb.Append("\\t"); break;
                    default:
                        if (c < 0x20) sb.Append("\\u").Append(((int)c).ToString("x4"));
                        else sb.Append(c);
                        break;
                }
            }
            sb.Append('"');
        }

        // string, bool, numbers, null, IDictionary (string keys), IEnumerable.
        internal static void WriteValue(StringBuilder sb, object value, int depth = 0)
        {
            if (depth > 64) throw new ArgumentException("JSON value nested more than 64 deep");
            if (value == null) { sb.Append("null"); return; }
            if (value is string) { WriteString(sb, (string)value); return; }
            if (value is bool) { sb.Append((bool)value ? "true" : "false"); return; }
            if (value is float || value is double || value is decimal)
            {
                double d = Convert.ToDouble(value, CultureInfo.InvariantCulture);
                if (double.IsNaN(d) || double.IsInfinity(d)) throw new ArgumentException("JSON has no NaN or infinity");
                sb.Append(d.ToString("R", CultureInfo.InvariantCulture));
                return;
            }
            if (value is IConvertible && !(value is char) && !(value is DateTime))
            {
                TypeCode code = ((IConvertible)value).GetTypeCode();
                if (code >= TypeCode.SByte && code <= TypeCode.UInt64)
                {
                    sb.Append(Convert.ToString(value, CultureInfo.InvariantCulture));
                    return;
                }
            }
            var dict = value as IDictionary;
            if (dict != null)
            {
                sb.Append('{');
                bool first = true;
                foreach (DictionaryEntry e in dict)
                {
                    var key = e.Key as string;
                    if (key == null) throw new ArgumentException("JSON object keys must be strings");
                    if (!first) sb.Append(',');
                    first = false;
                    WriteString(sb, key);
                    sb.Append(':');
                    WriteValue(sb, e.Value, depth + 1);
                }
                sb.Append('}');
                return;
            }
            var list = value as IEnumerable;
            if (list != null)
            {
                sb.Append('[');
                bool first = true;
                foreach (object item in list)
                {
                    if (!first) sb.Append(',');
                    first = false;
                    WriteValue(sb, item, depth + 1);
                }
                sb.Append(']');
                return;
            }
            throw new ArgumentException("cannot write a " + value.GetType().Name + " as JSON");
        }

        // ---- reading ----------------------------------------------------------
        internal sealed class RawJson
        {
            internal object Value;
            internal string Text;
        }

        internal static object Parse(string text)
        {
            int pos = 0;
            object value = Value(text, ref pos, 0);
            SkipSpace(text, ref pos);
            if (pos != text.Length) throw new FormatException("JSON: trailing data at " + pos);
            return value;
        }

        static void SkipSpace(string s, ref int pos)
        {
            while (pos < s.Length && (s[pos] == ' ' || s[pos] == '\t' || s[pos] == '\n' || s[pos] == '\r')) pos++;
        }

        static char Next(string s, ref int pos)
        {
            if (pos >= s.Length) throw new FormatException("JSON: unexpected end");
            return s[pos++];
        }

        static void Expect(string s, ref int pos, char c)
        {
            SkipSpace(s, ref pos);
            if (Next(s, ref pos) != c) throw new FormatException("JSON: expected '" + c + "' at " + (pos - 1));
        }

        static object Value(string s, ref int pos, int depth)
        {
            if (depth > 512) throw new FormatException("JSON: nested too deep");
            SkipSpace(s, ref pos);
            if (pos >= s.Length) throw new FormatException("JSON: unexpected end");
            char c = s[pos];
            if (c == '{')
            {
                var obj = new Dictionary<string, object>();
                pos++;
                SkipSpace(s, ref pos);
                if (pos < s.Length && s[pos] == '}') { pos++; return obj; }
                while (true)
                {
                    SkipSpace(s, ref pos);
                    string key = String(s, ref pos);
                    Expect(s, ref pos, ':');
                    SkipSpace(s, ref pos);
                    int start = pos;
                    object v = Value(s, ref pos, depth + 1);
                    obj[key] = new RawJson { Value = v, Text = s.Substring(start, pos - start) };
                    SkipSpace(s, ref pos);
                    char e = Next(s, ref pos);
                    if (e == '}') return obj;
                    if (e != ',') throw new FormatException("JSON: expected ',' at " + (pos - 1));
                }
            }
            if (c == '[')
            {
                var list = new List<object>();
                pos++;
                SkipSpace(s, ref pos);
                if (pos < s.Length && s[pos] == ']') { pos++; return list; }
                while (true)
                {
                    list.Add(Value(s, ref pos, depth + 1));
                    SkipSpace(s, ref pos);
                    char e = Next(s, ref pos);
                    if (e == ']') return list;
                    if (e != ',') throw new FormatException("JSON: expected ',' at " + (pos - 1));
                }
            }
            if (c == '"') return String(s, ref pos);
            foreach (var literal in new[] { "true", "false", "null" })
            {
                if (string.CompareOrdinal(s, pos, literal, 0, literal.Length) == 0)
                {
                    pos += literal.Length;
                    return literal == "null" ? null : (object)(literal == "true");
                }
            }
            int begin = pos;
            while (pos < s.Length && "+-0123456789.eE".IndexOf(s[pos]) >= 0) pos++;
            double d;
            if (!double.TryParse(s.Substring(begin, pos - begin), NumberStyles.Float, CultureInfo.InvariantCulture, out d))
                throw new FormatException("JSON: bad value at " + begin);
            return d;
        }

        static string String(string s, ref int pos)
        {
            Expect(s, ref pos, '"');
            var sb = new StringBuilder();
            while (true)
            {
                char c = Next(s, ref pos);
                if (c == '"') return sb.ToString();
                if (c != '\\') { sb.Append(c); continue; }
                char e = Next(s, ref pos);
                switch (e)
                {
                    case 'n': sb.Append('\n'); break;
                    case 't': sb.Append('\t'); break;
                    case 'r': sb.Append('\r'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'u':
                        int code;
                        if (pos + 4 > s.Length ||
                            !int.TryParse(s.Substring(pos, 4), NumberStyles.HexNumber, CultureInfo.InvariantCulture, out code))
                            throw new FormatException("JSON: bad \\u escape at " + pos);
                        sb.Append((char)code);
                        pos += 4;
                        break;
                    default: sb.Append(e); break; // \" \\ \/
                }
            }
        }
    }
}
