// libllm's Jinja interpreter (src/chat/jinja*.{h,cpp}): the language chat
// templates use, Jinja2's semantics where @huggingface/jinja departs from
// them, and clean bounded failures on broken or hostile templates.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>

#include "chat/jinja.h"

namespace {

std::string render(const std::string &tmpl, const std::string &ctx = "{}") {
    return llm::render_chat_template(tmpl, ctx);
}

// The message of the template error `tmpl` must raise.
std::string error_of(const std::string &tmpl, const std::string &ctx = "{}") {
    try {
        render(tmpl, ctx);
    } catch (const llm::Error &e) {
        CHECK(e.status() == llm::jinja::kTemplateError);
        return e.what();
    }
    FAIL("no error for: " << tmpl);
    return "";
}

} // namespace

TEST_CASE("jinja: text, output, comments and raw", "[jinja]") {
    CHECK(render("") == "");
    CHECK(render("plain text") == "plain text");
    CHECK(render("{{ 'a' }}{{ \"b\" }}") == "ab");
    CHECK(render("a{# comment #}b") == "ab");
    CHECK(render("{{ x }}", R"({"x": "hi"})") == "hi");
    CHECK(render("[{{ missing }}]") == "[]");
    CHECK(render("{% raw %}{{ not evaluated }}{% endraw %}") == "{{ not evaluated }}");
    CHECK(render("{{ 'it''s' }}") == "its");
    CHECK(render("{{ 'a\\nb\\t\\u00e9\\x41' }}") == "a\nb\t\xc3\xa9"
                                                    "A");
    CHECK(render("{{ 1 }}{{ 1.5 }}{{ 2.0 }}{{ true }}{{ none }}") == "11.52.0TrueNone");
    CHECK(render("{{ [1, 'a', none] }}|{{ {'k': 'v'} }}|{{ (1,) }}") ==
          "[1, 'a', None]|{'k': 'v'}|(1,)");
}

TEST_CASE("jinja: whitespace control as transformers sets it", "[jinja]") {
    // trim_blocks: the newline after a block tag goes; lstrip_blocks: the
    // indentation before it.
    CHECK(render("{% if true %}\nyes\n{% endif %}\n") == "yes\n");
    CHECK(render("a\n    {% if true %}\n    b\n    {% endif %}\nc") == "a\n    b\nc");
    CHECK(render("a  {%- if true -%}  b  {%- endif -%}  c") == "abc");
    CHECK(render("a \n {{- 'b' -}} \n c") == "abc");
    CHECK(render("{{ 'x' }}\n") == "x"); // one final newline dropped
    CHECK(render("{{ 'x' }}\n\n") == "x\n");
    CHECK(render("a {#- c -#} b") == "ab");
    CHECK(render("a\n  {%+ if true %}b{% endif %}") == "a\n  b");     // {%+ keeps the indentation
    CHECK(render("x\u00a0\u3000{%- if true %}y{% endif %}") == "xy"); // Unicode spaces too
    // HF's {% generation %} tags vanish, their body stays.
    CHECK(render("{% generation %}body{% endgeneration %}") == "body");
    CHECK(render("a {%- generation -%} b {%- endgeneration %}") == "ab");
}

