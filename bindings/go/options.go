package llm

import (
	"strings"

	"libllm.dev/llm/internal/capi"
)

// Option sets one generation setting. Unset settings keep libllm's defaults
// (temperature 1, top-p 0.9, no top-k, fixed seed, no token limit, stop at
// end of generation).
type Option func(*generateConfig)

type generateConfig struct {
	temperature, topP, minP, repeatPenalty float32
	topK, repeatLastN, maxTokens           int
	seed                                   uint64
	stopAtEOS, parseSpecial                bool
	// structured output: at most one of the two
	jsonSchema, grammar, grammarRoot string
	hasJSONSchema, hasGrammar        bool
}

func newGenerateConfig(opts []Option) generateConfig {
	p := capi.Llm_sampler_default_params()
	defer capi.DeleteLlm_sampler_params(p)
	c := generateConfig{
		temperature:   p.GetTemperature(),
		topP:          p.GetTop_p(),
		topK:          p.GetTop_k(),
		minP:          p.GetMin_p(),
		repeatPenalty: p.GetRepeat_penalty(),
		repeatLastN:   p.GetRepeat_last_n(),
		seed:          p.GetSeed(),
		stopAtEOS:     true,
	}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// Temperature scales the logits before sampling; 0 picks the most likely
// token (greedy decoding).
func Temperature(t float32) Option { return func(c *generateConfig) { c.temperature = t } }

// Greedy always picks the most likely token: Temperature(0).
func Greedy() Option { return Temperature(0) }

// TopP keeps the smallest set of tokens whose probability reaches p (1 = off).
func TopP(p float32) Option { return func(c *generateConfig) { c.topP = p } }

// TopK keeps the k most likely tokens (0 = off).
func TopK(k int) Option { return func(c *generateConfig) { c.topK = k } }

// MinP drops tokens less likely than p times the most likely one (0 = off).
func MinP(p float32) Option { return func(c *generateConfig) { c.minP = p } }

// RepeatPenalty discourages the tokens among the last n (penalty 1 = off).
func RepeatPenalty(penalty float32, lastN int) Option {
	return func(c *generateConfig) { c.repeatPenalty, c.repeatLastN = penalty, lastN }
}

// Seed sets the sampling RNG's seed; the same seed gives the same text.
func Seed(seed uint64) Option { return func(c *generateConfig) { c.seed = seed } }

// MaxTokens limits the tokens generated (0 = until the end of generation or
// a full context).
func MaxTokens(n int) Option { return func(c *generateConfig) { c.maxTokens = n } }

// StopAtEOS stops at an end-of-generation token (the default); false
// feeds it back and goes on.
func StopAtEOS(stop bool) Option { return func(c *generateConfig) { c.stopAtEOS = stop } }

// ParseSpecialTokens reads special-token text in the prompt ("<|im_start|>") as
// the special token: for prompts from ApplyChatTemplate.
func ParseSpecialTokens() Option { return func(c *generateConfig) { c.parseSpecial = true } }

// JSONSchema constrains the output to JSON that validates against schema
// (a JSON Schema as JSON text; see docs/structured-output.md for the
// keywords libllm supports). A schema it refuses fails the generation with
// ErrGrammar before the prompt is fed.
func JSONSchema(schema string) Option {
	return func(c *generateConfig) { c.jsonSchema, c.hasJSONSchema = schema, true }
}

// Grammar constrains the output to the sentences of a GBNF grammar (start
// rule "root", or GrammarRoot's). A bad grammar fails the generation with
// ErrGrammar before the prompt is fed.
func Grammar(gbnf string) Option {
	return func(c *generateConfig) { c.grammar, c.hasGrammar = gbnf, true }
}

// GrammarRoot names the start rule of Grammar's grammar (default "root").
func GrammarRoot(rule string) Option { return func(c *generateConfig) { c.grammarRoot = rule } }

// newSampler makes the native sampler for c; model is the open model whose
// tokens it will pick (needed for a JSONSchema or Grammar).
func (c *generateConfig) newSampler(model capi.SwigcptrModel) (capi.SwigcptrSampler, error) {
	if err := c.checkStructure(); err != nil {
		return 0, err
	}
	p := capi.Llm_sampler_default_params()
	defer capi.DeleteLlm_sampler_params(p)
	p.SetTemperature(c.temperature)
	p.SetTop_p(c.topP)
	p.SetTop_k(c.topK)
	p.SetMin_p(c.minP)
	p.SetRepeat_penalty(c.repeatPenalty)
	p.SetRepeat_last_n(c.repeatLastN)
	p.SetSeed(c.seed)
	out := make([]capi.SwigcptrSampler, 1)
	if err := capi.Llm_sampler_new(p, out); err != nil {
		return 0, wrap("sampler", err)
	}
	var err error
	switch {
	case c.hasJSONSchema:
		err = wrap("json schema", capi.Llm_sampler_set_json_schema(out[0], model, c.jsonSchema))
	case c.hasGrammar:
		root := c.grammarRoot
		if root == "" {
			root = "root"
		}
		err = wrap("grammar", capi.Llm_sampler_set_grammar(out[0], model, c.grammar, root))
	}
	if err != nil {
		capi.Llm_sampler_free(out[0])
		return 0, err
	}
	return out[0], nil
}

// checkStructure refuses what the C strings of llm.h cannot carry and a
// schema and a grammar together.
func (c *generateConfig) checkStructure() error {
	bad := func(msg string) error { return &Error{Op: "generate", Status: ErrInvalidArgument, Message: msg} }
	switch {
	case c.hasJSONSchema && c.hasGrammar:
		return bad("JSONSchema and Grammar: give one of them")
	case c.grammarRoot != "" && !c.hasGrammar:
		return bad("GrammarRoot needs Grammar")
	case strings.IndexByte(c.jsonSchema, 0) >= 0, strings.IndexByte(c.grammar, 0) >= 0,
		strings.IndexByte(c.grammarRoot, 0) >= 0:
		return bad("JSONSchema, Grammar and GrammarRoot must not contain NUL bytes")
	}
	return nil
}
