// Package capi is the SWIG-generated wrapper of llm.h (see
// bindings/swig/llm.i); capi.go and llm_wrap.c are generated, do not edit
// them. This file only tells cgo where llm.h and libllm are: the in-tree
// header, and -lllm from the linker's search path. Point CGO_LDFLAGS at a
// build tree (-L<dir> -Wl,-rpath,<dir>) to use libllm without installing it.
package capi

// #cgo CFLAGS: -I${SRCDIR}/../../../../include
// #cgo LDFLAGS: -lllm
import "C"