TEST_CASE("jinja: expressions", "[jinja]") {
    CHECK(render("{{ 1 + 2 * 3 }}|{{ (1 + 2) * 3 }}|{{ 7 // 2 }}|{{ -7 // 2 }}|{{ 7 % 3 }}|{{ -7 % "
                 "3 }}") == "7|9|3|-4|1|2");
    CHECK(render("{{ 7 / 2 }}|{{ 2 ** 10 }}|{{ 2 ** -1 }}|{{ 1.5 + 1 }}|{{ -(3) }}") ==
          "3.5|1024|0.5|2.5|-3");
    CHECK(render("{{ 'a' ~ 1 ~ none }}|{{ 'ab' * 2 }}|{{ [1] + [2] }}|{{ 'n' + 1 }}") ==
          "a1None|abab|[1, 2]|n1");
    CHECK(
        render("{{ 1 < 2 }}{{ 'a' < 'b' }}{{ 1 == 1.0 }}{{ [1, 2] == [1, 2] }}{{ 'a' != 'a' }}") ==
        "TrueTrueTrueTrueFalse");
    CHECK(render("{{ 'b' in 'abc' }}{{ 2 in [1, 2] }}{{ 'k' in {'k': 1} }}{{ 3 not in [1] }}") ==
          "TrueTrueTrueTrue");
    CHECK(render("{{ 0 or 'x' }}|{{ 1 and 'y' }}|{{ not [] }}|{{ not 0 and 1 }}") == "x|y|True|1");
    CHECK(render("{{ 'y' if 1 else 'n' }}{{ 'y' if 0 else 'n' }}[{{ 'y' if 0 }}]") == "yn[]");
    CHECK(render("{{ [1, 2, 3][0] }}{{ [1, 2, 3][-1] }}{{ 'abc'[1] }}[{{ [1][5] }}]") == "13b[]");
    CHECK(render("{{ {'a': {'b': 2}}['a'].b }}{{ {'a': 1}.a }}") == "21");
    CHECK(render("{{ [1, 2, 3, 4, 5][1:3] }}{{ [1, 2, 3][::-1] }}{{ 'hello'[-3:] }}") ==
          "[2, 3][3, 2, 1]llo");
    CHECK(render("{{ [0, 1, 2, 3, 4, 5][::2] }}{{ [0, 1, 2, 3][-2:] }}{{ 'abc'[:-1] }}") ==
          "[0, 2, 4][2, 3]ab");
    CHECK(render("{{ 'héllo'[1:3] }}{{ 'héllo'|length }}") == "él5"); // code points
    CHECK(render("{{ [1, 2, 3][1::9223372036854775807] }}{{ [1, 2, 3][::-9223372036854775807] }}"
                 "{{ 'abcdef'[-2:0:-2] }}{{ [1, 2, 3][5:1] }}{{ 9223372036854775807 is "
                 "divisibleby(-1) }}") == "[2][3]ec[]True");
    CHECK(render("{{ 0.1 + 0.2 }}|{{ 10000000000000000.0 }}|{{ 0.00001 }}") ==
          "0.30000000000000004|1e+16|1e-05");
    CHECK(render("{{ '%s is %d%%' % ('x', 5) }}|{{ '%.2f' % 1.005 }}|{{ '%r' % 'a' }}") ==
          "x is 5%|1.00|'a'");
    CHECK(error_of("{{ 9223372036854775807 + 1 }}").find("overflow") != std::string::npos);
    CHECK(error_of("{{ 1 // 0 }}").find("zero") != std::string::npos);
}

TEST_CASE("jinja: if, for, loop and else", "[jinja]") {
    CHECK(render("{% if 0 %}a{% elif 1 %}b{% else %}c{% endif %}") == "b");
    CHECK(render("{% for x in [1, 2, 3] %}{{ loop.index }}{{ loop.index0 }}{{ loop.first }}"
                 "{{ loop.last }}{{ loop.length }}{{ loop.revindex }};{% endfor %}") ==
          "10TrueFalse33;21FalseFalse32;32FalseTrue31;");
    CHECK(render("{% for x in [] %}a{% else %}empty{% endfor %}") == "empty");
    CHECK(render("{% for k, v in {'a': 1, 'b': 2}.items() %}{{ k }}={{ v }},{% endfor %}") ==
          "a=1,b=2,");
    CHECK(render("{% for k in {'z': 1, 'a': 2} %}{{ k }}{% endfor %}") == "za");
    CHECK(render("{% for c in 'ab' %}{{ c }}.{% endfor %}") == "a.b.");
    CHECK(render("{% for x in range(5) if x is odd %}{{ x }}{% endfor %}") == "13");
    CHECK(render("{% for x in range(10) %}{% if x == 3 %}{% break %}{% endif %}"
                 "{% if x == 1 %}{% continue %}{% endif %}{{ x }}{% endfor %}") == "02");
    CHECK(render("{% for x in [1, 2] %}{{ loop.previtem }}-{{ loop.nextitem }};{% endfor %}") ==
          "-2;1-;");
    CHECK(render("{% for x in undefined_thing %}a{% else %}none{% endfor %}") == "none");
    CHECK(render("{% for a, b in [[1, 2], [3, 4]] %}{{ a + b }}{% endfor %}") == "37");
    // A set inside a loop stays in the loop.
    CHECK(render("{% set x = 1 %}{% for i in [1] %}{% set x = 2 %}{% endfor %}{{ x }}") == "1");
}

