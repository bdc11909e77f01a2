// A small JSON reader for the golden files (Mono's System.Runtime.Serialization
// is not part of the minimal runtime): objects become Dictionary<string, object>,
// arrays List<object>, numbers double, plus string, bool and null.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Llm.Tests
{
    static class Json
    {
        public static object Parse(string text)
        {
            int pos = 0;
            object value = Value(text, ref pos);
            SkipSpace(text, ref pos);
            if (pos != text.Length) throw new FormatException("JSON: trailing data at " + pos);
            return value;
        }

        static void SkipSpace(string s, ref int pos)
        {
            while (pos < s.Length && char.IsWhiteSpace(s[pos])) pos++;
        }

        static void Expect(string s, ref int pos, char c)
        {
            SkipSpace(s, ref pos);
            if (pos >= s.Length || s[pos] != c) throw new FormatException("JSON: expected '" + c + "' at " + pos);
            pos++;
        }

        static object Value(string s, ref int pos)
        {
            SkipSpace(s, ref pos);
            if (pos >= s.Length) throw new FormatException("JSON: unexpected end");
            char c = s[pos];
            if (c == '{')
            {
                var obj = new Dictionary<string, object>();
                pos++;
                SkipSpace(s, ref pos);
                if (s[pos] == '}') { pos++; return obj; }
                while (true)
                {
                    SkipSpace(s, ref pos);
                    string key = String(s, ref pos);
                    Expect(s, ref pos, ':');
                    obj[key] = Value(s, ref pos);
                    SkipSpace(s, ref pos);
                    if (s[pos++] == '}') return obj;
                    if (s[pos - 1] != ',') throw new FormatException("JSON: expected ',' at " + (pos - 1));
                }
            }
            if (c == '[')
            {
                var list = new List<object>();
                pos++;
                SkipSpace(s, ref pos);
                if (s[pos] == ']') { pos++; return list; }
                while (true)
                {
                    list.Add(Value(s, ref pos));
                    SkipSpace(s, ref pos);
                    if (s[pos++] == ']') return list;
                    if (s[pos - 1] != ',') throw new FormatException("JSON: expected ',' at " + (pos - 1));
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
            int start = pos;
            while (pos < s.Length && "+-0123456789.eE".IndexOf(s[pos]) >= 0) pos++;
            return double.Parse(s.Substring(start, pos - start), CultureInfo.InvariantCulture);
        }

        static string String(string s, ref int pos)
        {
            Expect(s, ref pos, '"');
            var sb = new StringBuilder();
            while (s[pos] != '"')
            {
                char c = s[pos++];
                if (c != '\\') { sb.Append(c); continue; }
                char e = s[pos++];
                switch (e)
                {
                    case 'n': sb.Append('\n'); break;
                    case 't': sb.Append('\t'); break;
                    case 'r': sb.Append('\r'); break;
                    case 'b': sb.Append('\b'); break;
                    case 'f': sb.Append('\f'); break;
                    case 'u':
                        sb.Append((char)int.Parse(s.Substring(pos, 4), NumberStyles.HexNumber));
                        pos += 4;
                        break;
                    default: sb.Append(e); break; // \" \\ \/
                }
            }
            pos++;
            return sb.ToString();
        }
    }
}
