package llm

import (
	"strings"
	"testing"
)

func TestCheckEngineVersion(t *testing.T) {
	if err := checkEngineVersion(10500); err != nil {
		t.Errorf("1.5.0 refused: %v", err)
	}
	for _, number := range []int{20000, 900, 0} {
		err := checkEngineVersion(number)
		if err == nil || !strings.Contains(err.Error(), "needs major 1") {
			t.Errorf("version number %d: got %v, want a major-version error", number, err)
		}
	}
}