TEST_CASE("jinja: set, namespace, block set, macros and call", "[jinja]") {
    CHECK(render("{% set a, b = 1, 2 %}{{ a }}{{ b }}") == "12");
    CHECK(render("{% set ns = namespace(n=0) %}{% for i in [1, 2, 3] %}{% set ns.n = ns.n + i %}"
                 "{% endfor %}{{ ns.n }}") == "6");
    CHECK(render("{% set x %}inner {{ 1 + 1 }}{% endset %}[{{ x }}]") == "[inner 2]");
    CHECK(render("{% macro greet(name, punct='!') %}Hi {{ name }}{{ punct }}{% endmacro %}"
                 "{{ greet('A') }} {{ greet('B', punct='?') }} {{ greet(name='C') }}") ==
          "Hi A! Hi B? Hi C!");
    CHECK(render("{% macro wrap() %}<{{ caller() }}>{% endmacro %}"
                 "{% call wrap() %}body{% endcall %}") == "<body>");
    CHECK(render("{% macro f(n) %}{% if n > 0 %}{{ n }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
                 "{{ f(3) }}") == "321");
    CHECK(render("{% filter upper %}abc{% endfilter %}") == "ABC");
    CHECK(render("{% set l = [] %}{% set _ = l.append(1) %}{{ l.append(2) }}{{ l }}") ==
          "None[1, 2]");
    CHECK(error_of("{% set x = 1 %}{% set x.y = 2 %}").find("namespace") != std::string::npos);
}

TEST_CASE("jinja: filters", "[jinja]") {
    CHECK(render("[{{ '  a b  ' | trim }}]{{ 'x' | length }}{{ [1, 2] | length }}") == "[a b]12");
    CHECK(render("{{ 'aBc' | lower }}{{ 'aBc' | upper }}{{ 'hello world' | title }}"
                 "{{ 'hELLO' | capitalize }}") == "abcABCHello WorldHello");
    CHECK(render("{{ 'aaa' | replace('a', 'b') }}{{ 'aaa' | replace('a', 'b', 2) }}") == "bbbbba");
    CHECK(render("{{ [1, 2, 3] | join(', ') }}|{{ ['a', 'b'] | join }}|{{ [1, 2] | first }}"
                 "{{ [1, 2] | last }}") == "1, 2, 3|ab|12");
    CHECK(render("{{ missing | default('d') }}{{ '' | default('e', true) }}{{ 0 | default(5) }}") ==
          "de0");
    CHECK(render("{{ {'a': 1} | items | list }}") == "[('a', 1)]");
    CHECK(render("{{ [{'n': 1, 'ok': true}, {'n': 2, 'ok': false}] | selectattr('ok') | "
                 "map(attribute='n') | list }}") == "[1]");
    CHECK(render("{{ [{'n': 1, 'r': 'a'}, {'n': 2, 'r': 'b'}] | rejectattr('r', 'equalto', 'a') "
                 "| map(attribute='n') | join }}") == "2");
    CHECK(render(
              "{{ [1, 2, 3, 4] | select('even') | list }}{{ ['a', 'b'] | map('upper') | join }}") ==
          "[2, 4]AB");
    CHECK(render("{{ 'a\\nb\\n\\nc' | indent(2) }}|{{ 'a\\nb' | indent(2, true) }}") ==
          "a\n  b\n\n  c|  a\n  b");
    CHECK(render("{{ '42' | int + 1 }}{{ 'x' | int }}{{ 3.9 | int }}{{ '2.5' | float }}") ==
          "43032.5");
    CHECK(render("{{ [3, 1, 3, 2] | unique | list }}{{ [3, 1, 2] | sort }}{{ -4 | abs }}") ==
          "[3, 1, 2][1, 2, 3]4");
    CHECK(render(
              "{{ 2.567 | round(2) }}{{ 2.5 | round }}{{ [1, 2] | sum }}{{ [1, 'a'] | string }}") ==
          "2.572.03[1, 'a']");
    CHECK(render("{{ '<a>' | safe }}{{ '<a>' | e }}{{ [2, 1] | reverse | list }}") ==
          "<a>&lt;a&gt;[1, 2]");
    CHECK(error_of("{{ 1 | nosuchfilter }}").find("nosuchfilter") != std::string::npos);
}

