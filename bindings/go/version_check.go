package llm

import (
	"fmt"

	"libllm.dev/llm/internal/capi"
)

// engineMajor is the libllm major version this package was written for: a
// libllm of another major version has another ABI, so using it is refused
// when the package loads rather than failing in odd ways later.
const engineMajor = 1

func init() {
	if err := checkEngineVersion(int(capi.Llm_version_number())); err != nil {
		panic(err)
	}
}

func checkEngineVersion(number int) error {
	if major := number / 10000; major != engineMajor {
		return fmt.Errorf("llm: the loaded libllm is version %s (major %d), this Go package needs major %d: install a libllm %d.x",
			capi.Llm_version(), major, engineMajor, engineMajor)
	}
	return nil
}
