// The Jinja chat-template interpreter (src/chat/jinja*) on arbitrary
// templates with a fixed conversation (system, multi-turn, tool calls, a
// list-of-parts content, tools, extra variables). Every input must either
// render within the limits or fail with the template status; nothing else
// (no crash, no other exception, no runaway time or memory).
//
// Seeds: the real chat templates of the oracle corpus are not on disk here,
// so LLVMFuzzerInitialize writes a few template seeds into a corpus folder
// named .../fuzz_jinja that does not exist yet (make_corpus.py has no
// fuzz_jinja part).
#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "chat/jinja.h"
#include "fuzz_support.h"

namespace {

const char *kContext = R"({
  "messages": [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Hi <think>\n\"quoted\" é 😀"},
    {"role": "assistant", "content": "<think>\nhmm\n</think>\n\nHello", "tool_calls": [
      {"type": "function", "function": {"name": "f", "arguments": {"x": 1, "y": [true, null]}}},
      {"type": "function", "function": {"name": "g", "arguments": "{\"z\": 2}"}}]},
    {"role": "tool", "content": "result"},
    {"role": "user", "content": [{"type": "text", "text": "look"}, {"type": "image"}]},
    {"role": "assistant", "content": null}
  ],
  "tools": [{"type": "function", "function": {"name": "f", "description": "d",
    "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}}}}],
  "add_generation_prompt": true,
  "bos_token": "<s>",
  "eos_token": "</s>",
  "enable_thinking": false,
  "documents": null
})";

const char *kSeeds[] = {
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}",
    "{{ bos_token }}{%- for m in messages -%}{%- if m['content'] is string -%}{{ m['content'] | "
    "trim }}{%- else -%}{%- for p in m['content'] -%}{{ p['text'] }}{%- endfor -%}{%- endif -%}"
    "{%- endfor -%}",
    "{%- set ns = namespace(i=0, s='') %}{%- for m in messages[::-1] %}{%- set ns.i = loop.index0 "
    "%}{%- if m.content is string and '</think>' in m.content %}{{ m.content.split('</think>')[-1]"
    ".lstrip('\\n') }}{%- endif %}{%- endfor %}{{ ns.i }}",
    "{% macro f(a, b=2) %}{{ a ~ b }}{{ caller() if caller is defined }}{% endmacro %}"
    "{% call f(1) %}x{% endcall %}{{ tools | tojson(indent=2) }}{{ range(3) | join(',') }}",
    "{% set x %}{{ 'a' * 3 }}{% endset %}{{ x | upper | replace('A', 'b') }}{{ {'k': [1, 2.5]} "
    "| tojson }}{% raw %}{{ raw }}{% endraw %}{# c #}{{ raise_exception('no') if false }}",
    "{%- if tools %}{%- for t in tools %}{{ t.function.name }}{% endfor %}{% endif %}"
    "{{ messages | selectattr('role', 'equalto', 'user') | map(attribute='role') | list }}",
};

bool exists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const std::string suffix = "/fuzz_jinja";
    for (int k = 1; k < *argc; ++k) {
        const std::string a = (*argv)[k];
        if (a.empty() || a[0] == '-' || a.size() < suffix.size() ||
            a.compare(a.size() - suffix.size(), suffix.size(), suffix) != 0 || exists(a))
            continue;
        for (size_t slash = a.find('/', 1); slash != std::string::npos;
             slash = a.find('/', slash + 1))
            ::mkdir(a.substr(0, slash).c_str(), 0755);
        ::mkdir(a.c_str(), 0755);
        for (size_t s = 0; s < sizeof kSeeds / sizeof kSeeds[0]; ++s) {
            std::ofstream f(a + "/seed" + std::to_string(s), std::ios::binary);
            f << kSeeds[s];
        }
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const nlohmann::ordered_json context = nlohmann::ordered_json::parse(kContext);
    llm::JinjaLimits limits;
    limits.max_output = 1 << 20;
    limits.max_string = 1 << 20;
    limits.max_items = 1 << 16;
    limits.max_steps = 200000;
    const std::string tmpl(reinterpret_cast<const char *>(data), size);
    try {
        const std::string out = llm::render_chat_template(tmpl, context, limits);
        if (out.size() > limits.max_output) fuzz::violation("jinja: output past max_output");
    } catch (const llm::Error &e) {
        if (e.status() != llm::jinja::kTemplateError)
            fuzz::violation(std::string("jinja: unexpected status for: ") + e.what());
        if (std::strlen(e.what()) == 0) fuzz::violation("jinja: error without a message");
    } catch (const std::exception &e) {
        fuzz::violation(std::string("jinja: stray exception: ") + e.what());
    }
    return 0;
}