TEST_CASE("jinja: tojson as transformers defines it", "[jinja]") {
    const std::string ctx =
        R"({"t": {"name": "f", "b": [1, 2.5, true, null], "u": "é\"\n\u0001", "e": {}, "l": []}})";
    CHECK(render("{{ t | tojson }}", ctx) ==
          R"({"name": "f", "b": [1, 2.5, true, null], "u": "é\"\n\u0001", "e": {}, "l": []})");
    CHECK(render("{{ t.b | tojson(indent=2) }}", ctx) == "[\n  1,\n  2.5,\n  true,\n  null\n]");
    CHECK(render("{{ {'b': 1, 'a': {'c': [1]}} | tojson(indent=2, sort_keys=true) }}") ==
          "{\n  \"a\": {\n    \"c\": [\n      1\n    ]\n  },\n  \"b\": 1\n}");
    CHECK(render("{{ 'é😀' | tojson(ensure_ascii=true) }}") == "\"\\u00e9\\ud83d\\ude00\"");
    CHECK(render("{{ {'a': 1, 'b': 2} | tojson(separators=(',', ':')) }}") == "{\"a\":1,\"b\":2}");
}

TEST_CASE("jinja: tests", "[jinja]") {
    CHECK(render("{{ x is defined }}{{ x is undefined }}{{ none is none }}{{ 'a' is string }}") ==
          "FalseTrueTrueTrue");
    CHECK(render("{{ 1 is number }}{{ 1.5 is integer }}{{ {} is mapping }}{{ [] is iterable }}"
                 "{{ 'a' is sequence }}{{ true is boolean }}") == "TrueFalseTrueTrueTrueTrue");
    CHECK(
        render(
            "{{ true is true }}{{ false is false }}{{ 1 is true }}{{ 3 is odd }}{{ 4 is even }}") ==
        "TrueTrueFalseTrueTrue");
    CHECK(
        render("{{ 1 is equalto 1 }}{{ 1 is eq(2) }}{{ 2 is in [1, 2] }}{{ x is not defined }}") ==
        "TrueFalseTrueTrue");
    CHECK(render("{{ 6 is divisibleby 3 }}{{ 'abc' is lower }}") == "TrueTrue");
}

TEST_CASE("jinja: string, dict and list methods", "[jinja]") {
    CHECK(render("{{ 'abc'.startswith('ab') }}{{ 'abc'.endswith(('x', 'c')) }}") == "TrueTrue");
    CHECK(render("{{ 'a,b,,c'.split(',') }}{{ '  a  b '.split() }}{{ 'a b c'.split(' ', 1) }}") ==
          "['a', 'b', '', 'c']['a', 'b']['a', 'b c']");
    // Python's strip family honours its argument (@huggingface/jinja ignores it).
    CHECK(render("[{{ '\\n x \\n'.strip('\\n') }}][{{ 'xxay'.lstrip('x') }}][{{ 'ayy'.rstrip('y') "
                 "}}]") == "[ x ][ay][a]");
    CHECK(render("[{{ ' a '.strip() }}]{{ 'ab'.upper() }}{{ 'AB'.lower() }}{{ 'a-b'.replace('-', "
                 "'+') }}") == "[a]ABaba+b");
    CHECK(render("{{ 'one two'.title() }}{{ '{} and {x}'.format(1, x=2) }}") == "One Two1 and 2");
    CHECK(render("{{ {'a': 1}.get('a') }}{{ {'a': 1}.get('b', 9) }}{{ {'a': 1}.get('b') }}") ==
          "19None");
    CHECK(render("{{ {'a': 1, 'b': 2}.keys() | list }}{{ {'a': 1}.values() | list }}") ==
          "['a', 'b'][1]");
    CHECK(render("{{ ', '.join(['a', 'b']) }}") == "a, b");
    CHECK(error_of("{{ 'a'.nosuch() }}").find("nosuch") != std::string::npos);
}

