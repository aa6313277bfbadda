// Package none is the absence of congestion control: every QP sends at
// its NIC's line rate, has no window and asks for no timer. Only PFC (in
// lossless mode) and the RNIC scheduler limit it. It is the baseline for
// "what does congestion control buy" and the simplest cc.Algorithm.
//
// # Parameters
//
// None. Params is an empty struct so that "none" is configured like every
// other algorithm (cc.none: {}).
//
// # Reference model
//
// The reference ns-3 model has no "none" mode as such; its closest setting
// is CC_MODE 0 with RATE_BOUND 1, where a QP's rate stays at line rate
// because nothing ever changes it. This package is that behaviour.
package none
