package main

import "strings"

// Limits on `stop`: bounded work per generated token.
const (
	maxStops      = 16
	maxStopLength = 256
)

// stopMatcher finds stop strings in streamed text. It holds back the end
// of the text while it could still begin a stop string, so what it lets
// through never contains (part of) a stop that then matches.
type stopMatcher struct {
	stops   []string
	pending string // text not yet let through
	after   string // after a hit: the text that followed the stop string
}

// add appends a piece and returns the text that may be emitted; hit: a
// stop string matched (the text before it is returned; nothing after it
// is ever emitted).
func (m *stopMatcher) add(piece string) (out string, hit bool) {
	m.pending += piece
	if len(m.stops) == 0 {
		out, m.pending = m.pending, ""
		return out, false
	}
	first, end := -1, 0
	for _, s := range m.stops {
		if i := strings.Index(m.pending, s); i >= 0 && (first < 0 || i < first) {
			first, end = i, i+len(s)
		}
	}
	if first >= 0 {
		out, m.after, m.pending = m.pending[:first], m.pending[end:], ""
		return out, true
	}
	hold := 0
	for _, s := range m.stops {
		k := len(s) - 1
		if k > len(m.pending) {
			k = len(m.pending)
		}
		for ; k > hold; k-- {
			if strings.HasSuffix(m.pending, s[:k]) {
				hold = k
				break
			}
		}
	}
	cut := len(m.pending) - hold
	out, m.pending = m.pending[:cut], m.pending[cut:]
	return out, false
}

// flush returns the held-back text at the end of a generation.
func (m *stopMatcher) flush() string {
	out := m.pending
	m.pending = ""
	return out
}