TEST_CASE("jinja: globals transformers provides", "[jinja]") {
    const std::string msg = error_of("{{ raise_exception('Roles must alternate') }}");
    CHECK(msg.find("Roles must alternate") != std::string::npos);
    CHECK(msg.find("line 1") != std::string::npos);
    CHECK(render("{{ strftime_now('%Y') | length }}") == "4");
    CHECK(render("{{ range(3) | list }}{{ range(1, 7, 2) | list }}{{ range(3, 0, -1) | list }}") ==
          "[0, 1, 2][1, 3, 5][3, 2, 1]");
    CHECK(render("{{ dict(a=1) }}") == "{'a': 1}");
    // The caller's variables (extra ones too) shadow nothing they should not.
    CHECK(render("{{ enable_thinking }}{{ bos_token }}",
                 R"({"enable_thinking": false, "bos_token": "<s>"})") == "False<s>");
}

TEST_CASE("jinja: messages as transformers passes them", "[jinja]") {
    CHECK(llm::render_chat_template("{{ a }}", "{\"a\": 1}") == "1");
    try {
        llm::render_chat_template("{{ a }}", "[1]");
        FAIL("a context that is not an object must fail");
    } catch (const llm::Error &e) {
        CHECK(e.status() == LLM_ERR_INVALID_ARGUMENT);
    }
    const std::string tmpl =
        "{%- for m in messages %}{{ m.role }}:"
        "{%- if m.content is string %}{{ m.content }}"
        "{%- else %}{% for p in m.content if p.type == 'text' %}{{ p.text }}{% endfor %}"
        "{%- endif %};{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}";
    const std::string ctx = R"({"messages": [{"role": "user", "content": "hi"},
        {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "look"}]}],
        "add_generation_prompt": true, "tools": null})";
    CHECK(render(tmpl, ctx) == "user:hi;user:look;assistant:");
}

TEST_CASE("jinja: broken templates fail with the line", "[jinja]") {
    CHECK(error_of("{% if x %}never closed").find("if") != std::string::npos);
    CHECK(error_of("line one\n{{ 1 + }}").find("line 2") != std::string::npos);
    CHECK(error_of("a\nb\n{% nosuchtag %}").find("line 3") != std::string::npos);
    CHECK(error_of("{{ 'unterminated }}").find("string") != std::string::npos);
    CHECK(error_of("{% for %}{% endfor %}").find("line 1") != std::string::npos);
    CHECK(!error_of("{{ x").empty());
    CHECK(!error_of("{% endif %}").empty());
    CHECK(!error_of("{{ undefined_fn() }}").empty());
    CHECK(!error_of("{% raw %}no end").empty());
    CHECK(error_of("a\n{{ {'f': range} | tojson }}").find("line 2") != std::string::npos);
    CHECK(!error_of("{{ 'a' < 1 }}").empty());
}

TEST_CASE("jinja: hostile templates end quickly", "[jinja]") {
    const auto start = std::chrono::steady_clock::now();
    // (A lower step limit than the default keeps this test quick.)
    llm::JinjaLimits quick;
    quick.max_steps = 200000;
    try {
        llm::render_chat_template(
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
            nlohmann::ordered_json::object(), quick);
        FAIL("nested loops must hit the step limit");
    } catch (const llm::Error &e) {
        CHECK(std::string(e.what()).find("step limit") != std::string::npos);
    }
    CHECK(!error_of("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}").empty());
    CHECK(!error_of("{{ 'x' * 100000000000 }}").empty());
    CHECK(!error_of("{% set s = namespace(v='x') %}{% for i in range(64) %}"
                    "{% set s.v = s.v ~ s.v %}{% endfor %}")
               .empty());
    CHECK(!error_of("{% set l = [] %}{% set _ = l.append(l) %}{{ l }}").empty());
    CHECK(!error_of("{{ " + std::string(5000, '(') + "1" + std::string(5000, ')') + " }}").empty());
    CHECK(!error_of("{{ " + std::string(3000, '[') + " }}").empty());
    CHECK(!error_of(std::string(2000, '{') + "%").empty());
    std::string nested;
    for (int k = 0; k < 1000; ++k)
        nested += "{% if true %}";
    CHECK(!error_of(nested).empty());
    CHECK(!error_of("{{ range(999999999999) | length }}").empty());
    // Floats far outside int64 where an int is due saturate (found by fuzz_jinja).
    CHECK(render("{{ [1] | tojson(indent=21111111111111111111111111111) | length }}") == "69");
    CHECK(render("{{ '%d' % 100000000000000000000000.0 }}") == "9223372036854775807");
    CHECK(!error_of("{% for x in 'a' * 9000000 %}{% endfor %}").empty());
    const auto secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(secs < 10);
}
