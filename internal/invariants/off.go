//go:build !invariants

// Package invariants switches expensive self-checks on with the build tag
// "invariants" (go test -tags invariants ./...). Code guards a check with
// `if invariants.Enabled { ... }`; without the tag the constant is false
// and the compiler removes the check entirely.
package invariants

// Enabled is true when built with -tags invariants.
const Enabled = false
