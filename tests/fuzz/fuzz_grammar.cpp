// The GBNF parser and the grammar matcher on arbitrary input: the bytes
// before the first NUL are a grammar, the rest is text fed to its matcher
// byte by byte. Every grammar must compile or fail with LLM_ERR_GRAMMAR; the
// matcher may only refuse bytes or fail with LLM_ERR_GRAMMAR (its limits);
// and the token trie's mask over a small vocabulary must equal running the
// matcher over each token (no crash, no other exception, bounded time).
//
// Seeds: LLVMFuzzerInitialize writes a few into a corpus folder named
// .../fuzz_grammar that does not exist yet (make_corpus.py has no part).
#include <sys/stat.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "fuzz_support.h"
#include "grammar/gbnf_parser.h"
#include "grammar/grammar_matcher.h"
#include "grammar/token_trie.h"

namespace {

// Grammar, then the text after a NUL.
const char *kSeeds[][2] = {
    {"root ::= \"{\" ws pair (\",\" ws pair)* \"}\"\npair ::= [a-z]+ \":\" ws [0-9]{1,3}\n"
     "ws ::= [ \\t\\n]*\n",
     "{a: 1,b:22}"},
    {"root ::= ([^\"\\\\] | \"\\\\\" [nt\"])* \"!\"? # c\n", "ab\\n\""},
    {"root ::= x{2,4} | y\nx ::= \"\\u00e9\" | [\\U0001F600-\\U0001F64F]\ny ::= .\n",
     "\xC3\xA9\xC3\xA9"},
    {"root ::= (a | b)?\na ::= \"a\" a | \"a\"\nb ::= [b-d]{0,5} \"e\"\n", "aaaa"},
};

bool exists(const std::string &path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

const std::vector<std::string> &vocab() {
    static const std::vector<std::string> v = {
        "a",  "b",  "{",    "}",    ":",        ",", " ",  "\n", "ab", "abc", "1", "12",
        "\"", "\\", "\xC3", "\xA9", "\xC3\xA9", "x", "xy", "e",  "!",  "",    "é!"};
    return v;
}

void check(const llm::Error &e, const char *what) {
    if (e.status() != LLM_ERR_GRAMMAR)
        fuzz::violation(std::string(what) + ": unexpected status for: " + e.what());
    if (std::strlen(e.what()) == 0) fuzz::violation(std::string(what) + ": error without message");
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv) {
    const std::string suffix = "/fuzz_grammar";
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
            f << kSeeds[s][0] << '\0' << kSeeds[s][1];
        }
    }
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string all(reinterpret_cast<const char *>(data), size);
    const size_t nul = all.find('\0');
    const std::string gbnf = all.substr(0, nul);
    const std::string text = nul == std::string::npos ? std::string() : all.substr(nul + 1);
    std::shared_ptr<const llm::grammar::Grammar> g;
    try {
        g = llm::grammar::parse_gbnf(gbnf);
    } catch (const llm::Error &e) {
        check(e, "gbnf");
        return 0;
    } catch (const std::exception &e) {
        fuzz::violation(std::string("gbnf: stray exception: ") + e.what());
    }
    static const llm::grammar::TokenTrie trie(vocab(), {static_cast<int32_t>(vocab().size()) - 2});
    try {
        llm::grammar::GrammarMatcher m(g);
        for (size_t i = 0; i <= text.size(); ++i) {
            // At a few points, the trie's mask against brute force.
            if (i % 8 == 0) {
                std::vector<uint8_t> allowed;
                trie.mask(m, m.state(), allowed);
                for (int32_t id = 0; id < trie.n_vocab(); ++id) {
                    bool ok;
                    if (trie.is_eog(id)) {
                        ok = m.can_end();
                    } else if (trie.bytes(id).empty()) {
                        ok = false;
                    } else {
                        llm::grammar::GrammarMatcher c = m;
                        ok = c.accept_bytes(trie.bytes(id));
                    }
                    if (ok != (allowed[static_cast<size_t>(id)] != 0))
                        fuzz::violation("grammar: trie mask differs from the matcher at token " +
                                        std::to_string(id));
                }
            }
            if (i < text.size()) m.accept_byte(static_cast<uint8_t>(text[i]));
        }
    } catch (const llm::Error &e) {
        check(e, "grammar matcher");
    } catch (const std::exception &e) {
        fuzz::violation(std::string("grammar matcher: stray exception: ") + e.what());
    }
    return 0;
}
