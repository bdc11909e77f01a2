// With -tags llm_intree: the in-tree header, and -lllm from the linker's
// search path. Point CGO_LDFLAGS at a build tree (-L<dir> -Wl,-rpath,<dir>)
// to use libllm without installing it.

//go:build llm_intree

package capi

// #cgo CFLAGS: -I${SRCDIR}/../../../../include
// #cgo LDFLAGS: -lllm
import "C"
