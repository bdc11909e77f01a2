// Package capi is the SWIG-generated wrapper of llm.h (see
// bindings/swig/llm.i); capi.go and llm_wrap.c are generated, do not edit
// them. This file only tells cgo where llm.h and libllm are: an installed
// libllm found by pkg-config (set PKG_CONFIG_PATH for a custom prefix).
// Build with -tags llm_intree to use the repository's header and -lllm
// from CGO_LDFLAGS instead (link_intree.go; the in-tree tests do).

//go:build !llm_intree

package capi

// #cgo pkg-config: llm
import "C"
